import GiftKeeperCrypto
import Testing

/// Ed25519 signatures (`crypto_sign`), how a device proves itself to the sync service.
/// The fixed vector is RFC 8032's first (section 7.1, TEST 1: the empty message).
@Suite("Signing keys")
struct SigningTests {
    enum RFC8032 {
        static let seed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        static let publicKey = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        static let signature = hex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )
    }

    @Test("the RFC 8032 seed makes its public key and signs the empty message as the RFC does")
    func rfcVector() throws {
        let pair = try SigningKeyPair(seed: SecureBytes(testBytes: RFC8032.seed))
        #expect(pair.publicKey == RFC8032.publicKey)
        #expect(try pair.sign([]) == RFC8032.signature)
        #expect(SigningKeyPair.verify(signature: RFC8032.signature, of: [], publicKey: RFC8032.publicKey))
    }

    @Test("a signature verifies for its message and key only")
    func verifiesOnlyItsOwn() throws {
        let pair = try SigningKeyPair.generate()
        let other = try SigningKeyPair.generate()
        let message = Array("giftkeeper-sync-auth-v1 nonce".utf8)
        let signature = try pair.sign(message)
        #expect(SigningKeyPair.verify(signature: signature, of: message, publicKey: pair.publicKey))
        #expect(!SigningKeyPair.verify(signature: signature, of: message + [0], publicKey: pair.publicKey))
        #expect(!SigningKeyPair.verify(signature: signature, of: message, publicKey: other.publicKey))
        var flipped = signature
        flipped[0] ^= 1
        #expect(!SigningKeyPair.verify(signature: flipped, of: message, publicKey: pair.publicKey))
        #expect(!SigningKeyPair.verify(signature: Array(signature.prefix(63)), of: message, publicKey: pair.publicKey))
    }

    @Test("the pair made again from its seed is the same pair")
    func seedMakesTheSamePair() throws {
        let pair = try SigningKeyPair.generate()
        let again = try SigningKeyPair(seed: pair.seed)
        #expect(again.publicKey == pair.publicKey)
        #expect(try again.sign([1, 2, 3]) == pair.sign([1, 2, 3]))
        #expect(throws: CryptoError.self) { try SigningKeyPair(seed: SecureBytes(testBytes: [1, 2, 3])) }
    }
}
