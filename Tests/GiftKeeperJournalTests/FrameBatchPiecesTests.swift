import GiftKeeperJournal
import GiftKeeperTestSupport
import Testing

/// A batch cut into the pieces a store of bounded requests sends one after another (the
/// sync service's first push of a whole journal): each piece follows the one before, no
/// piece is over its bounds, and together they are the batch, byte for byte.
@Suite struct FrameBatchPiecesTests {
    @Test("Seeded batches cut at frame and byte bounds chain, keep their bounds and add up to the batch")
    func piecesAddUpToTheBatch() throws {
        var random = TestRandom()
        for round in 0..<20 {
            let base = JournalHead(sequence: UInt64.random(in: 0...50, using: &random), hash: Array(repeating: UInt8(round), count: 32))
            var batch = FrameBatch(after: base, path: "test")
            for _ in 0..<Int.random(in: 1...60, using: &random) {
                try batch.add(kind: .dataSealed, payload: Array(repeating: 7, count: Int.random(in: 0...300, using: &random)))
            }
            let frames = Int.random(in: 1...10, using: &random)
            let bytes = Int.random(in: 100...2_000, using: &random)
            let pieces = batch.pieces(maximumFrames: frames, maximumBytes: bytes)
            #expect(pieces.first?.base == base && pieces.last?.head == batch.head, "\(random)")
            for (earlier, later) in zip(pieces, pieces.dropFirst()) { #expect(later.base == earlier.head, "\(random)") }
            for piece in pieces {
                #expect(!piece.isEmpty && piece.count <= frames, "\(random)")
                #expect(piece.count == 1 || piece.bytes.count <= bytes, "\(random)")
            }
            #expect(pieces.flatMap(\.bytes) == batch.bytes && pieces.flatMap(\.encodedFrames) == batch.encodedFrames, "\(random)")
        }
    }

    @Test("A journal's frames read as one batch, hashing nothing, are the batches that appended them: bytes, heads, each frame's hash")
    func journalFramesAreTheAppendedBatch() throws {
        var random = TestRandom()
        let directory = try TemporaryDirectory()
        let path = directory.file("copy.journal")
        var written = FrameBatch(after: JournalHead(sequence: 0, hash: []), path: path)
        do {
            let journal = try Journal.create(at: path, household: true)
            written = FrameBatch(after: journal.head, path: path)
            for _ in 0..<3 {
                var batch = journal.makeBatch()
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    let payload = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    try batch.add(kind: .householdEvent, payload: payload)
                    try written.add(kind: .householdEvent, payload: payload)
                }
                #expect(try journal.append(batch) == .appended(batch.head))
            }
        }
        let read = try Journal.open(at: path, access: .readOnly).frames()
        #expect(read.base == written.base && read.head == written.head && read.count == written.count)
        #expect(read.bytes == written.bytes && read.encodedFrames == written.encodedFrames)
        let heads = { (batch: FrameBatch) in batch.pieces(maximumFrames: 1, maximumBytes: .max).map(\.head) }
        #expect(heads(read) == heads(written))
    }

    @Test("A journal changed under it after it opened hands out no batch: a frame's length or number not as verified is refused")
    func journalChangedAfterOpeningIsRefused() throws {
        let directory = try TemporaryDirectory()
        for (name, patch) in [("length", 0), ("sequence", 4)] {
            let path = directory.file("\(name).journal")
            let bytes = try makeJournal(at: path, payloads: payloads(sizes: [40, 70, 10]))
            let journal = try Journal.open(at: path, access: .readOnly)
            // Frame 2's length or sequence number, changed by something ignoring the lock.
            let second = frameRanges(bytes)[1].lowerBound
            try patchByte(path, at: second + patch, to: bytes[second + patch] &+ 1)
            let error = caught(JournalError.self) { _ = try journal.frames() }
            #expect(error?.code == .corrupt(JournalProblem(sequence: 1, offset: nil, damage: .changedWhileOpen)), "\(name)")
        }
    }

    @Test("Frames kept as one buffer read as they came: taken in one by one or as a whole copy, the same payloads, chain and stored bytes")
    func verifiedFramesReadAsTakenIn() throws {
        var random = TestRandom()
        let header = try VerifiedFrames.newHeader(journalID: Array(repeating: 9, count: 16), path: "test", household: true).header
        let genesis = JournalHead(sequence: 0, hash: header.genesisHash)
        var batch = FrameBatch(after: genesis, path: "test")
        for _ in 0..<40 {
            let payload = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            try batch.add(kind: .householdEvent, payload: payload)
        }
        var oneByOne = VerifiedFrames(header: header, path: "test")
        try oneByOne.takeIn(batch.encodedFrames)
        var whole = VerifiedFrames(header: header, path: "test")
        whole.accept(batch)
        let read = { (frames: VerifiedFrames, after: UInt64) throws -> [[UInt8]] in
            var seen: [[UInt8]] = []
            try frames.read(after: after, progress: nil) { frame in
                seen.append([UInt8(frame.sequence)] + Array(frame.previousHash) + Array(frame.payload))
            }
            return seen
        }
        // What each frame chains to and carries, from the batch that made them.
        let pieces = batch.pieces(maximumFrames: 1, maximumBytes: .max)
        let expected = pieces.map { piece in
            [UInt8(piece.head.sequence)] + piece.base.hash + Array(piece.bytes[21..<(piece.bytes.count - 32)])
        }
        for after in [0, 1, 17, 39, 40] {
            #expect(try read(oneByOne, UInt64(after)) == Array(expected.dropFirst(after)), "after \(after)")
            #expect(try read(whole, UInt64(after)) == Array(expected.dropFirst(after)), "after \(after)")
            let stored = whole.storedFrames(through: UInt64(after))
            #expect(stored.bytes == pieces.prefix(after).flatMap(\.bytes) && stored.head == (pieces.prefix(after).last?.head ?? genesis))
        }
        #expect(oneByOne.frames == batch.encodedFrames && whole.frames == batch.encodedFrames)
        #expect(oneByOne.head == batch.head && whole.head == batch.head && oneByOne.index == whole.index)
    }
}
