/// ISO/IEC 7816-4 padding to a block size (`sodium_pad`, `sodium_unpad`), so that the length
/// of what is sealed tells only how many blocks it fills, not how long its text is.
///
/// Padding always adds at least one byte (`0x80`, then zeros up to the block boundary).
public enum Padding {
    /// `bytes` padded to the next multiple of `blockSize` (at least one byte more). Taken
    /// over, not copied: an event's bytes, made to be sealed, are padded where they are.
    public static func padded(_ bytes: consuming [UInt8], blockSize: Int) throws -> [UInt8] {
        let library = try LibSodium.ready()
        precondition(blockSize > 0, "block size must be positive")
        var out = bytes
        let unpadded = out.count
        out.append(contentsOf: repeatElement(0, count: blockSize - unpadded % blockSize))
        let length = out.withUnsafeMutableBytes { library.pad($0, unpadded: unpadded, blockSize: blockSize) }
        guard length == out.count else { throw CryptoError(.operationFailed(function: "sodium_pad")) }
        return out
    }

    /// The length of what `padded` holds before its padding; nil when it is not padded to
    /// `blockSize` (a length that is not a multiple, or no `0x80` marker where one belongs).
    public static func unpaddedLength(_ padded: [UInt8], blockSize: Int) -> Int? {
        guard blockSize > 0, !padded.isEmpty, padded.count % blockSize == 0 else { return nil }
        return padded.withUnsafeBytes { LibSodium.readyOrTrap.unpad($0, blockSize: blockSize) }
    }

    /// ``unpaddedLength(_:blockSize:)-([UInt8],_)`` of bytes where they lie (an opened frame's tail).
    public static func unpaddedLength(_ padded: UnsafeRawBufferPointer, blockSize: Int) -> Int? {
        guard blockSize > 0, !padded.isEmpty, padded.count % blockSize == 0 else { return nil }
        return LibSodium.readyOrTrap.unpad(padded, blockSize: blockSize)
    }
}
