import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// Where the service's PostgreSQL is: `postgres://ROLE@HOST[:PORT]/DATABASE`. A password
/// is never in the URL (it would be in the process list and shell history): it comes
/// from `$PGPASSWORD`, or from nowhere (trust or peer authentication on a host's own
/// socket-like loopback).
struct DatabaseAddress: CustomStringConvertible {
    let host: String
    let port: Int
    let role: String
    let database: String

    init(url: String) throws {
        guard let parts = URLComponents(string: url), parts.scheme == "postgres" || parts.scheme == "postgresql",
            let host = parts.host, !host.isEmpty, let role = parts.user, !role.isEmpty
        else { throw ServerError("--database must be postgres://ROLE@HOST[:PORT]/DATABASE") }
        guard parts.password == nil else {
            throw ServerError("--database holds a password; give it in $PGPASSWORD instead")
        }
        self.host = host
        port = parts.port ?? 5432
        self.role = role
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        database = path.isEmpty ? role : path
    }

    var description: String { "postgres://\(role)@\(host):\(port)/\(database)" }

    /// One connection's configuration (`migrate`).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: role, password: ProcessInfo.processInfo.environment["PGPASSWORD"],
            database: database,
            tls: isLoopback(host) ? .disable : .require(try NIOSSLContext(configuration: .makeClientConfiguration())))
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The pool's configuration: at most `connections` connections, TLS to PostgreSQL when
    /// it is not on this machine.
    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: role, password: ProcessInfo.processInfo.environment["PGPASSWORD"],
            database: database, tls: isLoopback(host) ? .disable : .require(.makeClientConfiguration()))
        configuration.options.maximumConnections = connections
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

/// A failure `giftkeeper-server` reports and exits on, in words.
struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether `host` names this machine's loopback interface.
func isLoopback(_ host: String) -> Bool {
    host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
}

/// The limits every transaction runs under (SPEC §12): a statement that runs longer, or a
/// transaction left idle (a node stalled mid-request), is ended by PostgreSQL, so a stuck
/// request never holds a journal's row lock for long. Set per transaction, with the
/// account, so they hold under PgBouncer's transaction pooling as well, and as the serve
/// role's own settings (``Schema/limits(for:)``) for the statements that run alone.
enum TransactionLimits {
    static let statementTimeout = "5s"
    static let idleInTransactionTimeout = "10s"
}

/// The service's side of PostgreSQL: a pool of connections as the serve role, each use a
/// transaction acting for one account (or for none, for the three owner functions).
struct ServiceDatabase: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Runs `body` in a transaction acting for `account` (nil: for no account, which
    /// row-level security shows no row), under ``TransactionLimits``.
    func transaction<T: Sendable>(
        account: String?, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    SELECT set_config('giftkeeper.account', \(account ?? ""), true),
                        set_config('statement_timeout', \(TransactionLimits.statementTimeout), true),
                        set_config('idle_in_transaction_session_timeout', \(TransactionLimits.idleInTransactionTimeout), true)
                    """, logger: logger)
                return try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
        }
    }

    /// Runs `query` alone, in a transaction of its own (PostgreSQL's implicit one): one
    /// round trip. For the cursor's functions, which set the account themselves
    /// (``Schema/cursorFunctions``), under the serve role's own limits.
    func statement<T: Sendable>(_ query: PostgresQuery, _ body: (PostgresRowSequence) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await body(try await connection.query(query, logger: logger))
        }
    }
}

extension PSQLError {
    /// The server's SQLSTATE, when the server answered with an error.
    var sqlState: String? { serverInfo?[.sqlState] }
}
