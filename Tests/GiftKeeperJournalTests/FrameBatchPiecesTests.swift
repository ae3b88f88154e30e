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
}
