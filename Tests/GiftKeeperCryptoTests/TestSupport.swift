import GiftKeeperCrypto

/// Bytes from a hex string; whitespace is ignored so long vectors can be wrapped.
/// Traps on malformed hex: vectors are hard-coded, so that is a bug in the test.
func hex(_ string: String) -> [UInt8] {
    let digits = string.filter { !$0.isWhitespace }
    precondition(digits.count.isMultiple(of: 2), "odd-length hex")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex") }
        bytes.append(byte)
        index = next
    }
    return bytes
}

/// Lower-case hex of `bytes`, for readable failure messages.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}

extension SecureBytes {
    /// Guarded memory holding a copy of `bytes` (test fixtures only: real secrets never
    /// pass through a Swift array).
    convenience init(testBytes bytes: [UInt8]) throws {
        try self.init(capacity: bytes.count)
        withUnsafeMutableBytes { destination in
            destination.copyBytes(from: bytes)
        }
    }

    /// The bytes in use, copied out for comparison.
    var testBytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }
}

/// Every way of flipping one bit in `bytes`, restricted to `range`.
func singleBitFlips(of bytes: [UInt8], in range: Range<Int>) -> [[UInt8]] {
    var variants: [[UInt8]] = []
    for index in range {
        for bit in 0..<8 {
            var copy = bytes
            copy[index] ^= UInt8(1) << UInt8(bit)
            variants.append(copy)
        }
    }
    return variants
}
