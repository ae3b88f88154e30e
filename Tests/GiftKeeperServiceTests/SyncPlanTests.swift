import GiftKeeperJournal
import Testing

@testable import GiftKeeperService

/// The sync planner alone (SPEC §12): what to do, decided from two chains, and the servers
/// it refuses. No store, no keys, no network.
@Suite struct SyncPlanTests {
    private let genesis: [UInt8] = Array(repeating: 0, count: 32)

    /// A chain of `count` frame hashes; frames from `forkAt` (1-based) on differ.
    private func chain(_ count: Int, forkAt: Int = .max, tag: UInt8 = 1) -> [[UInt8]] {
        (1...max(1, count)).prefix(count).map { position in
            [UInt8(position & 0xFF), position >= forkAt ? tag : 0] + Array(repeating: 7, count: 30)
        }
    }

    private func plan(
        ours: [[UInt8]], theirs: [[UInt8]], shared: Int, restoring: Bool = false, restored: Bool = false
    ) throws(ServiceError) -> SyncPlan {
        let sharedHead = JournalHead(sequence: UInt64(shared), hash: shared == 0 ? genesis : ours[shared - 1])
        return try SyncPlan.decide(
            ours: ours, theirs: theirs, genesis: genesis, shared: sharedHead, restoringServer: restoring,
            serverRestored: restored, server: "srv")
    }

    @Test func aServerThatAnnouncedARestoreIsMergedWithNotRefused() throws {
        // Restored to 3 of the 6 frames this device saw, then another device added 2: this
        // device's frames 4–8 are decided again after the server's 5.
        #expect(
            try plan(ours: chain(8), theirs: chain(5, forkAt: 4, tag: 2), shared: 6, restored: true)
                == SyncPlan(action: .merge(pending: 5), common: head(3)))
        // Restored to 3 and nothing since: this device's frames after them are sent back.
        #expect(try plan(ours: chain(8), theirs: chain(3), shared: 6, restored: true) == SyncPlan(action: .send, common: head(3)))
        // The same servers without the announcement are refused.
        #expect(throws: ServiceError.self) { try plan(ours: chain(8), theirs: chain(5, forkAt: 4, tag: 2), shared: 6) }
        #expect(throws: ServiceError.self) { try plan(ours: chain(8), theirs: chain(3), shared: 6) }
    }

    @Test func eachSideMovingGivesItsAction() throws {
        #expect(try plan(ours: chain(5), theirs: chain(5), shared: 5) == SyncPlan(action: .level, common: head(5)))
        #expect(try plan(ours: chain(7), theirs: chain(5), shared: 5) == SyncPlan(action: .send, common: head(5)))
        #expect(try plan(ours: chain(5), theirs: chain(9), shared: 5) == SyncPlan(action: .receive, common: head(5)))
        let both = try plan(ours: chain(8), theirs: chain(9, forkAt: 7, tag: 2), shared: 5)
        #expect(both == SyncPlan(action: .merge(pending: 2), common: head(6)))
        // The first push: nothing shared, nothing on the server.
        #expect(try plan(ours: chain(3), theirs: [], shared: 0) == SyncPlan(action: .send, common: JournalHead(sequence: 0, hash: genesis)))
    }

    @Test func aServerThatRewroteWhatThisDeviceSawIsRefused() {
        // This device saw 5 frames there; the server now shows another frame 4.
        #expect(throws: ServiceError.self) { try plan(ours: chain(6), theirs: chain(6, forkAt: 4, tag: 3), shared: 5) }
        do {
            _ = try plan(ours: chain(6), theirs: chain(6, forkAt: 4, tag: 3), shared: 5)
        } catch {
            guard case .remoteDiverged(let server, let sequence, let shared) = error.code else {
                Issue.record("\(error)")
                return
            }
            #expect(server == "srv" && sequence == 4 && shared == 5)
        }
    }

    @Test func anOlderBackupIsRefusedUnlessRestoring() throws {
        do {
            _ = try plan(ours: chain(8), theirs: chain(3), shared: 6)
            Issue.record("a server behind what this device saw was followed")
        } catch {
            guard case .remoteBehind(_, let has, let shared) = error.code else {
                Issue.record("\(error)")
                return
            }
            #expect(has == 3 && shared == 6)
        }
        #expect(try plan(ours: chain(8), theirs: chain(3), shared: 6, restoring: true) == SyncPlan(action: .send, common: head(3)))
        // Fewer frames that are not a beginning of this device's journal: a fork, restoring or not.
        for restoring in [false, true] {
            #expect(throws: ServiceError.self) { try plan(ours: chain(8), theirs: chain(3, forkAt: 2, tag: 4), shared: 6, restoring: restoring) }
        }
    }

    private func head(_ sequence: Int) -> JournalHead {
        JournalHead(sequence: UInt64(sequence), hash: chain(sequence)[sequence - 1])
    }
}
