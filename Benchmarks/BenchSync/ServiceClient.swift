import AsyncHTTPClient
import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// The sync service's protocol (SPEC §12, ``Route`` and the ``GiftKeeperWire`` types) as a
/// simulated device speaks it, asynchronously, so one process can hold a thousand devices:
/// HTTPS requests through one AsyncHTTPClient, WebSockets through HummingbirdWSClient,
/// both trusting the bench's certificate authority.
final class ServiceClient: Sendable {
    let http: HTTPClient
    let tls: TLSConfiguration

    init(caFile: String) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(caFile)
        tls.minimumTLSVersion = .tlsv12
        self.tls = tls
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func shutdown() async throws {
        try await http.shutdown()
    }

    /// `method` on `url` with `body` as JSON; the answer's status and body.
    func send(_ method: HTTPMethod, _ url: String, token: String?, body: (some Encodable)?) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        }
        let response = try await http.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: Wire.maximumRequestBytes)
        return (Int(response.status.code), Data(bytes.readableBytesView))
    }

    /// ``send(_:_:token:body:)`` expecting a 2xx answer of type `Answer`.
    func call<Answer: Decodable>(
        _ method: HTTPMethod, _ url: String, token: String?, body: (some Encodable)? = Optional<Data>.none, as: Answer.Type
    ) async throws -> Answer {
        let (status, data) = try await send(method, url, token: token, body: body)
        guard (200..<300).contains(status) else {
            throw BenchError("\(method) \(url): \(status) \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }
}

/// A failure of the bench, in words.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One simulated device: its own Ed25519 key (libsodium, as a real device's), the
/// service process it talks to, its bearer token, and what it has read of its journal.
final class Device: Sendable {
    let service: ServiceClient
    /// The service process's origin (`https://127.0.0.1:PORT`).
    let origin: String
    /// Which service process (an index into the bench's list).
    let node: Int
    let journalID: [UInt8]
    private let key: SigningKeyPair
    private let state = Mutex(State())

    struct State {
        var token: String?
        /// The frames read (or appended) so far, in order, and the journal's head hash after them.
        var frames: [Data] = []
        var headHash = Data()
    }

    init(service: ServiceClient, origin: String, node: Int, journalID: [UInt8]) throws {
        self.service = service
        self.origin = origin
        self.node = node
        self.journalID = journalID
        key = try SigningKeyPair.generate()
    }

    var token: String? { state.withLock { $0.token } }
    var frames: [Data] { state.withLock { $0.frames } }
    var head: UInt64 { UInt64(state.withLock { $0.frames.count }) }

    // MARK: Signing in

    /// A proof of this device's key: the service's fresh nonce, signed.
    private func proof() async throws -> DeviceProof {
        let challenge = try await service.call(.POST, origin + Route.challenge, token: nil, as: Challenge.self)
        let signature = try key.sign(Wire.proofMessage(nonce: Array(challenge.nonce)))
        return DeviceProof(publicKey: Data(key.publicKey), nonce: challenge.nonce, signature: Data(signature))
    }

    /// Signs up (a new account whose first device this is), or joins the account of an
    /// enrolment `code`.
    func enrol(code: String? = nil) async throws {
        let signUp = DeviceSignUp(proof: try await proof(), deviceName: "bench", code: code)
        let route = code == nil ? Route.accounts : Route.redeem
        let session = try await service.call(.POST, origin + route, token: nil, body: signUp, as: SessionToken.self)
        state.withLock { $0.token = session.token }
    }

    /// Makes the journal on the service (the first device's first push), with a header
    /// and genesis hash of random bytes: the service stores them and opens nothing.
    func createJournal() async throws {
        let genesis = Data(try randomBytes(count: 32))
        let new = NewJournal(header: Data(try randomBytes(count: 64)), journalID: Data(journalID), genesisHash: genesis)
        let (status, data) = try await service.send(.POST, origin + Route.journals, token: token, body: new)
        guard status == 201 else { throw BenchError("create journal: \(status) \(String(decoding: data, as: UTF8.self))") }
        state.withLock { $0.headHash = genesis }
    }

    /// A one-time code that enrols another device in this device's account.
    func enrolmentCode() async throws -> String {
        try await service.call(.POST, origin + Route.enrolments, token: token, as: EnrolmentCode.self).code
    }

    // MARK: The cursor

    /// Appends `frame` after this device's head, posting its head record as a device
    /// does; false when another device appended first (nothing written).
    func append(_ frame: Data) async throws -> Bool {
        let (base, hash) = state.withLock { (UInt64($0.frames.count), $0.headHash) }
        let newHash = Data(try randomBytes(count: 32))
        let request = AppendRequest(
            base: WireHead(sequence: base, hash: hash), head: WireHead(sequence: base + 1, hash: newHash), frames: [frame],
            post: PostedHead(device: Data(journalID), record: Data(try randomBytes(count: 96))))
        let answer = try await service.call(.POST, origin + Route.append(journalID), token: token, body: request, as: AppendAnswer.self)
        guard answer.appended else { return false }
        state.withLock { state in
            guard UInt64(state.frames.count) == base else { return }  // a wake-up's read took it in already
            state.frames.append(frame)
            state.headHash = newHash
        }
        return true
    }

    /// Reads the frames after this device's head, page by page, up to the journal's head;
    /// the sequence numbers taken in. A page that does not start right after the head is
    /// refused.
    @discardableResult
    func read() async throws -> ClosedRange<UInt64>? {
        let first = head + 1
        while true {
            let after = head
            let page = try await service.call(
                .GET, origin + Route.frames(journalID, after: after, limit: Wire.maximumPageFrames), token: token, as: FramePage.self)
            guard page.after == after else { throw BenchError("a page after \(page.after), asked after \(after)") }
            let taken = state.withLock { state in
                guard UInt64(state.frames.count) == after else { return false }  // this device's append landed meanwhile
                state.frames += page.frames
                if UInt64(state.frames.count) == page.head.sequence { state.headHash = page.head.hash }
                return true
            }
            guard taken else { continue }
            if page.frames.isEmpty || head >= page.head.sequence { break }
        }
        return head >= first ? first...head : nil
    }

    // MARK: Live changes

    /// Holds this device's WebSocket of live changes open until cancelled, reconnecting
    /// after a second when it closes: `opened` when it is open, and `heard` for each
    /// change it names, awaited before the next is read (as a device reads by cursor
    /// after each wake-up).
    func listen(opened: @escaping @Sendable () -> Void, heard: @escaping @Sendable (String) async -> Void) async {
        // To the address itself, naming localhost for TLS, as a device's LiveChanges does.
        let url = "wss://\(origin.dropFirst("https://".count))\(Route.live)"
        let logger = Logger(label: "bench.live", factory: { _ in SwiftLogNoOpLogHandler() })
        while !Task.isCancelled {
            let configuration = liveConfiguration()
            _ = try? await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: service.tls, logger: logger) {
                inbound, _, _ in
                opened()
                for try await message in inbound.messages(maxSize: 1 << 12) {
                    guard case .text(let text) = message else { continue }
                    await heard(text)
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func liveConfiguration() -> WebSocketClientConfiguration {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders[.authorization] = "Bearer \(token ?? "")"
        configuration.sniHostname = "localhost"
        return configuration
    }
}
