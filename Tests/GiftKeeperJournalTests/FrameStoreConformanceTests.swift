import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperRemote
import GiftKeeperTestSupport
import Glibc
import Testing

/// A store under test and the way to reach it again, as a restarted process would.
final class StoreUnderTest: CustomStringConvertible {
    let description: String
    /// Opens the journal (nil when there is none), and creates it.
    private let open: (JournalAccess) throws -> (any FrameStore)?
    let create: () throws -> any FrameStore
    private let directory: TemporaryDirectory?

    init(_ kind: StoreKind) throws {
        description = kind.rawValue
        switch kind {
        case .file:
            let directory = try TemporaryDirectory()
            self.directory = directory
            let location = FileStoreLocation(path: directory.file("gifts.journal"))
            (open, create) = ({ try location.open(access: $0, toleratingDamage: false, progress: nil) }, location.create)
        case .memory:
            directory = nil
            let location = MemoryStoreLocation()
            (open, create) = ({ try location.open(access: $0, toleratingDamage: false, progress: nil) }, location.create)
        case .service:
            // A device of its own (its key in a state directory of its own: an account of its
            // own), one journal; each reopening is another process's connection.
            let directory = try TemporaryDirectory(prefix: "giftkeeper-service-store")
            self.directory = directory
            let url = try ServiceFixture.requireURL()
            let header = try MemoryFrameStore(path: "device").header
            let remote = { try ServiceRemote.testDevice(url: url, stateDirectory: directory.path, deviceName: "conformance") }
            (open, create) = (
                { _ in try remote().open(journalID: header.journalID) }, { try remote().create(header: header) }
            )
        }
    }

    /// Opens the existing journal again, as another process would (others may stay open).
    func reopen(access: JournalAccess = .readWrite) throws -> any FrameStore {
        let opened = try open(access)
        return try #require(opened)
    }
}

/// The stores the conformance checks run on. The file and memory stores are checked as
/// arguments; the sync service's (``ServiceFrameStore``, through `giftkeeper-server`) in a
/// suite of its own (``FrameStoreConformanceTests/OnTheService``), which needs the test
/// service `make test` starts and is skipped, saying why, without one.
enum StoreKind: String, Sendable {
    case file, memory, service

    static let local: [StoreKind] = [.file, .memory]

    /// How long a handle may take to hear of another's append: at once for a file or memory;
    /// for the service, a look within its poll interval (the live socket may still be opening).
    var hearingMilliseconds: Int { self == .service ? 3_000 : 50 }
}

/// Every frame a store hands out, copied out of the callback.
struct ReadFrame: Equatable {
    let sequence: UInt64
    let kind: FrameKind
    let payload: [UInt8]
    let previousHash: [UInt8]
}

func readFrames(_ store: any FrameStore, after sequence: UInt64 = 0) throws -> [ReadFrame] {
    var frames: [ReadFrame] = []
    try store.read(after: sequence, progress: nil) { frame in
        frames.append(
            ReadFrame(
                sequence: frame.sequence, kind: frame.kind, payload: Array(frame.payload),
                previousHash: Array(frame.previousHash)))
    }
    return frames
}

/// Appends one batch of `payloads` (kinds cycling through `kinds`) on the store's head.
@discardableResult
func appendBatch(_ store: any FrameStore, _ payloads: [[UInt8]], kinds: [FrameKind] = [.dataSealed]) throws -> AppendOutcome {
    var batch = store.makeBatch()
    for (index, payload) in payloads.enumerated() {
        try batch.add(kind: kinds[index % kinds.count], payload: payload)
    }
    return try store.append(batch)
}

extension JournalTestSuite {
    /// One behaviour for every ``FrameStore``: the file, memory and PostgreSQL stores.
    @Suite struct FrameStoreConformanceTests {
        @Test("A new store is empty: head 0 at the genesis hash, nothing to read", arguments: StoreKind.local)
        func newStoreIsEmpty(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let store = try subject.create()
            #expect(store.head == JournalHead(sequence: 0, hash: store.header.genesisHash))
            #expect((store as? any LocalFrameStore)?.canAppend != false)
            #expect(try readFrames(store).isEmpty)
            #expect(store.frameIndex == FrameIndex())
            #expect(throws: JournalError.self) { _ = try subject.create() }
        }

        @Test("Appends chain, move the head, and read back in order after any sequence number", arguments: StoreKind.local)
        func appendsChainAndReadBack(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let store = try subject.create()
            let contents = payloads(sizes: [0, 1, 300, 4096, 17])
            let first = try appendBatch(store, Array(contents[0..<2]), kinds: [.keyWrap, .dataSealed])
            guard case .appended(let afterFirst) = first else {
                Issue.record("first append: \(first)")
                return
            }
            #expect(afterFirst.sequence == 2)
            #expect(store.head == afterFirst)
            let second = try appendBatch(store, Array(contents[2...]), kinds: [.dataSealed, .publicSealed])
            #expect(second == .appended(store.head))
            #expect(store.head.sequence == 5)

            let frames = try readFrames(store)
            #expect(frames.map(\.sequence) == [1, 2, 3, 4, 5])
            #expect(frames.map(\.payload) == contents)
            #expect(frames.map(\.kind) == [.keyWrap, .dataSealed, .dataSealed, .publicSealed, .dataSealed])
            #expect(frames[0].previousHash == store.header.genesisHash)
            // Each frame's previous hash is the one before's hash: the chain, whatever the store.
            #expect(Set(frames.map(\.previousHash)).count == 5)
            #expect(try readFrames(store, after: 3) == Array(frames[3...]))
            #expect(try readFrames(store, after: 5).isEmpty)
            #expect(store.frameIndex.keyWraps.map(\.sequence) == [1])
            #expect(store.frameIndex.trailingKind == .dataSealed)
        }

        @Test("An append after a head that moved on is a conflict: nothing written, the current head returned", arguments: StoreKind.local)
        func staleAppendConflicts(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let store = try subject.create()
            try appendBatch(store, [[1], [2]])
            var stale = FrameBatch(after: JournalHead(sequence: 1, hash: store.header.genesisHash), path: store.name)
            try stale.add(kind: .dataSealed, payload: [9])
            let before = store.head
            #expect(try store.append(stale) == .conflict(current: before))
            #expect(store.head == before)
            #expect(try readFrames(store).map(\.payload) == [[1], [2]])
            // A batch made on the head that won goes in.
            #expect(try appendBatch(store, [[3]]) == .appended(JournalHead(sequence: 3, hash: store.head.hash)))
        }

        @Test("What was appended is there for the next process, index included", arguments: StoreKind.local)
        func reopenedStoreHasEverything(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            var head: JournalHead
            var index: FrameIndex
            var frames: [ReadFrame]
            do {
                let store = try subject.create()
                try appendBatch(store, payloads(sizes: [40, 41, 42, 43]), kinds: [.keyWrap, .dataSealed, .publicSealed])
                head = store.head
                index = store.frameIndex
                frames = try readFrames(store)
            }
            do {
                let reopened = try subject.reopen()
                #expect(reopened.head == head)
                #expect(reopened.frameIndex == index)
                #expect(try readFrames(reopened) == frames)
            }
            // Read-only handles are a local copy's (the service has none: a device's rights
            // are its account's).
            guard kind != .service else { return }
            let readOnly = try subject.reopen(access: .readOnly)
            #expect((readOnly as? any LocalFrameStore)?.canAppend != true)
            #expect(throws: JournalError.self) { try appendBatch(readOnly, [[1]]) }
        }

        @Test("Waiting: at once when frames are there, false when none come in time", arguments: StoreKind.local)
        func waitingForFrames(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let store = try subject.create()
            #expect(try store.waitForFrames(after: 0, milliseconds: 30) == false)
            try appendBatch(store, [[1]])
            #expect(try store.waitForFrames(after: 0, milliseconds: 0))
            #expect(try store.waitForFrames(after: 1, milliseconds: 30) == false)
        }

        @Test("An empty batch writes nothing and keeps the head", arguments: StoreKind.local)
        func emptyBatchWritesNothing(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let store = try subject.create()
            try appendBatch(store, [[7]])
            let head = store.head
            #expect(try appendBatch(store, []) == .appended(head))
            #expect(try readFrames(store).count == 1)
        }

        @Test(
            "Appends racing at one expected head from several writers: exactly one wins, nothing lost or duplicated",
            arguments: StoreKind.local)
        func racingAppendsAtOnePosition(kind: StoreKind) async throws {
            let subject = try StoreUnderTest(kind)
            let first = try subject.create()
            try appendBatch(first, [[0]])
            let writers = 8
            let base = first.head
            let stores = try (0..<writers).map { _ in SendableStore(try subject.reopen()) }
            let outcomes = try await withThrowingTaskGroup(of: AppendOutcome.self) { group in
                for (writer, handle) in stores.enumerated() {
                    group.addTask {
                        var batch = FrameBatch(after: base, path: handle.store.name)
                        try batch.add(kind: .dataSealed, payload: [UInt8(writer + 1)])
                        return try handle.store.append(batch)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = outcomes.filter { if case .appended = $0 { true } else { false } }
            #expect(winners.count == 1)
            let reader = try subject.reopen(access: .readOnly)
            let frames = try readFrames(reader)
            #expect(frames.count == 2)
            // Every loser was told the winner's head, so it can catch up and decide again.
            for outcome in outcomes where outcome != winners[0] {
                #expect(outcome == .conflict(current: reader.head))
            }
        }

        @Test("A writer that lost catches up by waiting, then appends after the winner", arguments: StoreKind.local)
        func loserCatchesUp(kind: StoreKind) throws {
            let subject = try StoreUnderTest(kind)
            let a = try subject.create()
            let b = try subject.reopen()
            try appendBatch(a, [[1]])
            #expect(try appendBatch(b, [[2]]) == .conflict(current: a.head))
            #expect(try b.waitForFrames(after: 0, milliseconds: 0))
            #expect(b.head == a.head)
            #expect(try appendBatch(b, [[2]]) == .appended(b.head))
            #expect(try readFrames(a).isEmpty == false)
            #expect(try a.waitForFrames(after: 1, milliseconds: kind.hearingMilliseconds))
            #expect(try readFrames(a).map(\.payload) == [[1], [2]])
        }
    }
}

/// A store handed to a task: each is used by that one task only (a store is a handle used
/// from one task at a time), which the compiler cannot see.
struct SendableStore: @unchecked Sendable {
    let store: any FrameStore
    init(_ store: any FrameStore) { self.store = store }
}

extension JournalTestSuite.FrameStoreConformanceTests {
    /// The same checks on the sync service's store, through the test service.
    @Suite(.needsService) struct OnTheService {
        let checks = JournalTestSuite.FrameStoreConformanceTests()

        @Test func newStoreIsEmpty() throws { try checks.newStoreIsEmpty(kind: .service) }
        @Test func appendsChainAndReadBack() throws { try checks.appendsChainAndReadBack(kind: .service) }
        @Test func staleAppendConflicts() throws { try checks.staleAppendConflicts(kind: .service) }
        @Test func reopenedStoreHasEverything() throws { try checks.reopenedStoreHasEverything(kind: .service) }
        @Test func waitingForFrames() throws { try checks.waitingForFrames(kind: .service) }
        @Test func emptyBatchWritesNothing() throws { try checks.emptyBatchWritesNothing(kind: .service) }
        @Test func racingAppendsAtOnePosition() async throws { try await checks.racingAppendsAtOnePosition(kind: .service) }
        @Test func loserCatchesUp() throws { try checks.loserCatchesUp(kind: .service) }
    }
}
