import ArgumentParser
import Foundation
import GiftKeeperCrypto
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// `giftkeeper-server`: the sync service a person's devices share a journal through
/// (SPEC §12), and the only program that talks to its PostgreSQL.
@main
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "giftkeeper-server",
        abstract: "The GiftKeeper sync service: devices share their encrypted journals through it.",
        subcommands: [Migrate.self, Serve.self, Restored.self])
}

/// Runs `body` in one transaction on a connection of its own to `address` (as the URL's
/// role: the owner for `migrate` and `restored`); a failure is said as `command`'s.
func asOwner<T: Sendable>(
    _ address: DatabaseAddress, command: String, _ body: (PostgresConnection, Logger) async throws -> T
) async throws -> T {
    let logger = Logger(label: "giftkeeper-server.\(command)")
    let connection: PostgresConnection
    do {
        connection = try await PostgresConnection.connect(configuration: try address.connectionConfiguration(), id: 1, logger: logger)
    } catch {
        throw ServerError("\(command) could not connect to \(address): \(describe(error))")
    }
    do {
        let result = try await connection.withTransaction(logger: logger) { connection in try await body(connection, logger) }
        try? await connection.close()
        return result
    } catch {
        try? await connection.close()
        throw ServerError("\(command) failed on \(address): \(describe((error as? PostgresTransactionError)?.closureError ?? error))")
    }
}

/// `giftkeeper-server restored --database URL`: after the database was restored from a backup.
struct Restored: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "After restoring the database from a backup: tell every device, at its next sync.",
        discussion: """
            Run it as the database's owner once a backup is back in place (pg_restore, psql < dump, a \
            file-system copy). It gives the server a new epoch, which each device reads at its next sync: \
            the device says the server was restored and sends the frames it holds that the backup lacks \
            (its own changes decided again after what the server holds now, like changes made offline). \
            Without it, a device that saw more than the backup holds reports the server as rolled back \
            (exit 1), as it does for a server that drops frames on its own.
            """)

    @Option(help: "The database, as its owner: postgres://OWNER@HOST[:PORT]/DATABASE.")
    var database: String

    func run() async throws {
        let address = try DatabaseAddress(url: database)
        let epoch = try await asOwner(address, command: "restored") { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: Schema.newEpoch), logger: logger)
                .decode(ByteBuffer.self).first { _ in true }.map { Array($0.readableBytesView) }
        }
        guard let epoch else { throw ServerError("\(address) has no epoch yet: run `giftkeeper-server migrate` on it first") }
        let digits = epoch.prefix(4).map { String(format: "%02x", $0) }.joined()
        print("The server \(address) is in a new epoch (\(digits)); each device is told of the restore at its next sync.")
    }
}

/// `giftkeeper-server migrate --database URL [--serve-role NAME]`.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make or update the service's tables, as their owner.",
        discussion: """
            Connects as the role in --database (the owner of what it makes; the password, if one \
            is needed, in $PGPASSWORD), makes the tables, row-level security and functions, makes \
            the serve role when it does not exist (it logs in, owns nothing and cannot bypass \
            row-level security), grants it what the service needs, and takes CONNECT on the \
            database from PUBLIC. Running it again changes nothing that is already right.
            """)

    @Option(help: "The database, as its owner: postgres://OWNER@HOST[:PORT]/DATABASE.")
    var database: String

    @Option(help: "The role `serve` connects as.")
    var serveRole = "giftkeeper_serve"

    func run() async throws {
        guard Schema.isIdentifier(serveRole) else {
            throw ValidationError("--serve-role must be a lower-case name of letters, digits and _")
        }
        let address = try DatabaseAddress(url: database)
        let serveRole = serveRole
        try await asOwner(address, command: "migrate") { connection, logger in
            try await connection.query("SELECT pg_advisory_xact_lock(7142027)", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: Schema.createRole(serveRole)), logger: logger)
            for statement in Schema.statements + Schema.grants(to: serveRole) + Schema.limits(for: serveRole) {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(PostgresQuery(unsafeSQL: Schema.restrictConnect(to: serveRole)), logger: logger)
        }
        print("The database \(address) is ready; serve as --database postgres://\(serveRole)@\(address.host):\(address.port)/\(address.database)")
    }
}

/// `giftkeeper-server serve --database URL --listen HOST:PORT --tls-cert F --tls-key F`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer devices over HTTPS.",
        discussion: """
            Connects as the serve role that `migrate` made (the password, if one is needed, in \
            $PGPASSWORD). Without --tls-cert and --tls-key it serves plain HTTP, and only on a \
            loopback address (for tests, a reverse proxy on the same machine, or one's own machine).
            """)

    @Option(help: "The database, as the serve role: postgres://ROLE@HOST[:PORT]/DATABASE.")
    var database: String

    @Option(help: "The address and port to listen on.")
    var listen = "127.0.0.1:8443"

    @Option(help: "The TLS certificate chain (PEM).")
    var tlsCert: String?

    @Option(help: "The TLS private key (PEM).")
    var tlsKey: String?

    @Option(help: "The most connections to PostgreSQL.")
    var databaseConnections = 8

    @Option(
        help: """
            The database the one LISTEN connection goes to, when --database is a pool in \
            transaction mode (PgBouncer), which cannot carry a LISTEN: PostgreSQL itself, or a \
            pool in session mode. Default: --database.
            """)
    var listenDatabase: String?

    @Option(help: "Quota: the largest frame, in bytes.")
    var maxFrameBytes = Quotas().maximumFrameBytes

    @Option(help: "Quota: frames an account may append a minute (counted across every service process).")
    var maxFramesPerMinute = Quotas().framesPerMinute

    @Option(help: "Quota: journals an account may hold.")
    var maxJournals = Quotas().journalsPerAccount

    @Flag(help: "Log each request's method and path (never a body or a header) on standard error.")
    var logRequests = false

    func run() async throws {
        let (host, port) = try Self.hostAndPort(listen)
        let address = try DatabaseAddress(url: database)
        var logger = Logger(label: "giftkeeper-server")
        logger.logLevel = .notice
        let client = PostgresClient(
            configuration: address.clientConfiguration(connections: databaseConnections), backgroundLogger: logger)
        let listenClient = try listenDatabase.map {
            PostgresClient(configuration: try DatabaseAddress(url: $0).clientConfiguration(connections: 1), backgroundLogger: logger)
        }
        let quotas = Quotas(
            maximumFrameBytes: maxFrameBytes, framesPerMinute: maxFramesPerMinute, journalsPerAccount: maxJournals)
        let sessions = Sessions(key: try await Self.tokenKey(address))
        let routes = SyncRoutes(
            database: ServiceDatabase(client: client, logger: logger), sessions: sessions, quotas: quotas)
        let hub = ChangeHub()
        let http = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: routes.liveRouter(hub: hub, logRequests: logRequests))
        let server: HTTPServerBuilder
        switch (tlsCert, tlsKey) {
        case (let cert?, let key?):
            server = try .tls(http, tlsConfiguration: try Self.tls(cert: cert, key: key))
        case (nil, nil):
            guard isLoopback(host) else {
                throw ValidationError("plain HTTP is served only on a loopback address; give --tls-cert and --tls-key")
            }
            server = http
        default:
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        let scheme = tlsCert == nil ? "http" : "https"
        let app = Application(
            router: routes.router(logRequests: logRequests), server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "giftkeeper-server"),
            services: [client] + (listenClient.map { [$0] } ?? [])
                + [ChangeListener(client: listenClient ?? client, hub: hub, sessions: sessions, logger: logger)],
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                // One line on standard output, for a script waiting for the service.
                FileHandle.standardOutput.write(Data("giftkeeper-server: serving \(scheme)://\(host):\(bound)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }

    /// The key of the tokens' MACs, shared by every service process of the database.
    static func tokenKey(_ address: DatabaseAddress) async throws -> SecureBytes {
        let key = try await asOwner(address, command: "serve") { connection, logger in
            try await connection.query("SELECT key FROM gk_token_key", logger: logger).decode(ByteBuffer.self).first { _ in true }
        }
        guard var key, key.readableBytes == 32 else {
            throw ServerError("\(address) has no token key: run `giftkeeper-server migrate` on it first")
        }
        let secure = try SecureBytes(capacity: 32)
        secure.withUnsafeMutableBytes { target in
            key.withUnsafeMutableReadableBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(source))
                source.initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
        return secure
    }

    static func hostAndPort(_ listen: String) throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw ValidationError("--listen must be HOST:PORT") }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    static func tls(cert: String, key: String) throws -> TLSConfiguration {
        do {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["http/1.1"]
            return configuration
        } catch {
            throw ServerError("the TLS certificate or key could not be read (\(cert), \(key)): \(describe(error))")
        }
    }
}

/// An error in words: the database's own message when it answered, else the error.
func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
        if let message = error.serverInfo?[.message] { return message + " (SQLSTATE \(error.sqlState ?? "?"))" }
        return "PostgreSQL could not be reached (\(error.code))"
    }
    return String(describing: error)
}
