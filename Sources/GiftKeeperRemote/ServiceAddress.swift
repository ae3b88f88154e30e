import Foundation
public import GiftKeeperJournal

/// Where a sync service is: `https://HOST[:PORT]`, from `--remote`, `$GIFTKEEPER_REMOTE`,
/// what a journal remembers, or an enrolment code (`https://HOST[:PORT]/?enrol=CODE`,
/// which `giftkeeper device add` shows and `clone` takes). Plain `http://` only to this
/// machine's loopback (tests, a reverse proxy's back end): anywhere else the client
/// refuses a service that offers no TLS. Nothing secret is ever in the address but the
/// one-time code, which is used once.
public struct ServiceAddress: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int
    /// The one-time code that enrols this device in an account, when the address carries one.
    public let enrolmentCode: String?

    /// - Throws: ``RemoteFailure/databaseAddress`` for a `postgres://` address (devices
    ///   speak only to the service since direct database remotes were retired),
    ///   ``RemoteFailure/invalidAddress`` for anything else that is not `https://HOST[:PORT]`,
    ///   ``RemoteFailure/plainHTTPAddress`` for `http://` beyond loopback.
    public init(url: String) throws(JournalError) {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        if scheme == "postgres" || scheme == "postgresql" {
            throw JournalError(.unreachable(.databaseAddress), path: Self.shown(url))
        }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let named = parts.host, !named.isEmpty,
            parts.user == nil, parts.password == nil, parts.path.isEmpty || parts.path == "/"
        else {
            throw JournalError(.unreachable(.invalidAddress), path: Self.shown(url))
        }
        // An IPv6 address comes in brackets (`[::1]`); kept without them.
        let host = named.hasPrefix("[") && named.hasSuffix("]") ? String(named.dropFirst().dropLast()) : named
        guard scheme == "https" || Self.isLoopback(host) else {
            throw JournalError(.unreachable(.plainHTTPAddress), path: Self.shown(url))
        }
        self.scheme = scheme
        self.host = host
        port = parts.port ?? (scheme == "https" ? 443 : 80)
        enrolmentCode = parts.queryItems?.first { $0.name == "enrol" }?.value
    }

    /// The service's origin, without the code: what messages and the device key are named by.
    public var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// The address with `code` to enrol another device.
    public func enrolling(code: String) -> String { "\(description)/?enrol=\(code)" }

    /// An address as messages may show it: what a person typed, without anything after
    /// `@` in the authority's user part (a password written there is never repeated).
    static func shown(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return "the given address" }
        parts.password = nil
        parts.user = nil
        parts.query = nil
        return parts.string ?? "the given address"
    }

    /// Whether `host` names this machine's loopback interface.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
