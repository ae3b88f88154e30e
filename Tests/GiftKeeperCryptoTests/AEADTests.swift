import GiftKeeperCrypto
import Testing

/// XChaCha20-Poly1305 (IETF). The known answer is draft-irtf-cfrg-xchacha-03,
/// Appendix A.3.1; its ciphertext and tag were also recomputed independently with
/// PyCryptodome 3.x (`ChaCha20_Poly1305.new(key=…, nonce=<24 bytes>)`), which agreed.
@Suite("XChaCha20-Poly1305")
struct AEADTests {
    enum Draft {
        static let key: [UInt8] = Array(0x80...0x9F)
        static let nonce: [UInt8] = Array(0x40...0x57)
        static let additionalData = hex("50515253c0c1c2c3c4c5c6c7")
        static let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        static let ciphertext = hex(
            """
            bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb
            731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452
            2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9
            21f9664c97637da9768812f615c68b13b52e
            """)
        static let tag = hex("c0875924c1c7987947deafd8780acf49")
        /// The sealed form this module stores: nonce ‖ ciphertext ‖ tag.
        static let sealed = nonce + ciphertext + tag
    }

    /// Same key and nonce, empty plaintext and no additional data: the tag alone,
    /// computed with PyCryptodome (`encrypt_and_digest(b"")`).
    static let emptyTag = hex("1dac8f73146d1e9da796cb7f7221a5df")

    static func draftKey() throws -> SecureBytes { try SecureBytes(testBytes: Draft.key) }

    @Test func constants() {
        #expect(AEAD.keyLength == 32)
        #expect(AEAD.nonceLength == 24)
        #expect(AEAD.tagLength == 16)
    }

    @Test("draft A.3.1 opens to the plaintext")
    func draftVectorOpens() throws {
        #expect(Draft.plaintext.count == 114)
        #expect(Draft.ciphertext.count == Draft.plaintext.count)
        let opened = try AEAD.open(Draft.sealed, key: Self.draftKey(), additionalData: Draft.additionalData)
        #expect(opened == Draft.plaintext)
    }

    @Test("draft A.3.1 through every open entry point")
    func draftVectorAllEntryPoints() throws {
        let key = try Self.draftKey()
        // Raw-buffer into caller-owned output.
        var output = [UInt8](repeating: 0, count: Draft.plaintext.count)
        try Draft.sealed.withUnsafeBytes { sealed in
            try Draft.additionalData.withUnsafeBytes { ad in
                try output.withUnsafeMutableBytes { out in
                    try AEAD.open(sealed, key: key, additionalData: ad, into: out)
                }
            }
        }
        #expect(output == Draft.plaintext)
        // Raw-buffer into a fresh array.
        let fromBuffer = try Draft.sealed.withUnsafeBytes {
            try AEAD.open($0, key: key, additionalData: Draft.additionalData)
        }
        #expect(fromBuffer == Draft.plaintext)
        // Straight into guarded memory.
        let secret = try AEAD.openSecret(Draft.sealed, key: key, additionalData: Draft.additionalData)
        #expect(secret.testBytes == Draft.plaintext)
    }

    @Test("empty plaintext, empty AD (PyCryptodome tag)")
    func emptyVector() throws {
        let opened = try AEAD.open(Draft.nonce + Self.emptyTag, key: Self.draftKey(), additionalData: [])
        #expect(opened.isEmpty)
        let secret = try AEAD.openSecret(Draft.nonce + Self.emptyTag, key: Self.draftKey(), additionalData: [])
        #expect(secret.count == 0)
    }

    @Test func sealLayout() throws {
        let key = try AEAD.generateKey()
        let sealed = try AEAD.seal(Draft.plaintext, key: key, additionalData: Draft.additionalData)
        #expect(sealed.count == AEAD.nonceLength + Draft.plaintext.count + AEAD.tagLength)
        // The ciphertext is not the plaintext, and fresh nonces make two seals differ.
        #expect(Array(sealed[AEAD.nonceLength..<(AEAD.nonceLength + Draft.plaintext.count)]) != Draft.plaintext)
        let again = try AEAD.seal(Draft.plaintext, key: key, additionalData: Draft.additionalData)
        #expect(Array(sealed.prefix(AEAD.nonceLength)) != Array(again.prefix(AEAD.nonceLength)))
        #expect(sealed != again)
    }

    /// The nonce at the front of the sealed form is the one authenticated: replacing it
    /// with another (here the draft's) makes the box refuse to open.
    @Test("seal binds the nonce it stores in front")
    func sealBindsItsNonce() throws {
        let key = try Self.draftKey()
        let sealed = try AEAD.seal(Draft.plaintext, key: key, additionalData: Draft.additionalData)
        #expect(try AEAD.open(sealed, key: key, additionalData: Draft.additionalData) == Draft.plaintext)
        // …and splicing the draft's nonce onto it does not (the nonce is bound).
        let spliced = Draft.nonce + Array(sealed.dropFirst(AEAD.nonceLength))
        #expect(throws: CryptoError(.authenticationFailed)) {
            try AEAD.open(spliced, key: key, additionalData: Draft.additionalData)
        }
    }

    @Test func sealSecretThenOpenSecret() throws {
        let key = try AEAD.generateKey()
        let wrapped = try SecureBytes.random(count: 32)
        let sealed = try AEAD.seal(wrapped, key: key, additionalData: Array("wrap".utf8))
        #expect(sealed.count == AEAD.nonceLength + 32 + AEAD.tagLength)
        let unwrapped = try AEAD.openSecret(sealed, key: key, additionalData: Array("wrap".utf8))
        #expect(unwrapped.count == 32)
        #expect(unwrapped.capacity == 32)
        #expect(unwrapped.constantTimeEquals(wrapped))
        #expect(unwrapped.testBytes == wrapped.testBytes)
    }

    @Test("raw-buffer seal equals array seal in layout and opens")
    func sealFromBuffer() throws {
        let key = try AEAD.generateKey()
        let sealed = try Draft.plaintext.withUnsafeBytes { try AEAD.seal($0, key: key, additionalData: []) }
        #expect(try AEAD.open(sealed, key: key, additionalData: []) == Draft.plaintext)
    }

    // MARK: Property: open(seal(x)) == x

    @Test("open(seal(x)) == x for lengths 0…300 with random AD", arguments: Array(0...300))
    func roundTrip(_ length: Int) throws {
        let key = try AEAD.generateKey()
        let plaintext = try randomBytes(count: length)
        let additionalData = try randomBytes(count: length % 41)
        let sealed = try AEAD.seal(plaintext, key: key, additionalData: additionalData)
        #expect(sealed.count == length + AEAD.nonceLength + AEAD.tagLength)
        #expect(try AEAD.open(sealed, key: key, additionalData: additionalData) == plaintext)
        #expect(try AEAD.openSecret(sealed, key: key, additionalData: additionalData).testBytes == plaintext)
    }

    // MARK: Negative

    @Test func wrongKey() throws {
        let wrong = try SecureBytes(testBytes: Draft.key.map { $0 ^ 0x01 })
        #expect(throws: CryptoError(.authenticationFailed)) {
            try AEAD.open(Draft.sealed, key: wrong, additionalData: Draft.additionalData)
        }
        #expect(throws: CryptoError(.authenticationFailed)) {
            try AEAD.openSecret(Draft.sealed, key: AEAD.generateKey(), additionalData: Draft.additionalData)
        }
    }

    @Test("every single-bit flip of nonce, ciphertext and tag is refused")
    func everyBitFlip() throws {
        let key = try Self.draftKey()
        let flips = singleBitFlips(of: Draft.sealed, in: 0..<Draft.sealed.count)
        #expect(flips.count == Draft.sealed.count * 8)
        for flipped in flips {
            #expect(throws: CryptoError(.authenticationFailed)) {
                try AEAD.open(flipped, key: key, additionalData: Draft.additionalData)
            }
        }
    }

    @Test(
        "tampered regions: nonce, ciphertext, tag",
        arguments: [
            ("nonce", 0), ("nonce end", AEAD.nonceLength - 1),
            ("ciphertext", AEAD.nonceLength), ("ciphertext end", AEAD.nonceLength + 113),
            ("tag", AEAD.nonceLength + 114), ("tag end", AEAD.nonceLength + 114 + AEAD.tagLength - 1),
        ])
    func tamperedRegion(_ region: String, _ index: Int) throws {
        var sealed = Draft.sealed
        sealed[index] ^= 0x80
        #expect(throws: CryptoError(.authenticationFailed), "\(region)") {
            try AEAD.open(sealed, key: Self.draftKey(), additionalData: Draft.additionalData)
        }
        #expect(throws: CryptoError(.authenticationFailed), "\(region)") {
            try AEAD.openSecret(sealed, key: Self.draftKey(), additionalData: Draft.additionalData)
        }
    }

    @Test(
        "wrong additional data",
        arguments: [
            [],
            hex("50515253c0c1c2c3c4c5c6"),
            hex("50515253c0c1c2c3c4c5c6c7c8"),
            hex("50515253c0c1c2c3c4c5c6c6"),
            hex("d0515253c0c1c2c3c4c5c6c7"),
        ])
    func wrongAdditionalData(_ additionalData: [UInt8]) throws {
        #expect(throws: CryptoError(.authenticationFailed)) {
            try AEAD.open(Draft.sealed, key: Self.draftKey(), additionalData: additionalData)
        }
    }

    @Test("AD is bound: a box sealed with AD does not open without it, and vice versa")
    func additionalDataBinding() throws {
        let key = try AEAD.generateKey()
        let withAD = try AEAD.seal([1, 2, 3], key: key, additionalData: [9])
        let withoutAD = try AEAD.seal([1, 2, 3], key: key, additionalData: [])
        #expect(throws: CryptoError(.authenticationFailed)) { try AEAD.open(withAD, key: key, additionalData: []) }
        #expect(throws: CryptoError(.authenticationFailed)) { try AEAD.open(withoutAD, key: key, additionalData: [9]) }
    }

    @Test("every length below nonce + tag is refused, by every open")
    func truncatedBelowMinimum() throws {
        let key = try Self.draftKey()
        for length in 0..<(AEAD.nonceLength + AEAD.tagLength) {
            let short = Array(Draft.sealed.prefix(length))
            #expect(throws: CryptoError(.authenticationFailed), "length \(length)") {
                try AEAD.open(short, key: key, additionalData: Draft.additionalData)
            }
            #expect(throws: CryptoError(.authenticationFailed), "length \(length)") {
                try AEAD.openSecret(short, key: key, additionalData: Draft.additionalData)
            }
            #expect(throws: CryptoError(.authenticationFailed), "length \(length)") {
                try short.withUnsafeBytes { sealed in
                    try Draft.additionalData.withUnsafeBytes { ad in
                        var none: [UInt8] = []
                        try none.withUnsafeMutableBytes { out in
                            try AEAD.open(sealed, key: key, additionalData: ad, into: out)
                        }
                    }
                }
            }
        }
    }

    @Test("every truncation of the draft vector (and one extension) is refused")
    func everyTruncationAndExtension() throws {
        let key = try Self.draftKey()
        for length in (AEAD.nonceLength + AEAD.tagLength)..<Draft.sealed.count {
            #expect(throws: CryptoError(.authenticationFailed), "length \(length)") {
                try AEAD.open(Array(Draft.sealed.prefix(length)), key: key, additionalData: Draft.additionalData)
            }
        }
        #expect(throws: CryptoError(.authenticationFailed)) {
            try AEAD.open(Draft.sealed + [0], key: key, additionalData: Draft.additionalData)
        }
    }

    @Test("keys of the wrong length are refused", arguments: [0, 16, 31, 33, 64])
    func wrongKeyLength(_ length: Int) throws {
        let key = try SecureBytes.random(count: length)
        let expected = CryptoError(.invalidLength(what: "AEAD key", expected: 32, actual: length))
        #expect(throws: expected) { try AEAD.seal([1, 2, 3], key: key, additionalData: []) }
        #expect(throws: expected) { try AEAD.seal(SecureBytes.random(count: 4), key: key, additionalData: []) }
        #expect(throws: expected) { try AEAD.open(Draft.sealed, key: key, additionalData: Draft.additionalData) }
        #expect(throws: expected) { try AEAD.openSecret(Draft.sealed, key: key, additionalData: Draft.additionalData) }
    }

    @Test("open into a buffer of the wrong size is refused", arguments: [0, 113, 115])
    func wrongOutputSize(_ size: Int) throws {
        let key = try Self.draftKey()
        var output = [UInt8](repeating: 0, count: size)
        #expect(throws: CryptoError(.invalidLength(what: "AEAD output", expected: 114, actual: size))) {
            try Draft.sealed.withUnsafeBytes { sealed in
                try Draft.additionalData.withUnsafeBytes { ad in
                    try output.withUnsafeMutableBytes { out in
                        try AEAD.open(sealed, key: key, additionalData: ad, into: out)
                    }
                }
            }
        }
    }

    @Test func generatedKeysAreFreshAndRightLength() throws {
        let a = try AEAD.generateKey()
        let b = try AEAD.generateKey()
        #expect(a.count == AEAD.keyLength)
        #expect(!a.constantTimeEquals(b))
    }
}
