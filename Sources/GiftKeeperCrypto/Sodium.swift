import CSodium

/// One-time libsodium initialisation.
///
/// Every entry point of this module calls ``Sodium/ensureInitialized()`` first, so
/// callers never have to. The corresponding C function is `sodium_init`.
public enum Sodium {
    private static let initResult: Int32 = sodium_init()

    /// Initialises libsodium once; later calls are free.
    /// - Throws: ``CryptoError/Code/initializationFailed`` when `sodium_init` reports failure.
    public static func ensureInitialized() throws {
        // sodium_init returns 0 on first success, 1 when already initialised, -1 on failure.
        if initResult < 0 {
            throw CryptoError(.initializationFailed)
        }
    }

    /// The libsodium version string, for `--version` output.
    public static var libraryVersion: String {
        String(cString: sodium_version_string())
    }
}

/// Cryptographically secure random bytes (`randombytes_buf`). Not for secrets: use
/// ``SecureBytes/random(count:)`` for those.
public func randomBytes(count: Int) throws -> [UInt8] {
    try Sodium.ensureInitialized()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress {
            randombytes_buf(base, buffer.count)
        }
    }
    return bytes
}

/// Constant-time comparison of two public byte strings of equal length (`sodium_memcmp`).
public func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.isEmpty { return true }
    return lhs.withUnsafeBytes { l in
        rhs.withUnsafeBytes { r in
            sodium_memcmp(l.baseAddress, r.baseAddress, l.count) == 0
        }
    }
}
