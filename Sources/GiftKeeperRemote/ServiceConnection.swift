import AsyncHTTPClient
import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperWire
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One device's conversation with a sync service (SPEC §12): HTTPS requests, each under a
/// deadline (``deadline``, 10 s unless `$GIFTKEEPER_REMOTE_TIMEOUT` says otherwise), made
/// from the caller's thread while AsyncHTTPClient's event loops do the work — so a wait is
/// never longer than its deadline, whatever the link does. Signs in with the device's key
/// when it has no token, or when the service says its token is no longer valid (expired,
/// or the service restarted), and once more only.
///
/// The certificate is checked against the system's roots, or against
/// `$GIFTKEEPER_CA_FILE` when set (a household's own certificate authority; the tests'
/// throwaway one).
final class ServiceConnection {
    let address: ServiceAddress
    private var keyPath: String?
    private let stateDirectory: String?
    private let deviceName: String
    /// The bearer token while signed in (shared with the live-changes task).
    let token = TokenBox()
    let tls: TLSConfiguration?
    let deadline: Duration

    init(address: ServiceAddress, stateDirectory: String?, deviceName: String) {
        self.address = address
        self.stateDirectory = stateDirectory
        keyPath = stateDirectory.map { DeviceKey.path(stateDirectory: $0, address: address) }
        self.deviceName = deviceName
        let environment = ProcessInfo.processInfo.environment
        if let file = environment["GIFTKEEPER_CA_FILE"], !file.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(file)
            tls.minimumTLSVersion = .tlsv12
            self.tls = tls
        } else {
            tls = nil
        }
        let seconds = environment["GIFTKEEPER_REMOTE_TIMEOUT"].flatMap { Int($0) }.map { min(max($0, 1), 300) }
        deadline = .seconds(seconds ?? 10)
    }

    /// What is said of this service in messages.
    var name: String { address.description }

    /// Starts `live` on this service's WebSocket of changes, counting those of `journalID`.
    /// Not for a service reached by an IP address other than loopback's (the TLS client
    /// would need a host name to check): those devices poll.
    func startLive(_ live: LiveChanges, journalID: [UInt8]) -> Bool {
        let isAddress = address.host.contains(":") || address.host.allSatisfy { $0.isNumber || $0 == "." }
        guard !isAddress || ServiceAddress.isLoopback(address.host) else { return false }
        let scheme = address.scheme == "https" ? "wss" : "ws"
        live.start(
            url: "\(scheme)://\(address.description.dropFirst(address.scheme.count + 3))\(Route.live)",
            journal: Wire.hex(journalID), token: token, tls: tls, sniHostname: isAddress ? "localhost" : nil,
            pingPeriod: deadline)
        return true
    }

    // MARK: Requests

    /// `method path` with `body` (JSON), signed in, asking for an answer of media type
    /// `accept` when given; the answer's status and body. A 401 makes the device sign in
    /// again and try once more.
    func send(_ method: HTTPMethod, _ path: String, body: (some Encodable)?, deadline: Duration? = nil, accept: String? = nil)
        throws(JournalError) -> (status: Int, body: Data)
    {
        let encoded: Data?
        do {
            encoded = try body.map { try JSONEncoder().encode($0) }
        } catch {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        if token.value == nil { try signIn() }
        var answer = try exchange(method, path, body: encoded, token: token.value, deadline: deadline ?? self.deadline, accept: accept)
        if answer.status == 401 {
            token.value = nil
            try signIn()
            answer = try exchange(method, path, body: encoded, token: token.value, deadline: deadline ?? self.deadline, accept: accept)
        }
        return answer
    }

    /// ``send(_:_:body:deadline:)`` for an answer of type `Answer`; nil for 404 when
    /// `missing` is allowed. Any other status than 2xx is thrown, worded by the service.
    func call<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)? = Empty?.none, answer: Answer.Type,
        allowingMissing: Bool = false, deadline: Duration? = nil
    ) throws(JournalError) -> Answer? {
        let (status, data) = try send(method, path, body: body, deadline: deadline)
        if status == 404, allowingMissing { return nil }
        try check(status, data)
        if Answer.self == Empty.self { return Empty() as? Answer }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
    }

    /// Throws for a status other than 2xx, in the service's own words.
    func check(_ status: Int, _ data: Data) throws(JournalError) {
        guard !(200..<300).contains(status) else { return }
        let message = Self.message(data) ?? "no reason given"
        switch status {
        case 401: throw JournalError(.unreachable(.notAuthenticated(message: message)), path: name)
        case 403: throw JournalError(.unreachable(.permissionDenied(message: message)), path: name)
        case 404: throw JournalError(.unreachable(.journalGone), path: name)
        case 413, 429: throw JournalError(.unreachable(.overQuota(message: message)), path: name)
        default: throw JournalError(.unreachable(.rejected(status: status, message: message)), path: name)
        }
    }

    /// The message of a Hummingbird error answer (`{"error":{"message":…}}`), kept short
    /// and printable.
    static func message(_ data: Data) -> String? {
        struct Answer: Decodable {
            struct Detail: Decodable { var message: String? }
            var error: Detail
        }
        guard let message = (try? JSONDecoder().decode(Answer.self, from: data))?.error.message else { return nil }
        return String(message.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(200).map(Character.init))
    }

    /// One request and its answer, within `deadline`.
    func exchange(
        _ method: HTTPMethod, _ path: String, body: Data?, token: String?, deadline: Duration, accept: String? = nil
    ) throws(JournalError) -> (status: Int, body: Data) {
        if let (until, failure) = unanswered, ContinuousClock.now < until {
            throw JournalError(.unreachable(failure), path: name)
        }
        do {
            return try answer(start(method, path, body: body, token: token, deadline: deadline, accept: accept))
        } catch {
            throw unreachable(error, deadline: deadline)
        }
    }

    /// `method path` sent, its answer not waited for.
    private func start(
        _ method: HTTPMethod, _ path: String, body: Data?, token: String?, deadline: Duration, accept: String? = nil
    ) throws -> EventLoopFuture<HTTPClient.Response> {
        var headers = HTTPHeaders()
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        if let accept { headers.add(name: "Accept", value: accept) }
        var request = try HTTPClient.Request(
            url: address.description + path, method: method, headers: headers, body: body.map { .data($0) })
        request.tlsConfiguration = tls
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        return sharedClient.execute(request: request, deadline: .now() + .nanoseconds(nanoseconds))
    }

    /// The answer of a request ``start(_:_:body:token:deadline:accept:)`` sent, waited for
    /// (within the deadline it was sent with).
    private func answer(_ sent: EventLoopFuture<HTTPClient.Response>) throws -> (status: Int, body: Data) {
        let response = try sent.wait()
        unanswered = nil
        return (Int(response.status.code), response.body.map { Data($0.readableBytesView) } ?? Data())
    }

    /// A request that got no answer, remembered for ``quietAfterFailure`` and worded.
    private func unreachable(_ error: any Error, deadline: Duration) -> JournalError {
        let failure = failure(error, deadline: deadline)
        unanswered = (ContinuousClock.now + Self.quietAfterFailure, failure)
        return JournalError(.unreachable(failure), path: name)
    }

    /// After a request got no answer, how long the next ones fail at once with the same
    /// failure instead of waiting out another deadline: a one-shot command that found the
    /// service unreachable at sign-in says so again after its change without a second wait.
    /// Shorter than the shell's offline retry (15 s), so the shell's next try goes out.
    static let quietAfterFailure = Duration.seconds(5)
    /// The failure of the last request that got no answer, and until when it stands.
    private var unanswered: (until: ContinuousClock.Instant, failure: RemoteFailure)?

    /// What went wrong with a request, as data: never a type's name, nothing of the request.
    private func failure(_ error: any Error, deadline: Duration) -> RemoteFailure {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout:
                return .timedOut(seconds: Int(deadline.components.seconds))
            case .remoteConnectionClosed, .alreadyShutdown:
                return .noConnection
            default:
                return .couldNotConnect(cause: "the exchange failed")
            }
        }
        if error is NIOSSLError || error is BoringSSLError {
            return .tls(cause: "the service's certificate was not accepted, or it offered no TLS")
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return .tls(cause: "the certificate is not for this host")
        }
        if let error = error as? NIOConnectionError {
            let refused = error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            return .couldNotConnect(cause: refused ? "connection refused" : "no route to it")
        }
        if let error = error as? IOError {
            return .couldNotConnect(cause: String(cString: strerror(error.errnoCode)).lowercased())
        }
        if error is ChannelError { return .noConnection }
        return .couldNotConnect(cause: "the connection failed")
    }

    // MARK: Signing in

    /// What opens this device's key (``DeviceKeyAccess``): set by the session that signed
    /// in, or by a command that read the password; nil after signing out.
    private var access: DeviceKeyAccess?

    /// Uses `access` to open this device's key from now on, and brings the key file up to
    /// date with it at once, without the service: a clear key of the old format sealed, a
    /// seal made for the journal's newest key epoch (after `passwd`) and the older dropped.
    func useDeviceKey(_ access: DeviceKeyAccess?) throws(JournalError) {
        self.access = access
        guard access != nil, let keyPath else { return }
        let stored = try DeviceKey.read(keyPath)
        switch stored {
        case .none: return
        case .clear(let key): try keep(key, seals: [])
        case .sealed(let seals): try keep(try DeviceKey.open(seals, address: address, access: access, path: keyPath), seals: seals)
        }
    }

    /// Whether this device holds a key for the service (one it cannot read counts as held).
    var hasDeviceKey: Bool {
        guard let keyPath else { return false }
        switch try? DeviceKey.read(keyPath) {
        case .some(.none): return false
        default: return true
        }
    }

    /// Uses this device's second key for the service named `name` (hex digits) instead of its
    /// first: a household record's own, enrolled in another account than the first key's.
    func useKey(named name: String) {
        guard !name.isEmpty, name.allSatisfy(\.isHexDigit) else { return }
        keyPath = stateDirectory.map { DeviceKey.path(stateDirectory: $0, address: address, named: name) }
        token.value = nil
    }

    /// Removes this device's key for the service from the device (a clone that kept nothing).
    func forgetDeviceKey() {
        if let keyPath { unlink(keyPath) }
        token.value = nil
    }

    /// Writes the seals `key` should have now, when they differ from `seals`.
    private func keep(_ key: SigningKeyPair, seals: [DeviceKey.Seal]) throws(JournalError) {
        guard let keyPath else { return }
        defer { key.seed.wipe() }
        let updated: [DeviceKey.Seal]?
        do {
            updated = try DeviceKey.resealed(seals, key: key, address: address, access: access)
        } catch {
            throw JournalError(.io(operation: "seal the device key for", errno: EIO), path: name)
        }
        if let updated { try DeviceKey.write(updated, to: keyPath) }
    }

    /// Gets a token: signs the service's challenge with this device's key, opened from its
    /// sealed file in guarded memory and wiped when done; a device with no key yet for this
    /// service makes one and signs up (a new account) or, with an enrolment code in the
    /// address, joins the code's account. The key is kept (sealed) only once the service
    /// accepted it.
    private func signIn() throws(JournalError) {
        guard let keyPath else {
            throw JournalError(.unreachable(.notAuthenticated(message: "no state directory to keep this device's key in")), path: name)
        }
        let stored = try DeviceKey.read(keyPath)
        let key: SigningKeyPair
        var seals: [DeviceKey.Seal] = []
        switch stored {
        case .none:
            // A key that could not be kept sealed is not made.
            guard access?.newest != nil || access?.password != nil else {
                throw JournalError(.unreachable(.deviceKey(.locked)), path: name)
            }
            do {
                key = try SigningKeyPair.generate()
            } catch {
                throw JournalError(.io(operation: "make a device key for", errno: EIO), path: name)
            }
        case .clear(let clear):
            key = clear
        case .sealed(let sealed):
            seals = sealed
            key = try DeviceKey.open(sealed, address: address, access: access, path: keyPath)
        }
        let isNew = if case .none = stored { true } else { false }
        let proof: DeviceProof
        do throws(JournalError) {
            proof = try prove(key)
        } catch {
            key.seed.wipe()
            throw error
        }
        let answer: (status: Int, body: Data)
        if !isNew {
            answer = try exchange(.POST, Route.session, body: try encode(proof), token: nil, deadline: deadline)
        } else if let code = address.enrolmentCode {
            let signUp = DeviceSignUp(proof: proof, deviceName: deviceName, code: code)
            answer = try exchange(.POST, Route.redeem, body: try encode(signUp), token: nil, deadline: deadline)
        } else {
            let signUp = DeviceSignUp(proof: proof, deviceName: deviceName)
            answer = try exchange(.POST, Route.accounts, body: try encode(signUp), token: nil, deadline: deadline)
        }
        if answer.status == 401 || answer.status == 403 || answer.status == 409 {
            key.seed.wipe()
            let message = Self.message(answer.body) ?? "refused"
            throw JournalError(.unreachable(.notAuthenticated(message: message)), path: name)
        }
        do throws(JournalError) {
            try check(answer.status, answer.body)
        } catch {
            key.seed.wipe()
            throw error
        }
        guard let session = try? JSONDecoder().decode(SessionToken.self, from: answer.body) else {
            key.seed.wipe()
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        try keep(key, seals: seals)
        token.value = session.token
    }

    /// A challenge asked for ahead (``askChallengeAhead()``), and when.
    private var challengeAhead: (sent: EventLoopFuture<HTTPClient.Response>, at: ContinuousClock.Instant)?

    /// Asks the service for a challenge now and does not wait: the connection and its TLS
    /// handshake are made while the caller derives the key that opens this device's key (the
    /// sign-in's first answer is there when it is needed). Nothing secret is sent; a
    /// challenge is the service's MAC of a time, kept nowhere.
    func askChallengeAhead() {
        guard challengeAhead == nil, token.value == nil, unanswered == nil,
            let sent = try? start(.POST, Route.challenge, body: nil, token: nil, deadline: deadline)
        else { return }
        challengeAhead = (sent, .now)
    }

    /// The service's challenge: the one asked ahead when it is fresh (half its minute's
    /// life left at least), a new one otherwise.
    private func challenge() throws(JournalError) -> (status: Int, body: Data) {
        defer { challengeAhead = nil }
        guard let ahead = challengeAhead, ContinuousClock.now - ahead.at < .seconds(30) else {
            return try exchange(.POST, Route.challenge, body: nil, token: nil, deadline: deadline)
        }
        do {
            return try answer(ahead.sent)
        } catch {
            throw unreachable(error, deadline: deadline)
        }
    }

    /// A proof of `key`: the service's fresh challenge, signed.
    private func prove(_ key: SigningKeyPair) throws(JournalError) -> DeviceProof {
        let answer = try challenge()
        try check(answer.status, answer.body)
        guard let challenge = try? JSONDecoder().decode(Challenge.self, from: answer.body), challenge.nonce.count == 32 else {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
        do {
            let signature = try key.sign(Wire.proofMessage(nonce: Array(challenge.nonce)))
            return DeviceProof(publicKey: Data(key.publicKey), nonce: challenge.nonce, signature: Data(signature))
        } catch {
            throw JournalError(.io(operation: "sign the challenge of", errno: EIO), path: name)
        }
    }

    private func encode(_ value: some Encodable) throws(JournalError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
    }
}

/// The process's one HTTP client, never shut down (it lives as long as the process). A
/// connection that cannot be made fails the request at once — a refused connection is
/// "offline" now, not after the deadline of retries — and redirects are not followed.
private let sharedClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.redirectConfiguration = .disallow
    configuration.timeout.connect = .seconds(10)
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// No body, or an answer whose body does not matter.
struct Empty: Codable {}
