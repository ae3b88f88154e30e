import GiftKeeperWire
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The live changes of SPEC §12: a WebSocket (`GET /v1/live`, behind the same bearer
/// authenticator) tells a connected device that one of its account's journals moved, as
/// `<journal id in hex> <head sequence>`; the device then reads with its cursor. A wake-up,
/// not a transport: a lost message costs latency, never data.
///
/// Each service process LISTENs on one PostgreSQL connection (``ChangeListener``) — the
/// devices never touch the database, so an idle device costs it nothing — and fans the
/// notifications out to its sockets by account (``ChangeHub``); an append on any process
/// reaches the devices connected to every other.
final class ChangeHub: Sendable {
    private struct Subscriber {
        let device: Int64
        let continuation: AsyncStream<String>.Continuation
    }

    private let subscribers = Mutex<[String: [Int: Subscriber]]>([:])
    private let nextID = Atomic<Int>(0)

    /// A stream of the changes to `identity`'s account's journals, until
    /// ``unsubscribe(account:id:)`` or the device's revocation (``disconnect(_:)``).
    func subscribe(_ identity: DeviceIdentity) -> (id: Int, changes: AsyncStream<String>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        subscribers.withLock {
            $0[identity.account, default: [:]][id] = Subscriber(device: identity.device, continuation: continuation)
        }
        return (id, stream)
    }

    func unsubscribe(account: String, id: Int) {
        let subscriber = subscribers.withLock { subscribers in
            let removed = subscribers[account]?.removeValue(forKey: id)
            if subscribers[account]?.isEmpty == true { subscribers[account] = nil }
            return removed
        }
        subscriber?.continuation.finish()
    }

    /// Ends the streams of a revoked device, which closes its sockets; returns how many.
    @discardableResult
    func disconnect(_ identity: DeviceIdentity) -> Int {
        let ended = subscribers.withLock { subscribers in
            (subscribers[identity.account] ?? [:]).filter { $0.value.device == identity.device }
        }
        for (id, _) in ended { unsubscribe(account: identity.account, id: id) }
        return ended.count
    }

    /// Tells `account`'s sockets `message`.
    func publish(account: String, _ message: String) {
        for subscriber in subscribers.withLock({ Array(($0[account] ?? [:]).values) }) { subscriber.continuation.yield(message) }
    }

    /// Closes `account`'s sockets (it was removed from a household, whose changes it must hear no more).
    func close(account: String) {
        for subscriber in subscribers.withLock({ $0.removeValue(forKey: account).map { Array($0.values) } ?? [] }) {
            subscriber.continuation.finish()
        }
    }

    /// Tells every socket `message` (after the listener was away: changes may have been missed).
    func publishToAll(_ message: String) {
        for subscriber in subscribers.withLock({ $0.values.flatMap(\.values) }) { subscriber.continuation.yield(message) }
    }
}

/// LISTENs on `gk_changes` (notified by `gk_append` at each commit, with the account, the
/// journal and the new head; by a device's revocation; by a household's removal of an
/// account, `ACCOUNT close`) on one pooled connection, for as long as the process runs,
/// reconnecting after a second when the connection is lost;
/// after each (re)connection it reads the revocations it may have missed and tells every
/// socket to read again, since notifications sent meanwhile are lost.
struct ChangeListener: Service {
    static let channel = "gk_changes"
    let client: PostgresClient
    let hub: ChangeHub
    let sessions: Sessions
    let logger: Logger

    /// The notification of `identity`'s revocation.
    static func revocation(_ identity: DeviceIdentity) -> String { "revoked \(identity.account) \(identity.device)" }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            let missed = try await connection.query(
                                "SELECT r_account::text, r_device FROM gk_recent_revocations(\(Sessions.tokenLifetime))",
                                logger: logger)
                            for try await (account, device) in missed.decode((String, Int64).self) {
                                revoke(DeviceIdentity(account: account, device: device))
                            }
                            hub.publishToAll("*")
                            for try await notification in notifications { take(notification.payload) }
                        }
                    }
                } catch {
                    guard !Task.isCancelled else { return }
                    logger.warning("listening for changes failed; again in a second: \(describe(error))")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func take(_ payload: String) {
        let parts = payload.split(separator: " ")
        if parts.count == 3, parts[0] == "revoked", let device = Int64(parts[2]) {
            revoke(DeviceIdentity(account: String(parts[1]), device: device))
        } else if parts.count == 2, parts[1] == "close" {
            hub.close(account: String(parts[0]))
        } else if parts.count == 3 {
            hub.publish(account: String(parts[0]), parts[1] + " " + parts[2])
        }
    }

    private func revoke(_ identity: DeviceIdentity) {
        sessions.revoke(identity)
        let closed = hub.disconnect(identity)
        logger.notice("device \(identity.device) was removed: its tokens refused, \(closed) live socket(s) closed")
    }
}

extension SyncRoutes {
    /// The WebSocket router: `/v1/live` for a signed-in device.
    func liveRouter(hub: ChangeHub, logRequests: Bool) -> Router<ServiceContext> {
        let router = Router(context: ServiceContext.self)
        if logRequests { router.add(middleware: LogRequestsMiddleware(.notice)) }
        router.add(middleware: BearerAuthenticator(sessions: sessions))
        router.ws(RouterPath(Route.live)) { _, context in
            context.identity == nil ? .dontUpgrade : .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let identity = context.requestContext.identity else { return }
            let (id, changes) = hub.subscribe(identity)
            defer { hub.unsubscribe(account: identity.account, id: id) }
            let writer = Task {
                for await change in changes { try await outbound.write(.text(change)) }
                // The stream ended while the socket is open: the device was revoked.
                if !Task.isCancelled { try await outbound.close(.policyViolation, reason: nil) }
            }
            defer { writer.cancel() }
            // Read until the device closes (or answers the close), which ends the handler; the
            // only reader of the socket, so its pings and its close are answered here.
            do { for try await _ in inbound {} } catch {}
        }
        return router
    }
}
