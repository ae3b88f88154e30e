import GiftKeeperJournal
import GiftKeeperPostgres
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12: the server is not trusted. What it sends is verified against the chain before
/// it is taken in, so frames it alters, drops or moves are refused with their position.
/// Against the test server (``PostgresFixture``); skipped, saying why, without one.
/// `make test` runs it in the test process of the suites that start programs (psql).
@Suite(.needsPostgres)
struct PostgresStoreTests {
    /// Runs `sql` on the test server (or the database at `url` there) with psql, as someone
    /// with the server's keys would.
    func serverSide(_ sql: String, at url: String? = nil) async throws {
        let url = try url ?? PostgresFixture.requireURL()
        let psql = try await runProgram("/usr/bin/psql", [url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        #expect(psql.status == 0, "\(psql)")
    }

    func journal(frames count: Int) throws -> (PostgresStoreLocation, [UInt8]) {
        let location = PostgresStoreLocation(address: try PostgresAddress(url: try PostgresFixture.requireURL()))
        let store = try location.create()
        try append(store, (1...count).map { [UInt8(truncatingIfNeeded: $0), 0xEE] })
        return (location, try #require(location.journalID))
    }

    /// Appends one batch of `payloads` on the store's head.
    @discardableResult
    func append(_ store: any FrameStore, _ payloads: [[UInt8]]) throws -> AppendOutcome {
        var batch = store.makeBatch()
        for payload in payloads { try batch.add(kind: .dataSealed, payload: payload) }
        return try store.append(batch)
    }

    @Test("A frame the server altered is refused with its position")
    func alteredFrame() async throws {
        let (location, id) = try journal(frames: 3)
        try await serverSide(
            "UPDATE giftkeeper_frames SET frame = set_byte(frame, 21, get_byte(frame, 21) # 1) WHERE journal_id = '\\x\(hexString(id))' AND sequence = 2"
        )
        let error = caught(JournalError.self) { _ = try location.open(access: .readOnly, toleratingDamage: false, progress: nil) }
        guard case .corrupt(let problem)? = error?.code else {
            Issue.record("an altered frame was taken in: \(String(describing: error))")
            return
        }
        #expect(problem.sequence == 2)
        #expect(error?.exitCode == 1)
    }

    @Test("A frame the server dropped, or frames it reordered, are refused with the position")
    func droppedOrReorderedFrames() async throws {
        let (location, id) = try journal(frames: 3)
        try await serverSide("DELETE FROM giftkeeper_frames WHERE journal_id = '\\x\(hexString(id))' AND sequence = 2")
        let dropped = caught(JournalError.self) { _ = try location.open(access: .readOnly, toleratingDamage: false, progress: nil) }
        guard case .corrupt(let problem)? = dropped?.code else {
            Issue.record("a gap was followed: \(String(describing: dropped))")
            return
        }
        #expect(problem.sequence == 2)
        #expect(problem.damage == .misplacedFrame(found: 3, expected: 2), "\(problem.damage)")

        let (other, otherID) = try journal(frames: 3)
        try await serverSide(
            """
            UPDATE giftkeeper_frames SET sequence = -sequence WHERE journal_id = '\\x\(hexString(otherID))' AND sequence IN (1, 2);
            UPDATE giftkeeper_frames SET sequence = 3 - sequence WHERE journal_id = '\\x\(hexString(otherID))' AND sequence < 0;
            """)
        let swapped = caught(JournalError.self) { _ = try other.open(access: .readOnly, toleratingDamage: false, progress: nil) }
        guard case .corrupt(let swappedProblem)? = swapped?.code else {
            Issue.record("reordered frames were taken in: \(String(describing: swapped))")
            return
        }
        #expect(swappedProblem.sequence == 1)
    }

    @Test("Another journal's frames served in place of this one's are refused")
    func splicedFromAnotherJournal() async throws {
        let (location, id) = try journal(frames: 2)
        let (_, otherID) = try journal(frames: 2)
        try await serverSide(
            """
            UPDATE giftkeeper_frames AS mine SET frame = theirs.frame FROM giftkeeper_frames AS theirs
            WHERE mine.journal_id = '\\x\(hexString(id))' AND theirs.journal_id = '\\x\(hexString(otherID))' AND mine.sequence = 2 AND theirs.sequence = 2
            """)
        let error = caught(JournalError.self) { _ = try location.open(access: .readOnly, toleratingDamage: false, progress: nil) }
        guard case .corrupt(let problem)? = error?.code else {
            Issue.record("another journal's frame was taken in: \(String(describing: error))")
            return
        }
        #expect(problem.sequence == 2)
    }

    /// A server an earlier version made has the tables but not the append function: the
    /// first device that connects adds it, and appends, conflicts and reads work there.
    /// (Its own database, so that the other tests' server keeps its function meanwhile.)
    @Test("A server made by an earlier version gets the append function on first use")
    func serverFromAnEarlierVersion() async throws {
        let url = try PostgresFixture.requireURL()
        let database = "giftkeeper_upgrade_\(getpid())"
        try await serverSide("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        try await serverSide("CREATE DATABASE \(database)")
        let upgradeURL = String(url.prefix(upTo: try #require(url.lastIndex(of: "/")))) + "/" + database
        let address = try PostgresAddress(url: upgradeURL)
        _ = try PostgresStoreLocation(address: address).create()  // the tables, and the function
        try await serverSide(
            """
            DROP FUNCTION giftkeeper_append_v1(bytea, bigint, bytea, bigint, bytea, bytea[], bytea, bytea, text);
            SELECT 1 / (count(*) = 0)::int FROM pg_proc WHERE proname = 'giftkeeper_append_v1';
            """, at: upgradeURL)
        let location = PostgresStoreLocation(address: address)
        let store = try location.create()
        _ = try append(store, [[1, 0xEE], [2, 0xEE]])
        let other = try #require(try location.open(access: .readWrite, toleratingDamage: false, progress: nil))
        #expect(other.head == store.head)
        _ = try append(store, [[3, 0xEE]])
        var late = other.makeBatch()
        try late.add(kind: .dataSealed, payload: [9])
        #expect(try other.append(late) == .conflict(current: store.head))
        try await serverSide("DROP DATABASE \(database) WITH (FORCE)")
    }

    @Test("A password written into the address is refused: it belongs in ~/.pgpass")
    func passwordInAddressRefused() throws {
        let error = caught(JournalError.self) { _ = try PostgresAddress(url: "postgres://me:hunter2@127.0.0.1:5432/gifts") }
        #expect(error?.code == .unreachable(.passwordInAddress))
        #expect(error?.path.contains("hunter2") == false)
    }
}
