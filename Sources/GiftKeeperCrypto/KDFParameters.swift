/// The cost of Argon2id password hashing, stored in the journal so each journal opens
/// with the cost it was made with.
///
/// Values read from a file pass ``init(validatingOpsLimit:memLimit:)``, which refuses
/// anything beyond sane bounds before any work, so a hostile file cannot make the
/// program hang or exhaust memory.
public struct KDFParameters: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Argon2id v1.3 — the only algorithm format v1 knows.
    public static let argon2id13: UInt8 = 2

    /// Number of passes (`opslimit`).
    public let opsLimit: UInt64
    /// Memory in bytes (`memlimit`).
    public let memLimit: UInt64

    /// Largest accepted opslimit: libsodium's SENSITIVE (4), the most `setup` ever writes.
    /// A journal whose stored cost was raised can then cost at most what `sensitive` costs
    /// (seconds), never minutes and gigabytes per login.
    public static let maximumOpsLimit = SodiumConstant.passwordOpsLimitSensitive
    /// Largest accepted memlimit: libsodium's SENSITIVE (1 GiB).
    public static let maximumMemLimit = SodiumConstant.passwordMemLimitSensitive

    /// ~0.1 s here: libsodium's INTERACTIVE (2 passes, 64 MiB). The lowest production cost.
    public static let interactive = KDFParameters(
        unchecked: SodiumConstant.passwordOpsLimitInteractive, memLimit: SodiumConstant.passwordMemLimitInteractive)
    /// ~0.7 s here: libsodium's MODERATE (3 passes, 256 MiB). The default.
    public static let moderate = KDFParameters(
        unchecked: SodiumConstant.passwordOpsLimitModerate, memLimit: SodiumConstant.passwordMemLimitModerate)
    /// Several seconds: libsodium's SENSITIVE (4 passes, 1 GiB).
    public static let sensitive = KDFParameters(
        unchecked: SodiumConstant.passwordOpsLimitSensitive, memLimit: SodiumConstant.passwordMemLimitSensitive)
    /// libsodium's minimum (1 pass, 8 KiB). **Tests only**: production code never writes
    /// it; the service accepts it only through its explicit test-only switch.
    public static let testMinimum = KDFParameters(
        unchecked: SodiumConstant.passwordOpsLimitMin, memLimit: SodiumConstant.passwordMemLimitMin)

    private init(unchecked opsLimit: UInt64, memLimit: UInt64) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// Accepts stored parameters only within libsodium's minimum and this program's maximum.
    /// - Throws: ``CryptoError/Code/unsafeKDFParameters(opsLimit:memLimit:)`` otherwise.
    public init(validatingOpsLimit opsLimit: UInt64, memLimit: UInt64) throws {
        guard opsLimit >= SodiumConstant.passwordOpsLimitMin, opsLimit <= Self.maximumOpsLimit,
            memLimit >= SodiumConstant.passwordMemLimitMin, memLimit <= Self.maximumMemLimit
        else {
            throw CryptoError(.unsafeKDFParameters(opsLimit: opsLimit, memLimit: memLimit))
        }
        self.init(unchecked: opsLimit, memLimit: memLimit)
    }

    /// Whether this cost is at least ``interactive`` (what production may write).
    public var isProductionStrength: Bool {
        opsLimit >= Self.interactive.opsLimit && memLimit >= Self.interactive.memLimit
    }

    /// The preset's name, or the raw figures.
    public var description: String {
        switch self {
        case .interactive: return "interactive"
        case .moderate: return "moderate"
        case .sensitive: return "sensitive"
        case .testMinimum: return "test-minimum"
        default: return "opslimit \(opsLimit), memlimit \(Self.describeMemory(memLimit))"
        }
    }

    /// Whole MiB or KiB when exact, otherwise bytes (`memLimit >> 20` alone showed 64 KiB as "0 MiB").
    private static func describeMemory(_ bytes: UInt64) -> String {
        if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

/// Argon2id password-based key derivation (`crypto_pwhash`).
public enum PasswordKDF {
    /// Salt length: 16 bytes (`crypto_pwhash_SALTBYTES`).
    public static let saltLength = SodiumConstant.passwordSaltBytes

    /// A fresh random salt; one per account and per password change.
    public static func generateSalt() throws -> [UInt8] {
        try randomBytes(count: saltLength)
    }

    /// Derives a `keyLength`-byte key from `password` into guarded memory.
    ///
    /// The password must already be NFC-normalised UTF-8. The corresponding C function is
    /// `crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`.
    public static func deriveKey(
        password: SecureBytes, salt: [UInt8], parameters: KDFParameters, keyLength: Int = AEAD.keyLength
    ) throws -> SecureBytes {
        let sodium = try LibSodium.ready()
        guard salt.count == saltLength else {
            throw CryptoError(.invalidLength(what: "salt", expected: saltLength, actual: salt.count))
        }
        // Re-validate: a parameters value can only be made valid, but be explicit at the C edge.
        _ = try KDFParameters(validatingOpsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        let key = try SecureBytes(capacity: keyLength)
        let result = key.withUnsafeMutableBytes { out in
            password.withUnsafeBytes { pw in
                salt.withUnsafeBytes { saltBytes in
                    UnsafeRawPointer(pw.uint8Pointer).withMemoryRebound(to: CChar.self, capacity: max(pw.count, 1)) { pwChars in
                        sodium.passwordHash(
                            out, password: pwChars, passwordCount: pw.count, salt: saltBytes,
                            opsLimit: parameters.opsLimit, memLimit: Int(parameters.memLimit))
                    }
                }
            }
        }
        guard result == 0 else {
            key.wipe()
            throw CryptoError(.keyDerivationFailed)
        }
        return key
    }
}
