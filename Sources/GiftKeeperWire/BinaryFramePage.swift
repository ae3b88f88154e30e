public import Foundation

/// A page of frames (``FramePage``) as bytes: what a device that asks for it
/// (`Accept: application/vnd.giftkeeper.frame-page`) gets from
/// `GET /v1/journals/ID/frames` instead of JSON. A clone reads a whole journal in pages;
/// as JSON each frame is base64 in a string that the service encodes and the device
/// decodes (4/3 of the bytes, and most of a clone's time). Here each frame goes as it is,
/// after its length.
///
/// The layout, integers little-endian:
///
/// | bytes | what |
/// |---|---|
/// | 5 | `GKFP` and the version, 1 |
/// | 8 | ``FramePage/after`` |
/// | 8 | the head's sequence number |
/// | 1 + n | the head's hash: its length, then its bytes |
/// | 1 + n | the epoch: its length (0: none), then its bytes |
/// | 4 | how many frames follow |
/// | (4 + n) each | a frame: its length, then its bytes |
///
/// Nothing follows the last frame. A device refuses anything else whole (``decode(_:)``);
/// the frames it takes are verified against the chain as those of a JSON page are.
public enum BinaryFramePage {
    /// The media type a device asks for and the service answers with.
    public static let mediaType = "application/vnd.giftkeeper.frame-page"
    /// The first bytes: `GKFP` and the format's version.
    static let magic: [UInt8] = Array("GKFP".utf8) + [1]
    /// The longest hash or epoch the format carries.
    static let maximumFieldLength = 255

    /// A page read from bytes: its frames are where they lie in those bytes.
    public struct Decoded: Sendable, Equatable {
        public var after: UInt64
        public var head: WireHead
        public var epoch: Data?
        /// Each frame's place in the bytes decoded.
        public var frames: [Range<Int>]
    }

    /// The bytes before the frames of a page after `after` holding `frameCount` frames.
    /// A hash or an epoch longer than 255 bytes is not a head's (the service holds 32 and
    /// 16) and is cut.
    public static func header(after: UInt64, head: WireHead, epoch: Data?, frameCount: Int) -> [UInt8] {
        var bytes = magic
        append(after, to: &bytes)
        append(head.sequence, to: &bytes)
        field(Array(head.hash), to: &bytes)
        field(epoch.map { Array($0) } ?? [], to: &bytes)
        append(UInt32(truncatingIfNeeded: frameCount), to: &bytes)
        return bytes
    }

    /// The bytes before a frame of `length` bytes.
    public static func framePrefix(length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt32(truncatingIfNeeded: length), to: &bytes)
        return bytes
    }

    /// `page` as bytes (the service writes the same parts straight into its answer).
    public static func encode(_ page: FramePage) -> [UInt8] {
        var bytes = header(after: page.after, head: page.head, epoch: page.epoch, frameCount: page.frames.count)
        for frame in page.frames {
            bytes += framePrefix(length: frame.count)
            bytes += frame
        }
        return bytes
    }

    /// The page `bytes` hold; nil when they are not one page whole: another format or
    /// version, a length running past the end, fewer or more frames than said, or
    /// anything after the last.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> Decoded? {
        var reader = Reader(bytes: bytes)
        guard reader.take(magic.count).map({ Array($0) == magic }) == true,
            let after = reader.integer(UInt64.self), let sequence = reader.integer(UInt64.self),
            let hash = reader.field(), let epoch = reader.field(), let count = reader.integer(UInt32.self),
            Int(count) <= reader.remaining / 4
        else { return nil }
        var frames: [Range<Int>] = []
        frames.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let length = reader.integer(UInt32.self), let frame = reader.range(Int(length)) else { return nil }
            frames.append(frame)
        }
        guard reader.remaining == 0 else { return nil }
        return Decoded(
            after: after, head: WireHead(sequence: sequence, hash: Data(hash)), epoch: epoch.isEmpty ? nil : Data(epoch),
            frames: frames)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func field(_ value: [UInt8], to bytes: inout [UInt8]) {
        let kept = value.prefix(maximumFieldLength)
        bytes.append(UInt8(kept.count))
        bytes += kept
    }

    /// Reads `bytes` from the front, never past the end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func range(_ count: Int) -> Range<Int>? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return offset..<offset + count
        }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer.SubSequence? {
            range(count).map { bytes[$0] }
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            take(MemoryLayout<T>.size).map { T(littleEndian: UnsafeRawBufferPointer(rebasing: $0).loadUnaligned(as: T.self)) }
        }

        mutating func field() -> [UInt8]? {
            guard let length = take(1)?.first else { return nil }
            return take(Int(length)).map { Array($0) }
        }
    }
}
