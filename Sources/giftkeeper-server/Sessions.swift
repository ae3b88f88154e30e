import GiftKeeperCrypto
import GiftKeeperWire
import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import Synchronization

/// Who a request acts for: an account, and which of its devices signed in.
struct DeviceIdentity: Sendable, Equatable {
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

/// The one-time nonces given out and the bearer tokens of signed-in devices, in this
/// node's memory (SPEC §12). A token lasts ``tokenLifetime`` or until the node restarts;
/// a device signs in again when told 401. Both maps are bounded: expired entries go at
/// each insertion, and past ``maximumEntries`` the oldest go.
final class Sessions: Sendable {
    static let nonceLifetime = Duration.seconds(60)
    static let tokenLifetime = Duration.seconds(15 * 60)
    static let maximumEntries = 100_000

    private struct State {
        var nonces: [[UInt8]: ContinuousClock.Instant] = [:]
        var tokens: [String: (identity: DeviceIdentity, expires: ContinuousClock.Instant)] = [:]
    }

    private let state = Mutex(State())

    /// A new nonce for a device to sign, valid once, for ``nonceLifetime``.
    func newNonce() throws -> [UInt8] {
        let nonce = try randomBytes(count: 32)
        let now = ContinuousClock.now
        state.withLock { state in
            if state.nonces.count >= Self.maximumEntries {
                state.nonces = state.nonces.filter { $0.value > now }
            }
            if state.nonces.count >= Self.maximumEntries, let oldest = state.nonces.min(by: { $0.value < $1.value }) {
                state.nonces[oldest.key] = nil
            }
            state.nonces[nonce] = now + Self.nonceLifetime
        }
        return nonce
    }

    /// Takes `nonce` back: true once, while it is valid.
    func redeem(nonce: [UInt8]) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let expires = state.nonces.removeValue(forKey: nonce) else { return false }
            return expires > now
        }
    }

    /// A bearer token for `identity`.
    func open(_ identity: DeviceIdentity) throws -> SessionToken {
        let token = Wire.hex(try randomBytes(count: 32))
        let now = ContinuousClock.now
        state.withLock { state in
            if state.tokens.count >= Self.maximumEntries {
                state.tokens = state.tokens.filter { $0.value.expires > now }
            }
            state.tokens[token] = (identity, now + Self.tokenLifetime)
        }
        return SessionToken(token: token, expiresInSeconds: Int(Self.tokenLifetime.components.seconds), device: identity.device)
    }

    /// The device a token was given to, while it is valid.
    func identity(token: String) -> DeviceIdentity? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.tokens[token] else { return nil }
            guard entry.expires > now else {
                state.tokens[token] = nil
                return nil
            }
            return entry.identity
        }
    }

    /// Ends every session of a revoked device on this node.
    func close(device: Int64, account: String) {
        state.withLock { state in
            state.tokens = state.tokens.filter { $0.value.identity != DeviceIdentity(account: account, device: device) }
        }
    }
}

/// Reads `Authorization: Bearer TOKEN` and sets the context's identity when the token is
/// one this node gave out and still valid.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceContext
    typealias Identity = DeviceIdentity
    let sessions: Sessions

    func authenticate(request: Request, context: ServiceContext) async throws -> DeviceIdentity? {
        guard let bearer = request.headers.bearer else { return nil }
        return sessions.identity(token: bearer.token)
    }
}
