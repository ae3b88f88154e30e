import GiftKeeperDocuments
import GiftKeeperDomain
import Testing

@testable import GiftKeeperService

/// The export document handed over a chunk at a time: the bytes of `JSONEncoder`, whatever
/// the chunk size, every chunk full but the last.
@Suite struct ExportDocumentChunkTests {
    @Test(arguments: 0..<12)
    func chunksOfAnySizeMakeTheSameDocument(seed: UInt64) throws {
        let state = try ImportParserTests.randomState(seed: seed, presents: 9 + Int(seed) * 4)
        let whole = try ExportDocument.encodeWithFoundation(state)
        for chunkSize in [1, 100, 1 << 20] {
            var chunks: [ArraySlice<UInt8>] = []
            ExportDocument.write(state, chunkSize: chunkSize) { chunks.append($0) }
            #expect(chunks.allSatisfy { !$0.isEmpty && $0.count <= chunkSize })
            #expect(chunks.dropLast().allSatisfy { $0.count == chunkSize })
            #expect(Array(chunks.joined()) == whole, "chunks of \(chunkSize)")
        }
    }
}
