import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import Testing

@testable import GiftKeeperSealing

extension JournalTestSuite {
    /// The index opening keeps (so the service needs no second pass) and the replay that
    /// trusts the chain opening verified (login, history, audit).
    @Suite struct JournalReplayTrustTests {
        private static let kinds: [FrameKind] = [.keyWrap, .dataSealed, .publicSealed, .keyWrap, .dataSealed, .publicSealed, .publicSealed]

        @Test func openingIndexesKindsAndKeepsKeyWraps() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("index.journal")
            let contents = payloads(sizes: [30, 5, 9, 31, 7, 11, 13])
            try makeJournal(at: path, payloads: contents, kinds: Self.kinds)
            let journal = try Journal.open(at: path, access: .readOnly)
            let index = journal.frameIndex
            #expect(index.keyWraps.map(\.sequence) == [1, 4])
            #expect(index.keyWraps.map(\.payload) == [contents[0], contents[3]])
            #expect(index.keyWraps[0].previousHash == journal.header.genesisHash)
            #expect(index.firstKind == .keyWrap)
            #expect(index.firstDataSealedSequence == 2)
            #expect(index.trailingKind == .publicSealed)
            #expect(index.trailingCount == 2)

            // The previous hash kept for each wrap is what a replay shows for that frame.
            var previousHashes: [UInt64: [UInt8]] = [:]
            try journal.replay { frame in previousHashes[frame.sequence] = Array(frame.previousHash) }
            #expect(index.keyWraps.map { previousHashes[$0.sequence] } == index.keyWraps.map(\.previousHash))
        }

        @Test func appendsKeepTheIndexUpToDate() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("append.journal")
            try makeJournal(at: path, payloads: payloads(sizes: [3, 4]), kinds: [.keyWrap, .publicSealed])
            var afterAppend = FrameIndex()
            do {
                let journal = try Journal.open(at: path, access: .readWrite)
                #expect(journal.frameIndex.trailingCount == 1)
                try journal.append { batch in
                    try batch.add(kind: .publicSealed, payload: [1])
                    try batch.add(kind: .keyWrap, payload: [2, 3])
                    try batch.add(kind: .dataSealed, payload: [4])
                }
                afterAppend = journal.frameIndex
            }
            #expect(afterAppend.keyWraps.map(\.sequence) == [1, 4])
            #expect(afterAppend.keyWraps.last?.payload == [2, 3])
            #expect(afterAppend.firstDataSealedSequence == 5)
            #expect(afterAppend.trailingKind == .dataSealed)
            #expect(afterAppend.trailingCount == 1)
            let reopened = try Journal.open(at: path, access: .readOnly)
            #expect(reopened.frameIndex == afterAppend)
        }

        @Test func trustingReplayShowsTheSameFramesAndStoredHashes() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("trust.journal")
            try makeJournal(at: path, payloads: payloads(sizes: [0, 1, 17, 100, 300, 5000]))
            let journal = try Journal.open(at: path, access: .readWrite)
            var verified: [(UInt64, FrameKind, [UInt8], [UInt8])] = []
            try journal.replay(chainCheck: .recompute) { frame in
                verified.append((frame.sequence, frame.kind, Array(frame.payload), Array(frame.previousHash)))
            }
            var trusted: [(UInt64, FrameKind, [UInt8], [UInt8])] = []
            try journal.replay(chainCheck: .trustVerifiedOnOpen) { frame in
                trusted.append((frame.sequence, frame.kind, Array(frame.payload), Array(frame.previousHash)))
            }
            #expect(trusted.count == 6)
            #expect(trusted.elementsEqual(verified) { $0 == $1 })
        }

        /// Reading what followed a head this handle saw (a device sending its newest change)
        /// starts where those frames begin, and shows exactly what a whole pass shows for
        /// them; a read after an older head than it remembers reads from frame 1. Either
        /// way a frame rewritten behind the lock is reported, not passed on.
        @Test func readingAfterARecentHeadShowsWhatAWholePassShows() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("resume.journal")
            let bytes = try makeJournal(at: path, payloads: payloads(sizes: [10, 20, 30]))
            let journal = try Journal.open(at: path, access: .readWrite)
            for round in 0..<40 {
                try journal.append { batch in
                    try batch.add(kind: .dataSealed, payload: [UInt8(round)])
                    if round % 3 == 0 { try batch.add(kind: .publicSealed, payload: [UInt8(round), 1]) }
                }
            }
            func frames(after sequence: UInt64) throws -> [(UInt64, FrameKind, [UInt8], [UInt8])] {
                var seen: [(UInt64, FrameKind, [UInt8], [UInt8])] = []
                try journal.read(after: sequence, progress: nil) { frame in
                    seen.append((frame.sequence, frame.kind, Array(frame.payload), Array(frame.previousHash)))
                }
                return seen
            }
            let whole = try frames(after: 0)
            #expect(whole.count == Int(journal.head.sequence))
            for after in [UInt64(0), 1, 3, 20, journal.head.sequence - 2, journal.head.sequence - 1, journal.head.sequence] {
                let read = try frames(after: after)
                #expect(read.elementsEqual(whole.dropFirst(Int(after))) { $0 == $1 }, "after \(after)")
            }

            // The newest frame's sequence number rewritten: a read after the base of the last
            // append (a remembered boundary) reports it.
            let last = journal.head.sequence
            let lastOffset = journal.size - whole[Int(last) - 1].2.count - 53  // its header and hash around the payload
            let original = try readBytes(path)
            try patchByte(path, at: lastOffset + 4, to: original[lastOffset + 4] ^ 0x01)
            let error = caught(JournalError.self) { try journal.read(after: last - 2, progress: nil) { _ in } }
            guard case .corrupt(let problem)? = error?.code else {
                Issue.record("expected corruption, got \(String(describing: error))")
                return
            }
            #expect(problem.damage == .changedWhileOpen)
            #expect(bytes.count < original.count)
        }

        /// A frame changed after opening, under our lock (something that ignores flock):
        /// the trusting pass reports the change when the structure or the head no longer
        /// matches; a payload-only change is the service's AEAD's to catch (it binds the
        /// stored previous hash), and the next open's chain check catches it too.
        @Test func trustingReplayReportsAJournalChangedUnderTheLock() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("changed.journal")
            let bytes = try makeJournal(at: path, payloads: payloads(sizes: [10, 20, 30]))
            let ranges = frameRanges(bytes)

            // A sequence number rewritten, and the last frame's stored hash rewritten.
            for offset in [ranges[1].lowerBound + 4, ranges[2].upperBound - 1] {
                let journal = try Journal.open(at: path, access: .readWrite)
                try patchByte(path, at: offset, to: bytes[offset] ^ 0x01)
                let error = caught(JournalError.self) { try journal.replay(chainCheck: .trustVerifiedOnOpen) { _ in } }
                guard case .corrupt(let problem)? = error?.code else {
                    Issue.record("expected corruption for a change at \(offset), got \(String(describing: error))")
                    continue
                }
                #expect(problem.damage == .changedWhileOpen)
                try patchByte(path, at: offset, to: bytes[offset])
            }

            // A payload byte: the trusting pass shows the changed payload (the AEAD above it
            // fails); opening again recomputes the chain and refuses the file.
            let payloadByte = ranges[1].lowerBound + 21
            let journal = try Journal.open(at: path, access: .readWrite)
            try patchByte(path, at: payloadByte, to: bytes[payloadByte] ^ 0x80)
            var seen: [UInt8] = []
            try journal.replay(chainCheck: .trustVerifiedOnOpen) { frame in
                if frame.sequence == 2 { seen = Array(frame.payload) }
            }
            #expect(seen.first == bytes[payloadByte] ^ 0x80)
            #expect(caught(JournalError.self) { try journal.replay(chainCheck: .recompute) { _ in } }?.code != nil)
        }

        @Test func readOnlyOpeningCanTolerateDamageForAudit() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("damaged.journal")
            let contents = payloads(sizes: smallJournalSizes)
            let bytes = try makeJournal(at: path, payloads: contents)
            let ranges = frameRanges(bytes)
            // Damage the third frame's payload: frames 1 and 2 still verify.
            try patchByte(path, at: ranges[2].lowerBound + 21, to: bytes[ranges[2].lowerBound + 21] ^ 0x01)

            #expect(caught(JournalError.self) { try Journal.open(at: path, access: .readOnly) }?.code != nil)
            let damage: JournalProblem
            do {
                let journal = try Journal.open(at: path, access: .readOnly, toleratingDamage: true)
                damage = try #require(journal.damage)
                #expect(damage.sequence == 3)
                #expect(damage.offset == ranges[2].lowerBound)
                #expect(journal.frameCount == 2)
                #expect(journal.size == ranges[1].upperBound)
                let frames = try replayAll(journal)
                #expect(frames.map(\.payload) == Array(contents.prefix(2)))
            }
            // Never for writing (the read-only journal above is closed now): damage is not
            // something to append after.
            let writing = caught(JournalError.self) {
                try Journal.open(at: path, access: .readWrite, toleratingDamage: true)
            }
            #expect(writing?.code == .corrupt(damage))
            #expect(try readBytes(path) != bytes, "the damage is still there: nothing was trimmed")
        }
    }
}
