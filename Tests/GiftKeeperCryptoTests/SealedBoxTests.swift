import GiftKeeperCrypto
import Testing

/// Anonymous sealed boxes. The fixed key pair's public key was computed independently
/// with PyCryptodome's X25519 (`ECC.construct(curve='Curve25519', seed=sk)`) and with
/// PyNaCl; the boxes were sealed by PyNaCl 1.5
/// (`nacl.public.SealedBox(PublicKey(pk)).encrypt(msg)`), which bundles its own libsodium.
@Suite("Sealed boxes")
struct SealedBoxTests {
    enum Fixed {
        /// a0 a1 … bf.
        static let secretKey: [UInt8] = Array(0xA0...0xBF)
        static let publicKey = hex("605a725d2a4adfeeb1a29e17edd621c1b7593ee8cdbc44ac6c4ab6e2f805d23c")
        static let message = Array("Three failed logins while locked".utf8)
        static let sealed = hex(
            """
            9e468663cae3091b1364d27633fc3f3bd890e217d5f041f2b21bd76f9f741c0c
            d73fc788f4dfc3316bba3f1fdbafd0aa612d0293281e06bcc252aece05575eb8
            49eaeb2f3176b4ff65051f67f8d23cfe
            """)
        static let sealedEmpty = hex(
            """
            2f36432e9511267cc2f486c7679b2c3dfed9793b4e9f847ee4c4eaf54c887749
            b3131a5571ac3db69d7e8687075fe31f
            """)
        static func keyPair() throws -> BoxKeyPair {
            try BoxKeyPair(publicKey: publicKey, secretKey: SecureBytes(testBytes: secretKey))
        }
    }

    @Test func constants() {
        #expect(BoxKeyPair.publicKeyLength == 32)
        #expect(BoxKeyPair.secretKeyLength == 32)
        #expect(SealedBox.overhead == 48)
    }

    @Test("opens a box sealed by PyNaCl")
    func opensForeignBox() throws {
        #expect(Fixed.sealed.count == Fixed.message.count + SealedBox.overhead)
        #expect(try SealedBox.open(Fixed.sealed, with: Fixed.keyPair()) == Fixed.message)
        let viaBuffer = try Fixed.sealed.withUnsafeBytes { try SealedBox.open($0, with: Fixed.keyPair()) }
        #expect(viaBuffer == Fixed.message)
    }

    @Test("opens an empty box sealed by PyNaCl")
    func opensForeignEmptyBox() throws {
        #expect(Fixed.sealedEmpty.count == SealedBox.overhead)
        #expect(try SealedBox.open(Fixed.sealedEmpty, with: Fixed.keyPair()).isEmpty)
    }

    @Test("round trip to the fixed public key", arguments: [0, 1, 32, 47, 48, 49, 300])
    func roundTripFixed(_ length: Int) throws {
        let message = try randomBytes(count: length)
        let sealed = try SealedBox.seal(message, to: Fixed.publicKey)
        #expect(sealed.count == length + SealedBox.overhead)
        #expect(try SealedBox.open(sealed, with: Fixed.keyPair()) == message)
        // Ephemeral keys: sealing twice never gives the same bytes.
        #expect(try SealedBox.seal(message, to: Fixed.publicKey) != sealed)
    }

    @Test func roundTripGenerated() throws {
        let pair = try BoxKeyPair.generate()
        #expect(pair.publicKey.count == 32)
        #expect(pair.secretKey.count == 32)
        #expect(pair.secretKey.testBytes != [UInt8](repeating: 0, count: 32))
        let sealed = try SealedBox.seal(Fixed.message, to: pair.publicKey)
        #expect(try SealedBox.open(sealed, with: pair) == Fixed.message)
        let other = try BoxKeyPair.generate()
        #expect(other.publicKey != pair.publicKey)
    }

    // MARK: Negative

    @Test func wrongKeyPair() throws {
        #expect(throws: CryptoError(.authenticationFailed)) {
            try SealedBox.open(Fixed.sealed, with: BoxKeyPair.generate())
        }
    }

    @Test("the right secret key with a mismatched public key does not open")
    func mismatchedPublicKey() throws {
        let other = try BoxKeyPair.generate()
        let mixed = try BoxKeyPair(publicKey: other.publicKey, secretKey: SecureBytes(testBytes: Fixed.secretKey))
        #expect(throws: CryptoError(.authenticationFailed)) { try SealedBox.open(Fixed.sealed, with: mixed) }
    }

    @Test("every single-bit flip is refused")
    func everyBitFlip() throws {
        let pair = try Fixed.keyPair()
        for flipped in singleBitFlips(of: Fixed.sealed, in: 0..<Fixed.sealed.count) {
            #expect(throws: CryptoError(.authenticationFailed)) { try SealedBox.open(flipped, with: pair) }
        }
    }

    @Test("every truncation, and an extension, is refused")
    func truncations() throws {
        let pair = try Fixed.keyPair()
        for length in 0..<Fixed.sealed.count {
            #expect(throws: CryptoError(.authenticationFailed), "length \(length)") {
                try SealedBox.open(Array(Fixed.sealed.prefix(length)), with: pair)
            }
        }
        #expect(throws: CryptoError(.authenticationFailed)) { try SealedBox.open(Fixed.sealed + [0], with: pair) }
    }

    @Test("wrong-length keys are refused", arguments: [0, 31, 33, 64])
    func wrongKeyLengths(_ length: Int) throws {
        let bytes = [UInt8](repeating: 9, count: length)
        #expect(throws: CryptoError(.invalidLength(what: "public key", expected: 32, actual: length))) {
            try SealedBox.seal([1], to: bytes)
        }
        #expect(throws: CryptoError(.invalidLength(what: "public key", expected: 32, actual: length))) {
            try BoxKeyPair(publicKey: bytes, secretKey: SecureBytes(testBytes: Fixed.secretKey))
        }
        #expect(throws: CryptoError(.invalidLength(what: "secret key", expected: 32, actual: length))) {
            try BoxKeyPair(publicKey: Fixed.publicKey, secretKey: SecureBytes(testBytes: bytes))
        }
    }
}
