import Foundation
import GiftKeeperWire
import Testing

/// A page of frames in binary (SPEC §12, ``BinaryFramePage``): what a clone reads. It
/// decodes to the page it encodes, its frames where they lie; anything but a whole page
/// — cut short, longer, another format or version, a count or a length that does not
/// match — is refused as a whole, never read in part and never a crash.
@Suite("Binary pages of frames")
struct BinaryFramePageTests {
    static let head = WireHead(sequence: 7, hash: Data((0..<32).map { UInt8($0) }))
    static let page = FramePage(
        after: 4, frames: [Data([1, 2, 3]), Data(), Data(repeating: 0xEE, count: 300)], head: head,
        epoch: Data(repeating: 9, count: 16))

    func read(_ bytes: [UInt8]) -> BinaryFramePage.Decoded? {
        bytes.withUnsafeBytes { BinaryFramePage.decode($0) }
    }

    @Test("a page decodes to what was encoded, each frame where it lies, with or without an epoch and frames")
    func roundTrip() throws {
        for page in [Self.page, FramePage(after: 0, frames: [], head: Self.head)] {
            let bytes = BinaryFramePage.encode(page)
            let decoded = try #require(read(bytes))
            #expect(decoded.after == page.after)
            #expect(decoded.head == page.head)
            #expect(decoded.epoch == page.epoch)
            #expect(decoded.frames.map { Data(bytes[$0]) } == page.frames)
        }
        let sizes = BinaryFramePage.header(after: 4, head: Self.head, epoch: nil, frameCount: 0).count
        #expect(sizes == 5 + 8 + 8 + 33 + 1 + 4, "the header's layout")
        #expect(BinaryFramePage.framePrefix(length: 0x0102) == [2, 1, 0, 0], "a frame's length, little-endian")
    }

    @Test("a page cut short anywhere, or followed by anything, is refused whole")
    func cutOrLonger() {
        let bytes = BinaryFramePage.encode(Self.page)
        for end in 0..<bytes.count {
            #expect(read(Array(bytes.prefix(end))) == nil, "cut at \(end) of \(bytes.count)")
        }
        #expect(read(bytes + [0]) == nil)
        #expect(read(bytes + BinaryFramePage.framePrefix(length: 0)) == nil, "a frame more than the count says")
    }

    @Test("another format, another version, a count or a frame's length that does not match: refused")
    func malformed() {
        let bytes = BinaryFramePage.encode(Self.page)
        var json = Array(#"{"after":0,"frames":[],"head":{"sequence":0,"hash":""}}"#.utf8)
        #expect(read(json) == nil)
        json = bytes
        json[4] = 2  // a version this device does not know
        #expect(read(json) == nil)
        let countAt = 5 + 8 + 8 + 33 + 17
        var more = bytes
        more[countAt] = 4  // four frames said, three there
        #expect(read(more) == nil)
        var huge = bytes
        huge[countAt + 3] = 0xFF  // billions said: refused before anything is reserved for them
        #expect(read(huge) == nil)
        var long = bytes
        long[countAt + 4] = 4  // the first frame said to be one byte longer than it is
        #expect(read(long) == nil)
        #expect(read([]) == nil)
    }
}
