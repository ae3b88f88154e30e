import GiftKeeperCrypto
import Testing

/// Argon2id (v1.3, parallelism 1) known answers, computed independently with
/// argon2-cffi 23.x (the reference phc-winner-argon2 C code):
/// `argon2.low_level.hash_secret_raw(secret, salt, time_cost=OPS,
///   memory_cost=MEMLIMIT_BYTES // 1024, parallelism=1, hash_len=N, type=Type.ID, version=19)`.
@Suite("Argon2id and its parameters")
struct KDFTests {
    static let password = Array("correct horse battery staple".utf8)
    /// 00 01 … 0f.
    static let salt: [UInt8] = Array(0..<16)

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let password: [UInt8]
        let opsLimit: UInt64
        let memLimit: UInt64
        let keyLength: Int
        let expected: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "testMinimum (t=1, m=8 KiB)", password: password, opsLimit: 1, memLimit: 8192, keyLength: 32,
            expected: "d17ea6341ca93da6079ea2f64dc4aa31dd1aaf9caa67fb42ac4afd0714706f26"),
        Vector(
            name: "custom (t=2, m=64 KiB)", password: password, opsLimit: 2, memLimit: 65536, keyLength: 32,
            expected: "2df47ede6358ed17a9976d4fcedb897a10036d432a4acef17d263bfc98bd20ac"),
        Vector(
            name: "empty password (t=1, m=8 KiB)", password: [], opsLimit: 1, memLimit: 8192, keyLength: 32,
            expected: "31ed41e2d73f27fdfe4eb4bec651341e58ba43477051c6fe4adad735d82ee08a"),
        Vector(
            name: "16-byte output (t=1, m=8 KiB)", password: password, opsLimit: 1, memLimit: 8192, keyLength: 16,
            expected: "e4b81c6ee75f9111eabe5c98e378846f"),
    ]

    @Test("deriveKey matches argon2-cffi", arguments: vectors)
    func knownAnswer(_ vector: Vector) throws {
        let parameters = try KDFParameters(validatingOpsLimit: vector.opsLimit, memLimit: vector.memLimit)
        let key = try PasswordKDF.deriveKey(
            password: SecureBytes(testBytes: vector.password), salt: Self.salt,
            parameters: parameters, keyLength: vector.keyLength)
        #expect(key.count == vector.keyLength)
        #expect(hexString(key.testBytes) == vector.expected)
    }

    @Test("testMinimum is libsodium's minimum and gives the same answer")
    func testMinimumPreset() throws {
        #expect(KDFParameters.testMinimum.opsLimit == 1)
        #expect(KDFParameters.testMinimum.memLimit == 8192)
        let key = try PasswordKDF.deriveKey(
            password: SecureBytes(testBytes: Self.password), salt: Self.salt, parameters: .testMinimum)
        #expect(key.count == AEAD.keyLength)
        #expect(hexString(key.testBytes) == Self.vectors[0].expected)
    }

    @Test("salt and password both matter")
    func inputsMatter() throws {
        let password = try SecureBytes(testBytes: Self.password)
        let base = try PasswordKDF.deriveKey(password: password, salt: Self.salt, parameters: .testMinimum)
        var otherSalt = Self.salt
        otherSalt[15] ^= 1
        let saltChanged = try PasswordKDF.deriveKey(password: password, salt: otherSalt, parameters: .testMinimum)
        let passwordChanged = try PasswordKDF.deriveKey(
            password: SecureBytes(testBytes: Self.password + [0x21]), salt: Self.salt, parameters: .testMinimum)
        #expect(!base.constantTimeEquals(saltChanged))
        #expect(!base.constantTimeEquals(passwordChanged))
    }

    @Test("preset values equal libsodium's constants (no derivation)")
    func presets() {
        #expect(KDFParameters.interactive.opsLimit == 2)
        #expect(KDFParameters.interactive.memLimit == 67_108_864)
        #expect(KDFParameters.moderate.opsLimit == 3)
        #expect(KDFParameters.moderate.memLimit == 268_435_456)
        #expect(KDFParameters.sensitive.opsLimit == 4)
        #expect(KDFParameters.sensitive.memLimit == 1_073_741_824)
        #expect(KDFParameters.argon2id13 == 2)
        #expect(KDFParameters.interactive.isProductionStrength)
        #expect(KDFParameters.moderate.isProductionStrength)
        #expect(!KDFParameters.testMinimum.isProductionStrength)
        #expect(KDFParameters.interactive.description == "interactive")
        #expect(KDFParameters.moderate.description == "moderate")
        #expect(KDFParameters.sensitive.description == "sensitive")
        #expect(KDFParameters.testMinimum.description == "test-minimum")
    }

    @Test("validating init accepts the presets' own values and equals them")
    func validatingInitRoundTripsPresets() throws {
        for preset in [KDFParameters.testMinimum, .interactive, .moderate, .sensitive] {
            #expect(try KDFParameters(validatingOpsLimit: preset.opsLimit, memLimit: preset.memLimit) == preset)
        }
    }

    @Test("custom costs describe themselves in readable units")
    func customDescription() throws {
        #expect(try KDFParameters(validatingOpsLimit: 4, memLimit: 128 << 20).description == "opslimit 4, memlimit 128 MiB")
        #expect(try KDFParameters(validatingOpsLimit: 2, memLimit: 65536).description == "opslimit 2, memlimit 64 KiB")
        #expect(try KDFParameters(validatingOpsLimit: 1, memLimit: 10000).description == "opslimit 1, memlimit 10000 bytes")
    }

    @Test(
        "bounds are inclusive, and the most is libsodium's sensitive preset",
        arguments: [
            (UInt64(1), UInt64(8192)),
            (UInt64(4), UInt64(8192)),
            (UInt64(1), UInt64(1) << 30),
            (UInt64(4), UInt64(1) << 30),
        ])
    func accepted(_ ops: UInt64, _ mem: UInt64) throws {
        #expect(KDFParameters.maximumOpsLimit == KDFParameters.sensitive.opsLimit)
        #expect(KDFParameters.maximumMemLimit == KDFParameters.sensitive.memLimit)
        let parameters = try KDFParameters(validatingOpsLimit: ops, memLimit: mem)
        #expect(parameters.opsLimit == ops)
        #expect(parameters.memLimit == mem)
    }

    @Test(
        "out-of-bounds costs are refused, quickly",
        arguments: [
            (UInt64(0), UInt64(8192)),
            (UInt64(5), UInt64(8192)),
            (UInt64(16), UInt64(8192)),
            (UInt64.max, UInt64(8192)),
            (UInt64(1), UInt64(8191)),
            (UInt64(1), UInt64(0)),
            (UInt64(1), (UInt64(1) << 30) + 1),
            (UInt64(1), UInt64(4) << 30),
            (UInt64(1), UInt64.max),
            (UInt64.max, UInt64.max),
            (UInt64(0), UInt64(0)),
        ])
    func refused(_ ops: UInt64, _ mem: UInt64) {
        // Refused by the check of the numbers, which derives nothing.
        #expect(throws: CryptoError(.unsafeKDFParameters(opsLimit: ops, memLimit: mem))) {
            try KDFParameters(validatingOpsLimit: ops, memLimit: mem)
        }
    }

    @Test("wrong-length salts are refused before any work", arguments: [0, 8, 15, 17, 32])
    func wrongSalt(_ length: Int) throws {
        let password = try SecureBytes(testBytes: Self.password)
        #expect(throws: CryptoError(.invalidLength(what: "salt", expected: 16, actual: length))) {
            // Sensitive (1 GiB): the length is checked before any work.
            try PasswordKDF.deriveKey(password: password, salt: Array(repeating: 7, count: length), parameters: .sensitive)
        }
    }

    @Test("output lengths libsodium refuses fail cleanly", arguments: [0, 15])
    func tooShortOutput(_ keyLength: Int) throws {
        #expect(throws: CryptoError(.keyDerivationFailed)) {
            try PasswordKDF.deriveKey(
                password: SecureBytes(testBytes: Self.password), salt: Self.salt,
                parameters: .testMinimum, keyLength: keyLength)
        }
    }

    @Test func salts() throws {
        #expect(PasswordKDF.saltLength == 16)
        let a = try PasswordKDF.generateSalt()
        let b = try PasswordKDF.generateSalt()
        #expect(a.count == 16)
        #expect(a != b)
    }
}
