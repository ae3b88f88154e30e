import AsyncHTTPClient
import Foundation
import GiftKeeperCrypto
import GiftKeeperTestSupport
import GiftKeeperWire
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import TestProcesses
import Testing

/// SPEC §12 and docs/scaling.md: several service processes on one database are one
/// service. A challenge one gives out signs in at another, once; a token one gives out
/// is good at the other; a device revoked through one is refused by the other within a
/// moment, its live sockets closed. Spoken here in the wire protocol itself, as a load
/// balancer would spread it.
extension ServiceEndToEndTests {
    @Test("two service processes: a challenge from one signs in at the other once; tokens are good at both; a revocation reaches both")
    func servicesShareSessions() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let ports = ServiceFixture.sparePort == 0 ? (0, 0) : (ServiceFixture.sparePort + 8, ServiceFixture.sparePort + 9)
        try await withService(port: ports.0) { first, _ in
            try await withService(port: ports.1) { second, secondProcess in
                _ = try await sharedLaptop(laptop, service: first)
                try await enrolAndClone(from: laptop, to: desktop)
                let key = try deviceKey(of: desktop, service: first)
                let wire = try WireClient()
                defer { wire.close() }

                // A challenge from the first process, signed in with at the second, once.
                let nonce = try await wire.challenge(at: first)
                let proof = DeviceProof(
                    publicKey: Data(key.publicKey), nonce: Data(nonce),
                    signature: Data(try key.sign(Wire.proofMessage(nonce: nonce))))
                let signedIn = try await wire.post(second + Route.session, proof)
                #expect(signedIn.status == .ok, "\(signedIn.text)")
                let replayed = try await wire.post(first + Route.session, proof)
                #expect(replayed.status == .unauthorized, "a challenge signs in once, on any process: \(replayed.text)")
                let token = try JSONDecoder().decode(SessionToken.self, from: signedIn.body).token

                // The second process's token is good at the first, and at the second.
                for service in [first, second] {
                    let devices = try await wire.get(service + Route.devices, token: token)
                    #expect(devices.status == .ok, "\(service): \(devices.text)")
                }
                let forged = String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")
                #expect(try await wire.get(first + Route.devices, token: forged).status == .unauthorized)

                // The desktop's live socket, on the second process, stays open until the removal.
                let socket = LiveSocket(url: second.replacingOccurrences(of: "https://", with: "wss://") + Route.live, token: token)
                #expect(await socket.opened(within: .seconds(15)), "the second process opened no live socket")

                // The laptop removes the desktop through the first process: the second refuses its token.
                let list = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                let line = try #require(list.stdoutLines.first { !$0.isEmpty && !$0.contains("(this device)") }, "\(list)")
                let removed = try await laptop.run(
                    ["device", "remove", String(line.prefix { $0 != " " }), "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(removed.status == 0, "\(removed)")
                var refused = false
                for _ in 0..<100 where !refused {
                    refused = try await wire.get(second + Route.devices, token: token).status == .unauthorized
                    if !refused { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(refused, "the second process still took a revoked device's token after 10 s")
                #expect(await socket.closed(within: .seconds(10)), "a revoked device's live socket stayed open: \(secondProcess.stderr)")
            }
        }
    }

    /// The signing key `device` keeps for its one service (SPEC §12, `devices/*.key`), opened
    /// from its first seal with `password` as the program does (docs/threat-model.md).
    func deviceKey(of device: Sandbox, service: String, password text: String = "secret-pw") throws -> SigningKeyPair {
        let folder = device.state + "/giftkeeper/devices"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".key") }
        let file = try #require(names.count == 1 ? names.first : nil, "\(names)")
        let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "GKDEVICEKEY2")
        let fields = try #require(lines.count >= 2 ? lines[1].split(separator: " ").map(String.init) : nil)
        let parameters = try KDFParameters(
            validatingOpsLimit: try #require(UInt64(fields[2])), memLimit: try #require(UInt64(fields[3])))
        let salt = try #require(Wire.unhex(fields[4]))
        let password = try SecureBytes(capacity: text.utf8.count)
        password.withUnsafeMutableBytes { $0.copyBytes(from: Array(text.utf8)) }
        let passwordKey = try PasswordKDF.deriveKey(password: password, salt: salt, parameters: parameters)
        let sealKey = try AEAD.openSecret(
            try #require(Wire.unhex(fields[5])), key: passwordKey, additionalData: try #require(Wire.unhex(fields[6])))
        var additional = Array("GKDEVICEKEY2 seed \(service)\n".utf8) + (fields[0] == "-" ? [] : try #require(Wire.unhex(fields[0])))
        for shift in stride(from: 0, to: 64, by: 8) { additional.append(UInt8(truncatingIfNeeded: (UInt64(fields[1]) ?? 0) >> UInt64(shift))) }
        let seed = try DeviceSeedSeal.open(try #require(Wire.unhex(fields[7])), under: sealKey, additionalData: additional + salt)
        return try SigningKeyPair(seed: seed)
    }
}

/// Requests in the service's wire protocol, trusting the tests' certificate authority.
final class WireClient {
    struct Answer {
        let status: HTTPResponseStatus
        let body: Data
        let contentType: String?
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let client: HTTPClient

    init() throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(ServiceFixture.caFile)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }

    func close() { try? client.syncShutdown() }

    func challenge(at service: String) async throws -> [UInt8] {
        let answer = try await send(.POST, service + Route.challenge, body: nil, token: nil)
        #expect(answer.status == .ok, "\(answer.text)")
        return Array(try JSONDecoder().decode(Challenge.self, from: answer.body).nonce)
    }

    func post(_ url: String, _ value: some Encodable) async throws -> Answer {
        try await send(.POST, url, body: try JSONEncoder().encode(value), token: nil)
    }

    func get(_ url: String, token: String, accept: String? = nil) async throws -> Answer {
        try await send(.GET, url, body: nil, token: token, accept: accept)
    }

    private func send(_ method: HTTPMethod, _ url: String, body: Data?, token: String?, accept: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let accept { request.headers.add(name: "Accept", value: accept) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: response.status, body: Data(bytes.readableBytesView), contentType: response.headers.first(name: "Content-Type"))
    }
}

/// A live-changes socket (`/v1/live`) held open in the background, to see when the service closes it.
final class LiveSocket: Sendable {
    private final class State: Sendable {
        let flags = Mutex<(opened: Bool, closed: Bool)>((false, false))
    }

    private let state = State()
    private let task: Task<Void, Never>

    init(url: String, token: String) {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(token)"
        configuration.sniHostname = "localhost"
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(ServiceFixture.caFile)
        let state = self.state
        task = Task {
            _ = try? await WebSocketClient.connect(
                url: url, configuration: configuration, tlsConfiguration: tls, logger: Logger(label: "live-socket")
            ) { inbound, _, _ in
                state.flags.withLock { $0.opened = true }
                for try await _ in inbound.messages(maxSize: 1 << 12) {}
                // The service closed the socket (its close frame ends the messages).
                state.flags.withLock { $0.closed = true }
            }
            state.flags.withLock { $0.closed = true }
        }
    }

    deinit { task.cancel() }

    func opened(within limit: Duration) async -> Bool { await wait(limit) { $0.opened && !$0.closed } }
    func closed(within limit: Duration) async -> Bool { await wait(limit) { $0.closed } }

    private func wait(_ limit: Duration, until condition: ((opened: Bool, closed: Bool)) -> Bool) async -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if state.flags.withLock({ condition($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return state.flags.withLock { condition($0) }
    }
}
