/// An Ed25519 signing key pair (`crypto_sign`): how a device proves itself to the sync
/// service (SPEC §12). The secret key lives in guarded memory; what a device keeps of it
/// is the 32-byte seed, from which the pair is made again.
public struct SigningKeyPair: Sendable {
    /// Public key length: 32 bytes.
    public static let publicKeyLength = SodiumConstant.signPublicKeyBytes
    /// Seed length: 32 bytes.
    public static let seedLength = SodiumConstant.signSeedBytes
    /// Signature length: 64 bytes.
    public static let signatureLength = SodiumConstant.signatureBytes

    public let publicKey: [UInt8]
    /// The seed the pair is made from (what is kept).
    public let seed: SecureBytes
    private let secretKey: SecureBytes

    /// The pair made from `seed` (`crypto_sign_seed_keypair`).
    public init(seed: SecureBytes) throws {
        let sodium = try LibSodium.ready()
        guard seed.count == Self.seedLength else {
            throw CryptoError(.invalidLength(what: "signing seed", expected: Self.seedLength, actual: seed.count))
        }
        var publicKey = [UInt8].zeroed(count: Self.publicKeyLength)
        let secretKey = try SecureBytes(capacity: SodiumConstant.signSecretKeyBytes)
        let result = publicKey.withUnsafeMutableBytes { pk in
            secretKey.withUnsafeMutableBytes { sk in
                seed.withUnsafeBytes { sodium.signSeedKeyPair(publicKey: pk, secretKey: sk, seed: $0) }
            }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_sign_seed_keypair")) }
        self.publicKey = publicKey
        self.seed = seed
        self.secretKey = secretKey
    }

    /// A fresh pair from a random seed.
    public static func generate() throws -> SigningKeyPair {
        try SigningKeyPair(seed: try SecureBytes.random(count: seedLength))
    }

    /// The detached signature of `message` (`crypto_sign_detached`).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let sodium = try LibSodium.ready()
        var signature = [UInt8].zeroed(count: Self.signatureLength)
        let result = signature.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { m in secretKey.withUnsafeBytes { sodium.signDetached(out, m, secretKey: $0) } }
        }
        guard result == 0 else { throw CryptoError(.operationFailed(function: "crypto_sign_detached")) }
        return signature
    }

    /// Whether `signature` is `publicKey`'s signature of `message`
    /// (`crypto_sign_verify_detached`); false for keys or signatures of the wrong length.
    public static func verify(signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let sodium = try? LibSodium.ready(), signature.count == signatureLength, publicKey.count == publicKeyLength
        else { return false }
        return signature.withUnsafeBytes { s in
            message.withUnsafeBytes { m in publicKey.withUnsafeBytes { sodium.verifyDetached(s, m, publicKey: $0) } }
        } == 0
    }
}
