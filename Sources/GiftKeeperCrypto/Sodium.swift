import CSodium

// This is the only file in GiftKeeper that imports CSodium, so the only place that can
// name a libsodium function. Every call into libsodium is a method of `LibSodium`, whose
// one value exists only once `sodium_init` has run: no path can reach libsodium first.
// That matters for speed as well as for safety: `sodium_init` detects the CPU and picks
// the fast BLAKE2b, ChaCha20 and Argon2 implementations; a hash computed before it runs
// uses the slow reference BLAKE2b (2.2 × the instructions per frame). The test
// `SodiumInitializationTests` holds this file to that shape and checks, in fresh
// processes, that each entry point of this module initialises libsodium first.

/// libsodium's functions, callable only through ``initialized`` (or ``ready()``).
struct LibSodium: Sendable {
    /// The one value, made right after `sodium_init` succeeded (nil when it failed, which
    /// it does only when the library cannot be used at all). A `static let` is initialised
    /// once, on first use, thread-safely.
    private static let initialized: LibSodium? = sodium_init() >= 0 ? LibSodium() : nil

    private init() {}

    /// libsodium, initialised.
    /// - Throws: ``CryptoError/Code/initializationFailed`` when `sodium_init` failed.
    static func ready() throws -> LibSodium {
        guard let library = initialized else { throw CryptoError(.initializationFailed) }
        return library
    }

    /// libsodium, initialised, for calls that cannot fail otherwise (hashing): a process
    /// in which `sodium_init` failed cannot do anything, so it stops here.
    static var readyOrTrap: LibSodium {
        guard let library = initialized else { preconditionFailure("libsodium could not be initialised") }
        return library
    }

    func versionString() -> String {
        String(cString: sodium_version_string())
    }

    func randomBytes(_ output: UnsafeMutableRawPointer, count: Int) {
        randombytes_buf(output, count)
    }

    func equal(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, count: Int) -> Bool {
        sodium_memcmp(lhs, rhs, count) == 0
    }

    func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        sodium_malloc(count)
    }

    func zero(_ pointer: UnsafeMutableRawPointer, count: Int) {
        sodium_memzero(pointer, count)
    }

    func free(_ pointer: UnsafeMutableRawPointer) {
        sodium_free(pointer)
    }

    func genericHash(
        _ output: UnsafeMutableRawBufferPointer, _ input: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer?
    ) -> Int32 {
        let keyCount = key?.count ?? 0
        return crypto_generichash(
            output.uint8Pointer, output.count, input.uint8Pointer, UInt64(input.count),
            keyCount > 0 ? key?.uint8Pointer : nil, keyCount)
    }

    func aeadEncrypt(
        _ ciphertext: UnsafeMutablePointer<UInt8>, _ message: UnsafeRawBufferPointer,
        additionalData: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>, key: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_aead_xchacha20poly1305_ietf_encrypt(
            ciphertext, nil, message.uint8Pointer, UInt64(message.count),
            additionalData.uint8Pointer, UInt64(additionalData.count), nil, nonce, key.uint8Pointer)
    }

    func aeadDecrypt(
        _ message: UnsafeMutableRawBufferPointer, _ ciphertext: UnsafePointer<UInt8>, count: Int,
        additionalData: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>, key: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_aead_xchacha20poly1305_ietf_decrypt(
            message.uint8Pointer, nil, nil, ciphertext, UInt64(count),
            additionalData.uint8Pointer, UInt64(additionalData.count), nonce, key.uint8Pointer)
    }

    func boxKeyPair(publicKey: UnsafeMutableRawBufferPointer, secretKey: UnsafeMutableRawBufferPointer) -> Int32 {
        crypto_box_keypair(publicKey.uint8Pointer, secretKey.uint8Pointer)
    }

    func boxSeal(
        _ output: UnsafeMutableRawBufferPointer, _ message: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_box_seal(output.uint8Pointer, message.uint8Pointer, UInt64(message.count), publicKey.uint8Pointer)
    }

    func boxSealOpen(
        _ output: UnsafeMutableRawBufferPointer, _ sealed: UnsafeRawBufferPointer,
        publicKey: UnsafeRawBufferPointer, secretKey: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_box_seal_open(
            output.uint8Pointer, sealed.uint8Pointer, UInt64(sealed.count), publicKey.uint8Pointer,
            secretKey.uint8Pointer)
    }

    func signSeedKeyPair(
        publicKey: UnsafeMutableRawBufferPointer, secretKey: UnsafeMutableRawBufferPointer, seed: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_sign_seed_keypair(publicKey.uint8Pointer, secretKey.uint8Pointer, seed.uint8Pointer)
    }

    func signDetached(
        _ signature: UnsafeMutableRawBufferPointer, _ message: UnsafeRawBufferPointer, secretKey: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_sign_detached(signature.uint8Pointer, nil, message.uint8Pointer, UInt64(message.count), secretKey.uint8Pointer)
    }

    func verifyDetached(
        _ signature: UnsafeRawBufferPointer, _ message: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_sign_verify_detached(signature.uint8Pointer, message.uint8Pointer, UInt64(message.count), publicKey.uint8Pointer)
    }

    func deriveSubkey(
        _ output: UnsafeMutableRawBufferPointer, id: UInt64, context: UnsafePointer<CChar>,
        masterKey: UnsafeRawBufferPointer
    ) -> Int32 {
        crypto_kdf_derive_from_key(output.uint8Pointer, output.count, id, context, masterKey.uint8Pointer)
    }

    func passwordHash(
        _ output: UnsafeMutableRawBufferPointer, password: UnsafePointer<CChar>, passwordCount: Int,
        salt: UnsafeRawBufferPointer, opsLimit: UInt64, memLimit: Int
    ) -> Int32 {
        crypto_pwhash(
            output.uint8Pointer, UInt64(output.count), password, UInt64(passwordCount), salt.uint8Pointer,
            opsLimit, memLimit, gk_pwhash_alg_argon2id13())
    }

    /// ISO/IEC 7816-4 padding of the first `unpadded` bytes of `buffer` to a multiple of
    /// `blockSize`; the padded length, or nil when `buffer` is too small.
    func pad(_ buffer: UnsafeMutableRawBufferPointer, unpadded: Int, blockSize: Int) -> Int? {
        var padded = 0
        return sodium_pad(&padded, buffer.uint8Pointer, unpadded, blockSize, buffer.count) == 0 ? padded : nil
    }

    /// The length before the padding of a padded `buffer`; nil when it is not padded.
    func unpad(_ buffer: UnsafeRawBufferPointer, blockSize: Int) -> Int? {
        var unpadded = 0
        return sodium_unpad(&unpadded, buffer.uint8Pointer, buffer.count, blockSize) == 0 ? unpadded : nil
    }
}

/// libsodium's sizes and limits: compile-time constants, which call nothing.
enum SodiumConstant {
    static let aeadKeyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let aeadNonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let aeadTagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    static let boxPublicKeyBytes = Int(crypto_box_PUBLICKEYBYTES)
    static let signPublicKeyBytes = Int(crypto_sign_PUBLICKEYBYTES)
    static let signSecretKeyBytes = Int(crypto_sign_SECRETKEYBYTES)
    static let signSeedBytes = Int(crypto_sign_SEEDBYTES)
    static let signatureBytes = Int(crypto_sign_BYTES)
    static let boxSecretKeyBytes = Int(crypto_box_SECRETKEYBYTES)
    /// `crypto_box_SEALBYTES`: an ephemeral public key and a MAC.
    static let boxSealBytes = Int(crypto_box_PUBLICKEYBYTES) + Int(crypto_box_MACBYTES)
    static let genericHashKeyBytesMin = Int(crypto_generichash_KEYBYTES_MIN)
    static let genericHashKeyBytesMax = Int(crypto_generichash_KEYBYTES_MAX)
    static let kdfKeyBytes = Int(crypto_kdf_KEYBYTES)
    static let kdfContextBytes = Int(crypto_kdf_CONTEXTBYTES)
    static let passwordSaltBytes = Int(crypto_pwhash_SALTBYTES)
    static let passwordOpsLimitMin = UInt64(crypto_pwhash_OPSLIMIT_MIN)
    static let passwordMemLimitMin = UInt64(crypto_pwhash_MEMLIMIT_MIN)
    static let passwordOpsLimitInteractive = UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE)
    static let passwordMemLimitInteractive = UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE)
    static let passwordOpsLimitModerate = UInt64(crypto_pwhash_OPSLIMIT_MODERATE)
    static let passwordMemLimitModerate = UInt64(crypto_pwhash_MEMLIMIT_MODERATE)
    static let passwordOpsLimitSensitive = UInt64(crypto_pwhash_OPSLIMIT_SENSITIVE)
    static let passwordMemLimitSensitive = UInt64(crypto_pwhash_MEMLIMIT_SENSITIVE)
}

/// For the tests only: whether libsodium has detected the CPU, which `sodium_init` does
/// in the same step as picking the fast implementations. Reading it initialises nothing.
enum SodiumProbe {
    static var cpuFeaturesDetected: Bool {
        #if arch(x86_64)
            return sodium_runtime_has_sse2() == 1
        #elseif arch(arm64)
            return sodium_runtime_has_neon() == 1
        #else
            return true
        #endif
    }
}

/// One-time libsodium initialisation.
///
/// Every entry point of this module reaches libsodium through `LibSodium`, which runs
/// `sodium_init` first, so callers never have to.
public enum Sodium {
    /// Initialises libsodium once; later calls are free.
    /// - Throws: ``CryptoError/Code/initializationFailed`` when `sodium_init` reports failure.
    public static func ensureInitialized() throws {
        _ = try LibSodium.ready()
    }

    /// The libsodium version string, for `--version` output.
    public static var libraryVersion: String {
        LibSodium.readyOrTrap.versionString()
    }
}

/// Cryptographically secure random bytes (`randombytes_buf`). Not for secrets: use
/// ``SecureBytes/random(count:)`` for those.
public func randomBytes(count: Int) throws -> [UInt8] {
    let sodium = try LibSodium.ready()
    var bytes = [UInt8].zeroed(count: count)
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress {
            sodium.randomBytes(base, count: buffer.count)
        }
    }
    return bytes
}

/// Constant-time comparison of two public byte strings of equal length (`sodium_memcmp`).
public func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.isEmpty { return true }
    let sodium = LibSodium.readyOrTrap
    return lhs.withUnsafeBytes { l in
        rhs.withUnsafeBytes { r in
            sodium.equal(l.uint8Pointer, r.uint8Pointer, count: l.count)
        }
    }
}
