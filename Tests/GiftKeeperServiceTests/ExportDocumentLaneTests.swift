import GiftKeeperDomain
import Testing

@testable import GiftKeeperService

/// The export document written a block of presents at a time on each of two lanes: the
/// bytes of `JSONEncoder`, whatever the block and the chunk sizes.
@Suite struct ExportDocumentLaneTests {
    @Test(arguments: 0..<12)
    func blocksOnTwoLanesWriteTheSameDocument(seed: UInt64) throws {
        let state = ImportParserTests.randomState(seed: seed, presents: 9 + Int(seed) * 4)
        let whole = try ExportDocument.encodeWithFoundation(state)
        for presentsPerBlock in [1, 2, 3, 5, 8, ExportDocument.presentsPerBlock] {
            for chunkSize in [1, 100, 1 << 20] {
                var chunks: [ArraySlice<UInt8>] = []
                ExportDocument.write(state, chunkSize: chunkSize, presentsPerBlock: presentsPerBlock) { chunks.append($0) }
                #expect(chunks.allSatisfy { !$0.isEmpty && $0.count <= chunkSize })
                #expect(chunks.dropLast().allSatisfy { $0.count == chunkSize })
                #expect(Array(chunks.joined()) == whole, "\(presentsPerBlock) presents per block, chunks of \(chunkSize)")
            }
        }
    }
}
