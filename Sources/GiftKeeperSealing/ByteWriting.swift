/// Little-endian helpers for the small binary layouts the service writes (key wraps,
/// additional data, the remembered head). Internal: the formats are documented in
/// docs/journal-format.md.
extension Array where Element == UInt8 {
    package mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// A cursor over bytes that never traps: every read checks the bounds.
package struct ByteReader {
    private let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var remaining: Int { bytes.count - offset }

    package mutating func read(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    package mutating func readByte() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readLittleEndian<T: FixedWidthInteger>(_: T.Type) -> T? {
        guard let raw = read(MemoryLayout<T>.size) else { return nil }
        var value = T.zero
        for (index, byte) in raw.enumerated() {
            value |= T(byte) << (8 * index)
        }
        return value
    }

    /// The bytes from `start` up to the current offset.
    package func consumed(from start: Int) -> [UInt8] {
        Array(bytes[start..<offset])
    }
}
