/// BLAKE2b hashing (`crypto_generichash`), for the journal's hash chain and for
/// authenticating the remembered journal head.
public enum Blake2b {
    /// The digest length the journal uses: 32 bytes.
    public static let digestLength = 32

    /// BLAKE2b-256 of `bytes`, optionally keyed by public bytes `key` (at most 64).
    ///
    /// The journal chains frames by keying each frame's hash with the previous frame's
    /// hash, which hashes both in one pass over contiguous file bytes.
    /// The corresponding C function is `crypto_generichash`.
    public static func hash(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer? = nil) -> [UInt8] {
        var digest = [UInt8].zeroed(count: digestLength)
        digest.withUnsafeMutableBytes { out in
            hash(bytes, key: key, into: out)
        }
        return digest
    }

    /// BLAKE2b-256 of `bytes` written into `output` (exactly 32 bytes), for hot loops
    /// that must not allocate.
    public static func hash(
        _ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer?, into output: UnsafeMutableRawBufferPointer
    ) {
        precondition(output.count == digestLength, "BLAKE2b output buffer must be 32 bytes")
        precondition((key?.count ?? 0) <= SodiumConstant.genericHashKeyBytesMax, "BLAKE2b key too long")
        // crypto_generichash only fails on out-of-range lengths, which the preconditions exclude.
        _ = LibSodium.readyOrTrap.genericHash(output, bytes, key: key)
    }

    /// BLAKE2b-256 of an array, optionally keyed by public bytes.
    public static func hash(_ bytes: [UInt8], key: [UInt8]? = nil) -> [UInt8] {
        bytes.withUnsafeBytes { b in
            if let key {
                return key.withUnsafeBytes { k in hash(b, key: k) }
            }
            return hash(b, key: nil)
        }
    }

    /// Keyed BLAKE2b-256 (a MAC) of `bytes` under a secret key (16 to 64 bytes).
    public static func mac(_ bytes: [UInt8], key: SecureBytes) throws -> [UInt8] {
        guard key.count >= SodiumConstant.genericHashKeyBytesMin, key.count <= SodiumConstant.genericHashKeyBytesMax else {
            throw CryptoError(.invalidLength(what: "MAC key", expected: digestLength, actual: key.count))
        }
        return bytes.withUnsafeBytes { b in
            key.withUnsafeBytes { k in hash(b, key: k) }
        }
    }

    /// Whether `tag` (public bytes, at most 32) is the first `tag.count` bytes of the keyed
    /// BLAKE2b-256 of `bytes` under the secret `key`, compared in constant time; no array is
    /// made (a household member's device checks one or more tags of every frame).
    public static func macPrefixMatches(_ bytes: UnsafeRawBufferPointer, key: SecureBytes, tag: UnsafeRawBufferPointer) -> Bool {
        guard key.count >= SodiumConstant.genericHashKeyBytesMin, key.count <= SodiumConstant.genericHashKeyBytesMax,
            !tag.isEmpty, tag.count <= digestLength
        else { return false }
        let sodium = LibSodium.readyOrTrap
        return withUnsafeTemporaryAllocation(byteCount: digestLength, alignment: 8) { digest in
            key.withUnsafeBytes { k in hash(bytes, key: k, into: digest) }
            return sodium.equal(UnsafeRawBufferPointer(digest).uint8Pointer, tag.uint8Pointer, count: tag.count)
        }
    }
}
