import Foundation
import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import Synchronization

/// Who a request acts for: an account, and which of its devices signed in.
struct DeviceIdentity: Sendable, Hashable {
    /// The account's id (a UUID's text), what row-level security is set to.
    let account: String
    let device: Int64
}

/// The request context of every route: the signed-in device, when one is, and the
/// largest body taken (an append's frames).
struct ServiceContext: AuthRequestContext, RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: DeviceIdentity?
    let webSocket: WebSocketHandlerReference<ServiceContext>

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        webSocket = .init()
    }

    var maxUploadSize: Int { Wire.maximumRequestBytes }
}

/// The challenges and bearer tokens of SPEC §12, good on every service process of one
/// database: both carry their own expiry under a MAC keyed with the database's token key
/// (made by `migrate`), so any process checks what another gave out, and a load balancer
/// may send a device's requests anywhere. A challenge is taken back once, in the database
/// (`gk_spend_nonce`, at sign-in); a token lasts ``tokenLifetime``. A revoked device's
/// tokens are refused by every process: the revoking one tells the others through
/// PostgreSQL (``ChangeListener``), and a process that was not listening reads the
/// revocations of the last ``tokenLifetime`` when it listens again.
final class Sessions: Sendable {
    static let nonceLifetime: Int64 = 60
    static let tokenLifetime: Int64 = 15 * 60
    private static let tokenVersion: UInt8 = 1

    /// The token key: 32 bytes in guarded memory, read once at start.
    private let key: SecureBytes
    /// Devices revoked within the last ``tokenLifetime``, and when their tokens run out.
    private let revoked = Mutex<[DeviceIdentity: Int64]>([:])
    private let now: @Sendable () -> Int64

    init(key: SecureBytes, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.key = key
        self.now = now
    }

    private func mac(_ domain: String, _ bytes: [UInt8]) -> [UInt8] {
        (try? Blake2b.mac(Array(domain.utf8) + [0] + bytes, key: key)) ?? []
    }

    /// A new challenge for a device to sign (32 bytes, as the wire has it): 12 random
    /// bytes, its expiry, and 16 bytes of MAC over both.
    func newNonce() throws -> [UInt8] {
        let body = try randomBytes(count: 12) + Self.bigEndian(UInt32(truncatingIfNeeded: now() + Self.nonceLifetime))
        return body + mac("giftkeeper challenge", body).prefix(16)
    }

    /// When `nonce` expires, when this service gave it out and it has not expired; nil
    /// otherwise. Taking it back once is the database's part (`gk_spend_nonce`).
    func expiry(ofNonce nonce: [UInt8]) -> Int64? {
        guard nonce.count == 32 else { return nil }
        let body = Array(nonce.prefix(16))
        guard constantTimeEqual(Array(mac("giftkeeper challenge", body).prefix(16)), Array(nonce.suffix(16))) else { return nil }
        let expires = Int64(Self.number(body.suffix(4)))
        return expires >= now() ? expires : nil
    }

    /// A bearer token for `identity`: the account, the device and the expiry, under a MAC.
    func open(_ identity: DeviceIdentity) throws -> SessionToken {
        guard let account = UUID(uuidString: identity.account) else {
            throw HTTPError(.internalServerError, message: "an account id is not a UUID")
        }
        let body =
            [Self.tokenVersion] + withUnsafeBytes(of: account.uuid) { Array($0) }
            + Self.bigEndian(UInt64(bitPattern: identity.device)) + Self.bigEndian(UInt64(now() + Self.tokenLifetime))
        return SessionToken(
            token: Wire.hex(body + mac("giftkeeper token", body)), expiresInSeconds: Int(Self.tokenLifetime),
            device: identity.device)
    }

    /// The device a token was given to, while it is valid and the device not revoked.
    func identity(token: String) -> DeviceIdentity? {
        guard token.utf8.count == 130, let bytes = Wire.unhex(token), bytes.first == Self.tokenVersion else { return nil }
        let body = Array(bytes.prefix(33))
        guard constantTimeEqual(mac("giftkeeper token", body), Array(bytes.suffix(32))) else { return nil }
        guard Int64(bitPattern: Self.number(body[25..<33])) >= now() else { return nil }
        let uuid = body[1..<17].withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        let identity = DeviceIdentity(
            account: UUID(uuid: uuid).uuidString.lowercased(), device: Int64(bitPattern: Self.number(body[17..<25])))
        return revoked.withLock { $0[identity] == nil } ? identity : nil
    }

    /// Refuses `identity`'s tokens from now on (until the last could have expired).
    func revoke(_ identity: DeviceIdentity) {
        let current = now()
        revoked.withLock { revoked in
            revoked = revoked.filter { $0.value >= current }
            revoked[identity] = current + Self.tokenLifetime
        }
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    private static func number(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Reads `Authorization: Bearer TOKEN` and sets the context's identity when the token is
/// one this service gave out, still valid, for a device not revoked.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceContext
    typealias Identity = DeviceIdentity
    let sessions: Sessions

    func authenticate(request: Request, context: ServiceContext) async throws -> DeviceIdentity? {
        guard let bearer = request.headers.bearer else { return nil }
        return sessions.identity(token: bearer.token)
    }
}
