import GiftKeeperWire
import Hummingbird
import HummingbirdWebSocket
import Logging
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
    private let subscribers = Mutex<[String: [Int: AsyncStream<String>.Continuation]]>([:])
    private let nextID = Atomic<Int>(0)

    /// A stream of the changes to `account`'s journals, until ``unsubscribe(account:id:)``.
    func subscribe(account: String) -> (id: Int, changes: AsyncStream<String>) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(8))
        subscribers.withLock { $0[account, default: [:]][id] = continuation }
        return (id, stream)
    }

    func unsubscribe(account: String, id: Int) {
        let continuation = subscribers.withLock { subscribers in
            let removed = subscribers[account]?.removeValue(forKey: id)
            if subscribers[account]?.isEmpty == true { subscribers[account] = nil }
            return removed
        }
        continuation?.finish()
    }

    /// Tells `account`'s sockets `message`.
    func publish(account: String, _ message: String) {
        for continuation in subscribers.withLock({ Array(($0[account] ?? [:]).values) }) { continuation.yield(message) }
    }

    /// Closes `account`'s sockets (it was removed from a household, whose changes it must hear no more).
    func close(account: String) {
        for continuation in subscribers.withLock({ $0.removeValue(forKey: account).map { Array($0.values) } ?? [] }) {
            continuation.finish()
        }
    }

    /// Tells every socket `message` (after the listener was away: changes may have been missed).
    func publishToAll(_ message: String) {
        for continuation in subscribers.withLock({ $0.values.flatMap(\.values) }) { continuation.yield(message) }
    }
}

/// LISTENs on `gk_changes` (notified by `gk_append` at each commit, with the account, the
/// journal and the new head, or by a household's removal with the account and `close`) on one pooled connection, for as long as the process runs,
/// reconnecting after a second when the connection is lost; after each (re)connection
/// every socket is told to read again, since notifications sent meanwhile are lost.
struct ChangeListener: Service {
    static let channel = "gk_changes"
    let client: PostgresClient
    let hub: ChangeHub
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.channel) { notifications in
                            hub.publishToAll("*")
                            for try await notification in notifications {
                                let parts = notification.payload.split(separator: " ", maxSplits: 1)
                                guard parts.count == 2 else { continue }
                                if parts[1] == "close" {
                                    hub.close(account: String(parts[0]))
                                } else {
                                    hub.publish(account: String(parts[0]), String(parts[1]))
                                }
                            }
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
            let (id, changes) = hub.subscribe(account: identity.account)
            defer { hub.unsubscribe(account: identity.account, id: id) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for await change in changes { try await outbound.write(.text(change)) } }
                // Read on, or pings and the close would go unanswered.
                group.addTask { for try await _ in inbound {} }
                try await group.next()
                group.cancelAll()
            }
        }
        return router
    }
}
