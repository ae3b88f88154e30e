import CSodium

/// An X25519 key pair for sealed boxes. The secret key lives in guarded memory.
public struct BoxKeyPair: Sendable {
    /// Public key length: 32 bytes.
    public static let publicKeyLength = Int(crypto_box_PUBLICKEYBYTES)
    /// Secret key length: 32 bytes.
    public static let secretKeyLength = Int(crypto_box_SECRETKEYBYTES)

    public let publicKey: [UInt8]
    public let secretKey: SecureBytes

    /// Wraps an existing pair (e.g. a secret key just unsealed from the journal).
    public init(publicKey: [UInt8], secretKey: SecureBytes) throws {
        guard publicKey.count == Self.publicKeyLength else {
            throw CryptoError(.invalidLength(what: "public key", expected: Self.publicKeyLength, actual: publicKey.count))
        }
        guard secretKey.count == Self.secretKeyLength else {
            throw CryptoError(.invalidLength(what: "secret key", expected: Self.secretKeyLength, actual: secretKey.count))
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh key pair (`crypto_box_keypair`).
    public static func generate() throws -> BoxKeyPair {
        try Sodium.ensureInitialized()
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        let secretKey = try SecureBytes(capacity: secretKeyLength)
        let result = publicKey.withUnsafeMutableBytes { pk in
            secretKey.withUnsafeMutableBytes { sk in
                crypto_box_keypair(
                    pk.uint8Pointer,
                    sk.uint8Pointer)
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_box_keypair")) }
        return try BoxKeyPair(publicKey: publicKey, secretKey: secretKey)
    }
}

/// Anonymous sealed boxes (`crypto_box_seal`): anyone with the public key can write,
/// only the secret key can read. Used to record failed logins while locked.
public enum SealedBox {
    /// Bytes a sealed box adds to its message: 48.
    public static let overhead = Int(crypto_box_sealbytes())

    /// Seals `message` to `publicKey`. The corresponding C function is `crypto_box_seal`.
    public static func seal(_ message: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
        try Sodium.ensureInitialized()
        guard publicKey.count == BoxKeyPair.publicKeyLength else {
            throw CryptoError(.invalidLength(what: "public key", expected: BoxKeyPair.publicKeyLength, actual: publicKey.count))
        }
        var output = [UInt8](repeating: 0, count: message.count + overhead)
        let result = output.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { m in
                publicKey.withUnsafeBytes { pk in
                    crypto_box_seal(
                        out.uint8Pointer,
                        m.uint8Pointer, UInt64(m.count),
                        pk.uint8Pointer)
                }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_box_seal")) }
        return output
    }

    /// Opens a sealed box with the key pair it was sealed to (`crypto_box_seal_open`).
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when it does not open.
    public static func open(_ sealed: UnsafeRawBufferPointer, with keyPair: BoxKeyPair) throws -> [UInt8] {
        try Sodium.ensureInitialized()
        guard sealed.count >= overhead else {
            throw CryptoError(.authenticationFailed)
        }
        var output = [UInt8](repeating: 0, count: sealed.count - overhead)
        let result = output.withUnsafeMutableBytes { out in
            keyPair.publicKey.withUnsafeBytes { pk in
                keyPair.secretKey.withUnsafeBytes { sk in
                    crypto_box_seal_open(
                        out.uint8Pointer, sealed.uint8Pointer, UInt64(sealed.count),
                        pk.uint8Pointer, sk.uint8Pointer)
                }
            }
        }
        guard result == 0 else { throw CryptoError(.authenticationFailed) }
        return output
    }

    /// Opens a sealed box given as an array.
    public static func open(_ sealed: [UInt8], with keyPair: BoxKeyPair) throws -> [UInt8] {
        try sealed.withUnsafeBytes { s in try open(s, with: keyPair) }
    }
}

/// Derives independent subkeys from a master key (`crypto_kdf_derive_from_key`), e.g. the
/// key that authenticates the remembered journal head, so one key never serves two purposes.
public enum SubkeyDerivation {
    /// Derives subkey number `id` for `context` (exactly 8 ASCII bytes).
    public static func derive(
        from masterKey: SecureBytes, id: UInt64, context: StaticString, length: Int = 32
    ) throws -> SecureBytes {
        try Sodium.ensureInitialized()
        guard masterKey.count == Int(crypto_kdf_KEYBYTES) else {
            throw CryptoError(.invalidLength(what: "master key", expected: Int(crypto_kdf_KEYBYTES), actual: masterKey.count))
        }
        guard context.utf8CodeUnitCount == Int(crypto_kdf_CONTEXTBYTES) else {
            throw CryptoError(.invalidLength(what: "KDF context", expected: Int(crypto_kdf_CONTEXTBYTES), actual: context.utf8CodeUnitCount))
        }
        let subkey = try SecureBytes(capacity: length)
        let result = subkey.withUnsafeMutableBytes { out in
            masterKey.withUnsafeBytes { master in
                context.withUTF8Buffer { ctx in
                    UnsafeRawPointer(ctx.baseAddress ?? UnsafeRawBufferPointer(ctx).uint8Pointer)
                        .withMemoryRebound(to: CChar.self, capacity: ctx.count) { cctx in
                            crypto_kdf_derive_from_key(out.uint8Pointer, out.count, id, cctx, master.uint8Pointer)
                        }
                }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_kdf_derive_from_key")) }
        return subkey
    }
}
