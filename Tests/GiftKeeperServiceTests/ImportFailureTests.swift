import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// An import whose append fails after some batches are in the journal: the session's state
/// holds exactly what was appended (the import folds its events once, into a planned state
/// that becomes the state only when every batch is in).
@Suite struct ImportFailureTests {
    /// A store that forwards everything to another, except that once armed its appends
    /// fail (as a full disk would) after `appendsLeft` more.
    final class AppendFailingStore: LocalFrameStore {
        let inner: any LocalFrameStore
        var appendsLeft: Int?

        init(_ inner: any LocalFrameStore) { self.inner = inner }

        var name: String { inner.name }
        var header: JournalHeader { inner.header }
        var head: JournalHead { inner.head }
        var frameIndex: FrameIndex { inner.frameIndex }
        var canAppend: Bool { inner.canAppend }
        var trimmedTail: TornTail? { inner.trimmedTail }
        var damage: JournalProblem? { inner.damage }

        func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
            if let left = appendsLeft {
                guard left > 0 else { throw JournalError(.io(operation: "write", errno: ENOSPC), path: name) }
                appendsLeft = left - 1
            }
            return try inner.append(batch)
        }

        func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
            try inner.read(after: sequence, progress: progress, body)
        }

        func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
            try inner.waitForFrames(after: sequence, milliseconds: milliseconds)
        }

        func beginSession() -> Bool? { inner.beginSession() }
        func endSession() { inner.endSession() }
        func lockPasswordChecks(isCancelled: () -> Bool) -> Bool { inner.lockPasswordChecks(isCancelled: isCancelled) }
        func unlockPasswordChecks() { inner.unlockPasswordChecks() }

        func rewrite(expecting expected: JournalHead, with batch: FrameBatch, whileReplacing: () -> Void)
            throws(JournalError) -> AppendOutcome
        {
            try inner.rewrite(expecting: expected, with: batch, whileReplacing: whileReplacing)
        }

        func whileCurrent<T>(_ body: () throws -> T) throws -> T? { try inner.whileCurrent(body) }
    }

    /// The memory store, each handle it gives wrapped in an ``AppendFailingStore``.
    final class AppendFailingLocation: FrameStoreLocation {
        let inner = MemoryStoreLocation()
        private(set) var handles: [AppendFailingStore] = []
        var path: String { inner.path }

        func open(access: JournalAccess, toleratingDamage: Bool, progress: ((Int, Int) -> Void)?)
            throws(JournalError) -> (any LocalFrameStore)?
        {
            try inner.open(access: access, toleratingDamage: toleratingDamage, progress: progress).map(wrapped)
        }

        func create() throws(JournalError) -> any LocalFrameStore { wrapped(try inner.create()) }

        private func wrapped(_ store: any LocalFrameStore) -> AppendFailingStore {
            let handle = AppendFailingStore(store)
            handles.append(handle)
            return handle
        }
    }

    /// A v1 document of `count` presents, p`first` on.
    private static func document(presents count: Int, first: Int) -> [UInt8] {
        let presents = (first..<first + count).map { number in
            #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p\#(number)","notes":"","occasion":"","price":null,"recipient":"Mum","status":"idea","title":"Scarf \#(number)","updatedAt":"2026-12-01T09:00:01.000Z"}"#
        }
        return Array(#"{"format":"giftkeeper.export.v1","presents":[\#(presents.joined(separator: ","))]}"#.utf8)
    }

    @Test(arguments: [0, 1, 2])
    func aFailedBatchLeavesTheStateAsTheJournal(batchesAppended: Int) throws {
        let sandbox = try Sandbox()
        let location = AppendFailingLocation()
        let service = GiftKeeperService(location: location, environment: sandbox.environment())
        try service.open()
        try service.setup(name: "Alice", password: password("correct horse"), parameters: .testMinimum)
        try service.perform(.addPresent(recipient: "Dad", title: "Tie"))
        let batch = GiftKeeperService.importBatchSize
        // Three batches, the last one short; the import's ids start after the journal's p1.
        let bytes = Self.document(presents: 2 * batch + 10, first: 2)
        let before = service.state
        for handle in location.handles { handle.appendsLeft = batchesAppended }

        let error = serviceError { _ = try service.importDocument(bytes) }
        #expect(error != nil, "the import did not fail")
        let presents = service.state.presents
        #expect(presents.count == before.presents.count + batchesAppended * batch)
        #expect(Array(presents.keys.prefix(before.presents.count)) == Array(before.presents.keys))
        #expect(service.state.eventCount == before.eventCount + batchesAppended * batch)

        // A replay of what the journal holds is what the session holds.
        for handle in location.handles { handle.appendsLeft = nil }
        let replay = GiftKeeperService(location: location, environment: sandbox.environment())
        try replay.open()
        try replay.login(password: password("correct horse"))
        // Compared whole, but not printed whole: two thousand presents on a failure say little.
        let samePresents = replay.state.presents == presents
        #expect(samePresents, "the replay holds \(replay.state.presents.count) presents, the session \(presents.count)")
        #expect(replay.state.nextPresentNumber == service.state.nextPresentNumber)
        let sameRecipients = replay.state.presentIDsByRecipient == service.state.presentIDsByRecipient
        #expect(sameRecipients, "the presents by recipient differ")
        try replay.close()
    }
}
