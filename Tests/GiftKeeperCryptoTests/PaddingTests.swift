import Testing

@testable import GiftKeeperCrypto

/// ISO/IEC 7816-4 padding to 64-byte blocks (journal format version 2).
@Suite struct PaddingTests {
    @Test("Padding fills to the next whole block, always adding a byte, and unpadding gives the length back", arguments: [0, 1, 63, 64, 65, 200])
    func roundTrip(length: Int) throws {
        let bytes = [UInt8](repeating: 0x41, count: length)
        let padded = try Padding.padded(bytes, blockSize: 64)
        #expect(padded.count % 64 == 0)
        #expect(padded.count > length && padded.count <= length + 64)
        #expect(Array(padded.prefix(length)) == bytes)
        #expect(padded[length] == 0x80)
        #expect(Padding.unpaddedLength(padded, blockSize: 64) == length)
    }

    @Test("What is not padded is refused: no marker, a length that is not a whole number of blocks, nothing")
    func unpaddedIsRefused() {
        #expect(Padding.unpaddedLength([UInt8](repeating: 0, count: 64), blockSize: 64) == nil)
        #expect(Padding.unpaddedLength([UInt8](repeating: 0x80, count: 63), blockSize: 64) == nil)
        #expect(Padding.unpaddedLength([], blockSize: 64) == nil)
    }
}
