/// An X25519 key pair for sealed boxes. The secret key lives in guarded memory.
public struct BoxKeyPair: Sendable {
    /// Public key length: 32 bytes.
    public static let publicKeyLength = SodiumConstant.boxPublicKeyBytes
    /// Secret key length: 32 bytes.
    public static let secretKeyLength = SodiumConstant.boxSecretKeyBytes

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
        let sodium = try LibSodium.ready()
        var publicKey = [UInt8].zeroed(count: publicKeyLength)
        let secretKey = try SecureBytes(capacity: secretKeyLength)
        let result = publicKey.withUnsafeMutableBytes { pk in
            secretKey.withUnsafeMutableBytes { sk in
                sodium.boxKeyPair(publicKey: pk, secretKey: sk)
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
    public static let overhead = SodiumConstant.boxSealBytes

    /// Seals `message` to `publicKey`. The corresponding C function is `crypto_box_seal`.
    public static func seal(_ message: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
        let sodium = try LibSodium.ready()
        guard publicKey.count == BoxKeyPair.publicKeyLength else {
            throw CryptoError(.invalidLength(what: "public key", expected: BoxKeyPair.publicKeyLength, actual: publicKey.count))
        }
        var output = [UInt8].zeroed(count: message.count + overhead)
        let result = output.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { m in
                publicKey.withUnsafeBytes { pk in
                    sodium.boxSeal(out, m, publicKey: pk)
                }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_box_seal")) }
        return output
    }

    /// Opens a sealed box with the key pair it was sealed to (`crypto_box_seal_open`).
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when it does not open.
    public static func open(_ sealed: UnsafeRawBufferPointer, with keyPair: BoxKeyPair) throws -> [UInt8] {
        let sodium = try LibSodium.ready()
        guard sealed.count >= overhead else {
            throw CryptoError(.authenticationFailed)
        }
        var output = [UInt8].zeroed(count: sealed.count - overhead)
        let result = output.withUnsafeMutableBytes { out in
            keyPair.publicKey.withUnsafeBytes { pk in
                keyPair.secretKey.withUnsafeBytes { sk in
                    sodium.boxSealOpen(out, sealed, publicKey: pk, secretKey: sk)
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

    /// Seals a secret (keys a household grants a member) read straight from guarded memory.
    public static func seal(_ secret: SecureBytes, to publicKey: [UInt8]) throws -> [UInt8] {
        let sodium = try LibSodium.ready()
        guard publicKey.count == BoxKeyPair.publicKeyLength else {
            throw CryptoError(.invalidLength(what: "public key", expected: BoxKeyPair.publicKeyLength, actual: publicKey.count))
        }
        var output = [UInt8].zeroed(count: secret.count + overhead)
        let result = output.withUnsafeMutableBytes { out in
            secret.withUnsafeBytes { m in publicKey.withUnsafeBytes { sodium.boxSeal(out, m, publicKey: $0) } }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_box_seal")) }
        return output
    }

    /// Opens a sealed secret into guarded memory, never a Swift array.
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when it does not open.
    public static func openSecret(_ sealed: [UInt8], with keyPair: BoxKeyPair) throws -> SecureBytes {
        let sodium = try LibSodium.ready()
        guard sealed.count >= overhead else { throw CryptoError(.authenticationFailed) }
        let secret = try SecureBytes(capacity: sealed.count - overhead)
        let result = secret.withUnsafeMutableBytes { out in
            sealed.withUnsafeBytes { s in
                keyPair.publicKey.withUnsafeBytes { pk in
                    keyPair.secretKey.withUnsafeBytes { sk in sodium.boxSealOpen(out, s, publicKey: pk, secretKey: sk) }
                }
            }
        }
        guard result == 0 else { throw CryptoError(.authenticationFailed) }
        return secret
    }
}

/// Derives independent subkeys from a master key (`crypto_kdf_derive_from_key`), e.g. the
/// key that authenticates the remembered journal head, so one key never serves two purposes.
public enum SubkeyDerivation {
    /// Derives subkey number `id` for `context` (exactly 8 ASCII bytes).
    public static func derive(
        from masterKey: SecureBytes, id: UInt64, context: StaticString, length: Int = 32
    ) throws -> SecureBytes {
        let sodium = try LibSodium.ready()
        guard masterKey.count == SodiumConstant.kdfKeyBytes else {
            throw CryptoError(.invalidLength(what: "master key", expected: SodiumConstant.kdfKeyBytes, actual: masterKey.count))
        }
        guard context.utf8CodeUnitCount == SodiumConstant.kdfContextBytes else {
            throw CryptoError(
                .invalidLength(what: "KDF context", expected: SodiumConstant.kdfContextBytes, actual: context.utf8CodeUnitCount))
        }
        let subkey = try SecureBytes(capacity: length)
        let result = subkey.withUnsafeMutableBytes { out in
            masterKey.withUnsafeBytes { master in
                context.withUTF8Buffer { ctx in
                    UnsafeRawPointer(ctx.baseAddress ?? UnsafeRawBufferPointer(ctx).uint8Pointer)
                        .withMemoryRebound(to: CChar.self, capacity: ctx.count) { cctx in
                            sodium.deriveSubkey(out, id: id, context: cctx, masterKey: master)
                        }
                }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_kdf_derive_from_key")) }
        return subkey
    }
}
