import GiftKeeperJournal
import GiftKeeperRemote
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12: the server is not trusted. What the sync service sends is verified against the
/// chain before it is taken in, so frames altered, dropped or moved in its database are
/// refused with their position. Against the test service (``ServiceFixture``), its database
/// changed with psql as its owner — as someone holding the server would; skipped, saying
/// why, without one. `make test` runs it in the test process of the suites that start
/// programs (psql).
@Suite(.needsService)
struct ServiceStoreTests {
    /// Runs `sql` on the test service's database with psql, as its owner.
    func serverSide(_ sql: String) async throws {
        let psql = try await runProgram(
            "/usr/bin/psql", [ServiceFixture.databaseURL, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        #expect(psql.status == 0, "\(psql)")
    }

    /// A device of its own on the test service (its key in `directory`).
    func device(_ directory: TemporaryDirectory) throws -> ServiceRemote {
        try ServiceRemote.testDevice(url: try ServiceFixture.requireURL(), stateDirectory: directory.path, deviceName: "tampering")
    }

    /// A journal of `count` frames on the service, made by the device of `directory`; its id.
    func journal(frames count: Int, device directory: TemporaryDirectory) throws -> [UInt8] {
        let header = try MemoryFrameStore(path: "device").header
        let store = try device(directory).create(header: header)
        var batch = store.makeBatch()
        for frame in 1...count { try batch.add(kind: .dataSealed, payload: [UInt8(truncatingIfNeeded: frame), 0xEE]) }
        #expect(try store.append(batch) == .appended(batch.head))
        return header.journalID
    }

    /// The rows of journal `id`'s frames, as an SQL condition.
    func of(_ id: [UInt8]) -> String { "journal_id = '\\x\(hexString(id))'" }

    /// Opening journal `id` again, as the device's next process would: the error it refuses with.
    func refusal(_ id: [UInt8], device directory: TemporaryDirectory) throws -> JournalProblem? {
        let error = caught(JournalError.self) { _ = try device(directory).open(journalID: id) }
        guard case .corrupt(let problem)? = error?.code else {
            Issue.record("the service's frames were taken in: \(String(describing: error))")
            return nil
        }
        #expect(error?.exitCode == 1)
        return problem
    }

    @Test("A frame altered on the server is refused with its position")
    func alteredFrame() async throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-tampering")
        let id = try journal(frames: 3, device: directory)
        try await serverSide("UPDATE gk_frames SET frame = set_byte(frame, 21, get_byte(frame, 21) # 1) WHERE \(of(id)) AND sequence = 2")
        #expect(try refusal(id, device: directory)?.sequence == 2)
    }

    @Test("A frame dropped on the server, or frames it reordered, are refused with the position")
    func droppedOrReorderedFrames() async throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-tampering")
        let id = try journal(frames: 3, device: directory)
        try await serverSide("DELETE FROM gk_frames WHERE \(of(id)) AND sequence = 2")
        let dropped = try refusal(id, device: directory)
        #expect(dropped?.sequence == 2)

        let other = try journal(frames: 3, device: directory)
        try await serverSide(
            """
            UPDATE gk_frames SET sequence = -sequence WHERE \(of(other)) AND sequence IN (1, 2);
            UPDATE gk_frames SET sequence = 3 - sequence WHERE \(of(other)) AND sequence < 0;
            """)
        #expect(try refusal(other, device: directory)?.sequence == 1)
    }

    @Test("Another journal's frames served in place of this one's are refused")
    func splicedFromAnotherJournal() async throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-tampering")
        let id = try journal(frames: 2, device: directory)
        let otherID = try journal(frames: 2, device: directory)
        try await serverSide(
            """
            UPDATE gk_frames AS mine SET frame = theirs.frame FROM gk_frames AS theirs
            WHERE mine.journal_id = '\\x\(hexString(id))' AND theirs.journal_id = '\\x\(hexString(otherID))'
            AND mine.sequence = 2 AND theirs.sequence = 2
            """)
        #expect(try refusal(id, device: directory)?.sequence == 2)
    }
}
