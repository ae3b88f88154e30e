import GiftKeeperCrypto
import Testing

/// `crypto_kdf_derive_from_key` is keyed BLAKE2b of the empty message with
/// salt = id (little-endian, 8 bytes) ‖ 8 zero bytes and personal = context ‖ 8 zero bytes.
/// Every expected subkey was computed independently with CPython's
/// `hashlib.blake2b(b'', digest_size=N, key=master, salt=…, person=…)`.
@Suite("Subkey derivation")
struct SubkeyDerivationTests {
    /// 20 21 … 3f.
    static let master: [UInt8] = Array(0x20...0x3F)

    static func masterKey() throws -> SecureBytes { try SecureBytes(testBytes: master) }

    @Test func id0() throws {
        let subkey = try SubkeyDerivation.derive(from: Self.masterKey(), id: 0, context: "GKhead__")
        #expect(hexString(subkey.testBytes) == "9b1bf05b52dd5e30317b1701843cc9b36c3ac90d9e1d52ba5886bc727c9bd7b0")
    }

    @Test func id1() throws {
        let subkey = try SubkeyDerivation.derive(from: Self.masterKey(), id: 1, context: "GKhead__")
        #expect(hexString(subkey.testBytes) == "c4d2b516df7b471a41ca9dcdbf3e4e0c4d94cbe83b3130a7eded3e729af8fa4d")
    }

    @Test("a large id is encoded little-endian")
    func largeID() throws {
        let subkey = try SubkeyDerivation.derive(from: Self.masterKey(), id: 0xFEDC_BA98_7654_3210, context: "Examples")
        #expect(hexString(subkey.testBytes) == "9f44079ef33b378cb5abd5094a34047202b20bf368c10494bf14005f441c2e3e")
    }

    @Test("other output lengths (16 and 64)")
    func lengths() throws {
        let short = try SubkeyDerivation.derive(from: Self.masterKey(), id: 7, context: "GKhead__", length: 16)
        #expect(hexString(short.testBytes) == "0812f4fdb84575feaa4dd37b360da735")
        let long = try SubkeyDerivation.derive(from: Self.masterKey(), id: 7, context: "GKhead__", length: 64)
        #expect(
            hexString(long.testBytes) == """
                ba120615c883eb0fc3cce39e667ff8d5ee2b5d922cb9488d83aba179f70b0510\
                82a2e70d1ef09b5d59eb1eee5eab2da84ecd00eb95c487f18626ab2e48b78bfe
                """)
    }

    @Test("lengths libsodium refuses fail cleanly", arguments: [0, 15, 65])
    func badLengths(_ length: Int) throws {
        #expect(throws: CryptoError(.operationFailed(function: "crypto_kdf_derive_from_key"))) {
            try SubkeyDerivation.derive(from: Self.masterKey(), id: 0, context: "GKhead__", length: length)
        }
    }

    @Test("master keys of the wrong length are refused", arguments: [0, 16, 31, 33])
    func wrongMasterLength(_ length: Int) throws {
        #expect(throws: CryptoError(.invalidLength(what: "master key", expected: 32, actual: length))) {
            try SubkeyDerivation.derive(from: SecureBytes.random(count: length), id: 0, context: "GKhead__")
        }
    }

    @Test("contexts that are not exactly 8 bytes are refused")
    func wrongContextLength() throws {
        let master = try Self.masterKey()
        #expect(throws: CryptoError(.invalidLength(what: "KDF context", expected: 8, actual: 7))) {
            try SubkeyDerivation.derive(from: master, id: 0, context: "GKhead_")
        }
        #expect(throws: CryptoError(.invalidLength(what: "KDF context", expected: 8, actual: 9))) {
            try SubkeyDerivation.derive(from: master, id: 0, context: "GKhead___")
        }
        #expect(throws: CryptoError(.invalidLength(what: "KDF context", expected: 8, actual: 0))) {
            try SubkeyDerivation.derive(from: master, id: 0, context: "")
        }
    }
}
