public import GiftKeeperJournal
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to a journal server, used synchronously: each query's future is waited
/// for on the caller's thread while NIO's event loop does the work. Errors become a
/// ``JournalError`` naming the server, never a query's bound values.
final class PostgresServer {
    let address: PostgresAddress
    private let connection: PostgresConnection
    private let logger = Logger(label: "giftkeeper.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private var isClosed = false

    init(_ address: PostgresAddress) throws(JournalError) {
        self.address = address
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: .disable)
        // A device offline (or a server gone) is told within seconds; its changes wait.
        configuration.options.connectTimeout = .seconds(3)
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw Self.problem(error, address: address)
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        try? connection.close().wait()
    }

    /// Runs `query` and returns its rows.
    @discardableResult
    func run(_ query: PostgresQuery) throws(JournalError) -> PostgresQueryResult {
        do {
            return try connection.query(query, logger: logger).wait()
        } catch {
            throw Self.problem(error, address: address)
        }
    }

    /// Runs `body` in a transaction: committed when it returns `commit: true`, rolled back
    /// otherwise or when it throws. Returns what `body` returned once the commit is done.
    func transaction<T>(_ body: () throws(JournalError) -> (T, commit: Bool)) throws(JournalError) -> T {
        try run("BEGIN")
        let result: (T, commit: Bool)
        do throws(JournalError) {
            result = try body()
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
        try run(result.commit ? "COMMIT" : "ROLLBACK")
        return result.0
    }

    /// Runs `decode` (a row's `decode`), naming a row of an unexpected shape as the server's fault.
    func decoded<T>(_ decode: () throws -> T) throws(JournalError) -> T {
        do {
            return try decode()
        } catch {
            throw JournalError(.unreachable(.unexpectedAnswer), path: address.description)
        }
    }

    /// Listens on `channel`, calling `wake` (on a NIO thread) for each notification.
    func listen(on channel: String, _ wake: @escaping @Sendable () -> Void) throws(JournalError) {
        // The connection hears its own appends' notifications too: those are not news.
        let rows = try run("SELECT pg_backend_pid()")
        let ownProcess = try rows.first.map { row throws(JournalError) in try decoded { try row.decode(Int32.self) } }
        connection.addListener(channel: channel) { _, notification in
            if notification.backendPID != ownProcess { wake() }
        }
        try run(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""))
    }

    /// What a failure is called: the server's own message for what it refused (SQLSTATE
    /// and message, which name no bound value), else that it could not be reached.
    static func problem(_ error: any Error, address: PostgresAddress) -> JournalError {
        if let error = error as? PSQLError, let info = error.serverInfo {
            let state = info[.sqlState] ?? "?"
            let message = info[.message] ?? "refused"
            return JournalError(.unreachable(.refused(message: message, state: state)), path: address.description)
        }
        return JournalError(.unreachable(.couldNotConnect(cause: "\(type(of: error))")), path: address.description)
    }
}

/// The tables of a journal server, made on first use (under an advisory lock, so that two
/// devices' first connections do not race to make them). The newest table is the one
/// looked for: a server made by an earlier version gets the tables it lacks.
enum PostgresSchema {
    /// The append function's signature: what the newest schema is looked for by.
    static let appendFunction = "giftkeeper_append_v1(bytea,bigint,bytea,bigint,bytea,bytea[],bytea,bytea,text)"

    static func ensure(on server: PostgresServer) throws(JournalError) {
        let exists = try server.run("SELECT to_regprocedure(\(appendFunction)) IS NOT NULL")
        if let row = exists.first, (try? row.decode(Bool.self)) == true { return }
        _ = try server.transaction { () throws(JournalError) -> (Void, commit: Bool) in
            try server.run("SELECT pg_advisory_xact_lock(7142026)")
            try server.run(
                """
                CREATE TABLE IF NOT EXISTS giftkeeper_journals (
                    id bytea PRIMARY KEY,
                    header bytea NOT NULL,
                    head_sequence bigint NOT NULL,
                    head_hash bytea NOT NULL)
                """)
            try server.run(
                """
                CREATE TABLE IF NOT EXISTS giftkeeper_frames (
                    journal_id bytea NOT NULL REFERENCES giftkeeper_journals (id),
                    sequence bigint NOT NULL,
                    frame bytea NOT NULL,
                    received_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (journal_id, sequence))
                """)
            try server.run(
                """
                CREATE TABLE IF NOT EXISTS giftkeeper_device_heads (
                    journal_id bytea NOT NULL REFERENCES giftkeeper_journals (id),
                    device_id bytea NOT NULL,
                    record bytea NOT NULL,
                    posted_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (journal_id, device_id))
                """)
            try server.run(PostgresQuery(unsafeSQL: appendFunctionDefinition))
            return ((), true)
        }
    }

    /// An append (``PostgresFrameStore/append(_:posting:)``) as a PL/pgSQL function, whose
    /// statements are planned once per connection rather than once per change (planning the
    /// same work as one ad-hoc statement cost more than the insert and its commit): when
    /// the journal's head is still the batch's base, the head moves (the update holding the
    /// journal row's lock to the commit), the frames go in at the positions after it, the device's head is posted and
    /// the channel notified; the answer says whether it moved, how many frames went in, the
    /// journal's head (the one that won, on a conflict) and every device's posted head.
    static let appendFunctionDefinition = """
        CREATE OR REPLACE FUNCTION giftkeeper_append_v1(
            p_journal bytea, p_base_sequence bigint, p_base_hash bytea, p_new_sequence bigint, p_new_hash bytea,
            p_frames bytea[], p_device bytea, p_record bytea, p_channel text)
        RETURNS TABLE (r_moved boolean, r_inserted bigint, r_head_sequence bigint, r_head_hash bytea,
            r_devices bytea[], r_records bytea[])
        LANGUAGE plpgsql AS $$
        DECLARE
            stored bigint := 0;
        BEGIN
            -- Moves the head only if it is still the batch's base: the update locks the row,
            -- and one that waited for another append's lock looks at the row again after it.
            UPDATE giftkeeper_journals j SET head_sequence = p_new_sequence, head_hash = p_new_hash
                WHERE j.id = p_journal AND j.head_sequence = p_base_sequence AND j.head_hash = p_base_hash;
            IF NOT FOUND THEN
                RETURN QUERY SELECT false, 0::bigint, j.head_sequence, j.head_hash, NULL::bytea[], NULL::bytea[]
                    FROM giftkeeper_journals j WHERE j.id = p_journal;
                RETURN;
            END IF;
            INSERT INTO giftkeeper_frames (journal_id, sequence, frame)
                SELECT p_journal, p_base_sequence + f.n, f.frame
                FROM unnest(p_frames) WITH ORDINALITY AS f(frame, n);
            GET DIAGNOSTICS stored = ROW_COUNT;
            IF p_device IS NOT NULL THEN
                INSERT INTO giftkeeper_device_heads AS h (journal_id, device_id, record) VALUES (p_journal, p_device, p_record)
                    ON CONFLICT (journal_id, device_id) DO UPDATE SET record = EXCLUDED.record, posted_at = now();
            END IF;
            PERFORM pg_notify(p_channel, '');
            RETURN QUERY SELECT true, stored, p_new_sequence, p_new_hash,
                    array_agg(h.device_id ORDER BY h.device_id), array_agg(h.record ORDER BY h.device_id)
                FROM giftkeeper_device_heads h WHERE h.journal_id = p_journal;
        END
        $$
        """
}

/// A PostgreSQL journal by the server's address and the journal's id, which `create()`
/// makes and remembers: the store's own tests open it as another process would.
public final class PostgresStoreLocation {
    public let address: PostgresAddress
    public private(set) var journalID: [UInt8]?
    public var path: String { journalID.map { PostgresFrameStore.name(address, $0) } ?? address.description }

    public init(address: PostgresAddress, journalID: [UInt8]? = nil) {
        self.address = address
        self.journalID = journalID
    }

    public func open(access: JournalAccess, toleratingDamage: Bool, progress: ((Int, Int) -> Void)?) throws(JournalError)
        -> (any FrameStore)?
    {
        guard let journalID else { return nil }
        return try PostgresFrameStore.open(at: address, journalID: journalID, access: access)
    }

    public func create() throws(JournalError) -> any FrameStore {
        guard journalID == nil else { throw JournalError(.alreadyExists, path: path) }
        let store = try PostgresFrameStore.create(at: address)
        journalID = store.journalID
        return store
    }
}

/// A PostgreSQL server as the shared store of a person's devices (SPEC §12).
public final class PostgresRemote: RemoteLocation {
    public let address: PostgresAddress
    public var description: String { address.description }

    public init(address: PostgresAddress) {
        self.address = address
    }

    public func journalIDs() throws(JournalError) -> [[UInt8]] {
        try PostgresFrameStore.journalIDs(at: address)
    }

    public func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)? {
        try PostgresFrameStore.open(at: address, journalID: journalID, access: .readWrite)
    }

    public func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore {
        try PostgresFrameStore.create(at: address, header: header)
    }
}
