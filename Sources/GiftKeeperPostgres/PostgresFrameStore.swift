import GiftKeeperCrypto
public import GiftKeeperJournal
import Glibc
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A journal held by a PostgreSQL server, shared by a person's devices (SPEC §12): the
/// third ``FrameStore``, held to the same conformance suite as the file and memory stores.
///
/// Two tables (``PostgresSchema``): `giftkeeper_journals` (id, clear header, head sequence
/// and hash) and `giftkeeper_frames` (journal id, sequence, frame bytes, received time;
/// primary key journal id + sequence). No global sequence: positions are per journal,
/// gapless, given under the journal row's lock. An append is one statement, so one
/// transaction and one round trip: move the journal's head if it is still the batch's base
/// (an `UPDATE … WHERE` the head is the base, which locks the row; otherwise nothing is
/// written and the head that won is returned), insert the frames, post the device's head,
/// `pg_notify` — a server-side function, so that the server plans it once per connection;
/// it is acknowledged only once the server answered, after its commit.
///
/// The server is not trusted: it holds only ciphertext, and every frame it sends is
/// verified against this handle's chain before it is taken in (``VerifiedFrames``, kept
/// in memory), so a frame it drops, reorders, replays or alters is refused with its
/// position. Waiting for frames listens on the journal's channel (`LISTEN`: a wake-up,
/// not a transport) and reads to catch up, and reads once every ``pollInterval`` (a second)
/// as well, so a lost notification only delays a change.
///
/// The protocol is synchronous; postgres-nio's futures are waited for on the caller's
/// thread while NIO's own threads do the work, so no Swift concurrency thread is blocked.
public final class PostgresFrameStore: SharedFrameStore {
    public let name: String
    public var header: JournalHeader { frames.header }
    public var head: JournalHead { frames.head }
    public var frameIndex: FrameIndex { frames.index }

    let server: PostgresServer
    let journalID: [UInt8]
    let access: JournalAccess
    private var frames: VerifiedFrames
    private var isUnusable = false
    /// Counts the notifications heard on the journal's channel.
    private let wakeUps: WakeUps

    private init(server: PostgresServer, journalID: [UInt8], frames: VerifiedFrames, access: JournalAccess, wakeUps: WakeUps) {
        self.server = server
        self.journalID = journalID
        self.frames = frames
        self.access = access
        self.wakeUps = wakeUps
        name = frames.path
    }

    deinit {
        server.close()
    }

    /// The channel a journal's appends notify: its id in hex, so every journal has its own.
    static func channel(_ journalID: [UInt8]) -> String {
        "giftkeeper_" + hexString(journalID)
    }

    // MARK: Creating and opening

    /// Creates a new journal on the server (a random id), open for writing.
    public static func create(at address: PostgresAddress) throws(JournalError) -> PostgresFrameStore {
        let journalID: [UInt8]
        do {
            journalID = try randomBytes(count: 16)
        } catch {
            throw JournalError(.io(operation: "get random bytes for", errno: EIO), path: address.description)
        }
        return try create(at: address, header: try VerifiedFrames.newHeader(journalID: journalID, path: address.description).header)
    }

    /// Creates the server's copy of the journal whose header is `header` (a device's first
    /// push), empty and open for writing.
    /// - Throws: ``JournalError/Code/alreadyExists`` when the server holds that journal.
    public static func create(at address: PostgresAddress, header: JournalHeader) throws(JournalError) -> PostgresFrameStore {
        let server = try PostgresServer(address)
        do throws(JournalError) {
            try PostgresSchema.ensure(on: server)
            let journalID = header.journalID
            let name = Self.name(address, journalID)
            let inserted = try server.run(
                """
                INSERT INTO giftkeeper_journals (id, header, head_sequence, head_hash)
                VALUES (\(ByteBuffer(bytes: journalID)), \(ByteBuffer(bytes: header.encoded)), 0, \(ByteBuffer(bytes: header.genesisHash)))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """)
            guard inserted.first != nil else { throw JournalError(.alreadyExists, path: name) }
            return try PostgresFrameStore(
                server: server, journalID: journalID, frames: VerifiedFrames(header: header, path: name),
                access: .readWrite)
        } catch {
            server.close()
            throw error
        }
    }

    /// The ids of the journals the server holds, oldest first.
    static func journalIDs(at address: PostgresAddress) throws(JournalError) -> [[UInt8]] {
        let server = try PostgresServer(address)
        defer { server.close() }
        try PostgresSchema.ensure(on: server)
        var ids: [[UInt8]] = []
        for row in try server.run("SELECT id FROM giftkeeper_journals ORDER BY id") {
            ids.append(Array(buffer: try server.decoded { try row.decode(ByteBuffer.self) }))
        }
        return ids
    }

    /// Opens the journal `journalID` on the server and takes in (verifying) every frame it
    /// has; nil when the server has no such journal.
    public static func open(at address: PostgresAddress, journalID: [UInt8], access: JournalAccess) throws(JournalError)
        -> PostgresFrameStore?
    {
        let server = try PostgresServer(address)
        do throws(JournalError) {
            try PostgresSchema.ensure(on: server)
            let rows = try server.run("SELECT header FROM giftkeeper_journals WHERE id = \(ByteBuffer(bytes: journalID))")
            guard let row = rows.first else {
                server.close()
                return nil
            }
            let name = Self.name(address, journalID)
            let bytes = try server.decoded { try row.decode(ByteBuffer.self) }
            let header = try VerifiedFrames.header(Array(buffer: bytes), path: name)
            guard header.journalID == journalID else {
                throw JournalError(
                    .corrupt(JournalProblem(sequence: 0, offset: nil, damage: .foreignHeader)),
                    path: name)
            }
            let store = try PostgresFrameStore(
                server: server, journalID: journalID, frames: VerifiedFrames(header: header, path: name), access: access)
            try store.pull()
            return store
        } catch {
            server.close()
            throw error
        }
    }

    private convenience init(server: PostgresServer, journalID: [UInt8], frames: VerifiedFrames, access: JournalAccess)
        throws(JournalError)
    {
        let wakeUps = WakeUps()
        try server.listen(on: Self.channel(journalID)) { wakeUps.ring() }
        self.init(server: server, journalID: journalID, frames: frames, access: access, wakeUps: wakeUps)
    }

    /// How the journal is named in messages: the server's address and the journal's id.
    static func name(_ address: PostgresAddress, _ journalID: [UInt8]) -> String {
        address.description + "#" + hexString(journalID.prefix(4))
    }

    // MARK: FrameStore

    public func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
        try append(batch, posting: nil).outcome
    }

    public func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
        try frames.read(after: sequence, progress: progress, body)
    }

    public func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        var waited = 0
        while true {
            if sequence < head.sequence { return true }
            // A query only when a notification came, or when none came for a poll interval
            // (a lost notification, a dropped listener): a shell asking every 25 ms while
            // it waits at the prompt costs the server nothing in between.
            let now = ContinuousClock.now
            if mustPull || wakeUps.count != heardWakeUps || now - lastPull >= .milliseconds(Self.pollInterval) {
                mustPull = false
                heardWakeUps = wakeUps.count
                lastPull = now
                try pull()
                if sequence < head.sequence { return true }
            }
            guard waited < milliseconds else { return false }
            usleep(1_000)
            waited += 1
        }
    }

    /// Polled this often (ms) while waiting, besides each notification.
    static let pollInterval = 1_000
    /// When this handle last read from the server, and how many notifications it had heard.
    private var lastPull = ContinuousClock.now
    private var heardWakeUps = 0
    /// Set when an append found the server's head moved: the next wait reads at once.
    private var mustPull = false

    /// Frames read per query while catching up.
    static let readBatch = 2_000

    /// Reads the frames after this handle's head from the server, in batches, verifying
    /// each against the chain before taking it in.
    func pull() throws(JournalError) {
        let id = ByteBuffer(bytes: journalID)
        while true {
            let after = Int64(head.sequence)
            let rows = try server.run(
                """
                SELECT sequence, frame FROM giftkeeper_frames WHERE journal_id = \(id) AND sequence > \(after)
                ORDER BY sequence LIMIT \(Int64(Self.readBatch))
                """)
            var pulled: [[UInt8]] = []
            for row in rows {
                let (sequence, frame) = try server.decoded { try row.decode((Int64, ByteBuffer).self) }
                let expected = head.sequence + UInt64(pulled.count) + 1
                guard sequence == Int64(expected) else {
                    try frames.takeIn(pulled)  // what came before the gap verified: kept
                    throw JournalError(
                        .corrupt(
                            JournalProblem(
                                sequence: expected, offset: nil,
                                damage: .misplacedFrame(found: UInt64(max(0, sequence)), expected: expected))),
                        path: name)
                }
                pulled.append(Array(buffer: frame))
            }
            try frames.takeIn(pulled)
            let count = pulled.count
            if count < Self.readBatch { return }
        }
    }

    // MARK: SharedFrameStore

    public func postDeviceHead(device: [UInt8], record: [UInt8]) throws(JournalError) {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        try server.run(
            """
            INSERT INTO giftkeeper_device_heads (journal_id, device_id, record)
            VALUES (\(ByteBuffer(bytes: journalID)), \(ByteBuffer(bytes: device)), \(ByteBuffer(bytes: record)))
            ON CONFLICT (journal_id, device_id) DO UPDATE SET record = EXCLUDED.record, posted_at = now()
            """)
    }

    public func deviceHeads() throws(JournalError) -> [[UInt8]: [UInt8]] {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        var heads: [[UInt8]: [UInt8]] = [:]
        let rows = try server.run(
            "SELECT device_id, record FROM giftkeeper_device_heads WHERE journal_id = \(ByteBuffer(bytes: journalID))")
        for row in rows {
            let (device, record) = try server.decoded { try row.decode((ByteBuffer, ByteBuffer).self) }
            heads[Array(buffer: device)] = Array(buffer: record)
        }
        return heads
    }

    /// One statement, so one round trip and its own transaction: `giftkeeper_append_v1`
    /// (``PostgresSchema/appendFunctionDefinition``) moves the journal's head only if it is
    /// still the batch's base (an `UPDATE` that locks the row and, under READ COMMITTED,
    /// looks at it again once another append's lock is released), inserts the frames,
    /// posts the device's head and notifies the channel, all or nothing; on a conflict it
    /// answers with the head that won. Acknowledged once the server answered, after its commit.
    public func append(_ batch: FrameBatch, posting deviceHead: (device: [UInt8], record: [UInt8])?) throws(JournalError)
        -> (outcome: AppendOutcome, heads: [[UInt8]: [UInt8]])
    {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: name) }
        guard batch.base == head else { return (.conflict(current: head), [:]) }
        guard !batch.isEmpty else { return (.appended(head), try deviceHeads()) }
        let frames = batch.encodedFrames.map { ByteBuffer(bytes: $0) }
        let device = deviceHead.map { ByteBuffer(bytes: $0.device) }
        let record = deviceHead.map { ByteBuffer(bytes: $0.record) }
        let answer: (moved: Bool, inserted: Int64, head: JournalHead, devices: [ByteBuffer]?, records: [ByteBuffer]?)
        do throws(JournalError) {
            let rows = try server.run(
                """
                SELECT * FROM giftkeeper_append_v1(\(ByteBuffer(bytes: journalID)), \(Int64(batch.base.sequence)),
                    \(ByteBuffer(bytes: batch.base.hash)), \(Int64(batch.head.sequence)), \(ByteBuffer(bytes: batch.head.hash)),
                    \(frames)::bytea[], \(device)::bytea, \(record)::bytea, \(Self.channel(journalID)))
                """)
            guard let row = rows.first else {
                throw JournalError(.unreachable(.journalGone), path: name)
            }
            let (moved, inserted, sequence, hash, devices, records) = try server.decoded {
                try row.decode((Bool, Int64, Int64, ByteBuffer, [ByteBuffer]?, [ByteBuffer]?).self)
            }
            answer = (moved, inserted, JournalHead(sequence: UInt64(max(0, sequence)), hash: Array(buffer: hash)), devices, records)
        } catch {
            // An answer that did not come (the connection dropped) leaves the outcome unknown:
            // this handle cannot tell which head it is at, and writes nothing more.
            isUnusable = true
            throw error
        }
        guard answer.moved else {
            mustPull = true  // the next wait reads what won, whatever the poll interval
            return (.conflict(current: answer.head), [:])
        }
        guard answer.inserted == Int64(frames.count), answer.head == batch.head else {
            isUnusable = true
            throw JournalError(
                .unreachable(.partlyStored(stored: answer.inserted, sent: frames.count)), path: name)
        }
        var heads: [[UInt8]: [UInt8]] = [:]
        for (device, record) in zip(answer.devices ?? [], answer.records ?? []) {
            heads[Array(buffer: device)] = Array(buffer: record)
        }
        self.frames.accept(batch)
        return (.appended(batch.head), heads)
    }

    public func fetch() throws(JournalError) {
        guard !isUnusable else { throw JournalError(.unusable, path: name) }
        lastPull = .now
        try pull()
    }
}

/// Notifications heard on a journal's channel, counted (rung from a NIO thread).
final class WakeUps: Sendable {
    private let heard = Atomic<Int>(0)
    func ring() { heard.add(1, ordering: .relaxed) }
    var count: Int { heard.load(ordering: .relaxed) }
}
