/// One readable byte for libsodium calls on empty buffers: several of its functions are
/// declared `nonnull` even when the length is zero.
nonisolated(unsafe) private let emptyByte: UnsafeMutablePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return pointer
}()

extension UnsafeRawBufferPointer {
    /// The start as a byte pointer; a valid dummy for an empty buffer.
    var uint8Pointer: UnsafePointer<UInt8> {
        guard let base = baseAddress else { return UnsafePointer(emptyByte) }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The start as a byte pointer; a valid dummy for an empty buffer (never written:
    /// callers only pass it with a zero length).
    var uint8Pointer: UnsafeMutablePointer<UInt8> {
        guard let base = baseAddress else { return emptyByte }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension [UInt8] {
    /// `count` zero bytes, for libsodium to write into. Made as a copy of repeated zeros,
    /// which the compiler specializes: `init(repeating:count:)` and
    /// `init(unsafeUninitializedCapacity:)` stay generic in the standard library and look the
    /// array's type up in the runtime's metadata cache on every call (two BLAKE2b digests and
    /// an AEAD output a frame).
    static func zeroed(count: Int) -> [UInt8] {
        Array(repeatElement(0, count: count))
    }
}
