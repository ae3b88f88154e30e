import GiftKeeperCrypto
import Testing

/// BLAKE2b-256 known answers. Every expected digest was computed independently with
/// CPython 3.11's `hashlib.blake2b(data, digest_size=32[, key=key])` (the BLAKE2
/// reference implementation), never with this code.
@Suite("BLAKE2b-256")
struct Blake2bTests {
    /// 1000 bytes of `i % 251`, i = 0…999.
    static let pattern1000: [UInt8] = (0..<1000).map { UInt8($0 % 251) }
    /// 00 01 … 1f.
    static let key32: [UInt8] = Array(0..<32)

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let message: [UInt8]
        let key: [UInt8]?
        let digest: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "empty, unkeyed", message: [], key: nil,
            digest: "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"),
        Vector(
            name: "abc, unkeyed", message: Array("abc".utf8), key: nil,
            digest: "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"),
        Vector(
            name: "1000-byte pattern, unkeyed", message: pattern1000, key: nil,
            digest: "b372d0608f720c8c3dd41e9c8eecb10143b41abe520b616607e754bf79c08331"),
        Vector(
            name: "empty, 32-byte key", message: [], key: key32,
            digest: "4e51e7a913fc80137da52880fecca175bf81e117d5c68126dc2774033517ea0d"),
        Vector(
            name: "abc, 32-byte key", message: Array("abc".utf8), key: key32,
            digest: "d63a32d3e44738d7907f964316c241adaba0abfeabc32349677578a15a203f7f"),
        Vector(
            name: "1000-byte pattern, 32-byte key", message: pattern1000, key: key32,
            digest: "bf9c0d3a2590251349ad634ad07f03958d0be63d5f9533daf62752de734b2c76"),
        Vector(
            name: "abc, 64-byte key (maximum)", message: Array("abc".utf8), key: Array(0..<64),
            digest: "dff38c978666dff5631db35ca15535520d134f5c8060ea569c6a178ad393719f"),
        Vector(
            name: "abc, 16-byte key (MAC minimum)", message: Array("abc".utf8), key: Array(0..<16),
            digest: "3fd8fd31501cdbe942607b204368e3dc4ebce5744de1a955a6025f5c9848bb20"),
    ]

    @Test("array API matches hashlib", arguments: vectors)
    func arrayAPI(_ vector: Vector) {
        #expect(hexString(Blake2b.hash(vector.message, key: vector.key)) == vector.digest)
    }

    @Test("buffer API matches hashlib", arguments: vectors)
    func bufferAPI(_ vector: Vector) {
        let digest = vector.message.withUnsafeBytes { message in
            if let key = vector.key {
                return key.withUnsafeBytes { Blake2b.hash(message, key: $0) }
            }
            return Blake2b.hash(message)
        }
        #expect(hexString(digest) == vector.digest)
    }

    @Test("allocation-free API matches hashlib", arguments: vectors)
    func intoAPI(_ vector: Vector) {
        var digest = [UInt8](repeating: 0xAA, count: Blake2b.digestLength)
        vector.message.withUnsafeBytes { message in
            digest.withUnsafeMutableBytes { out in
                if let key = vector.key {
                    key.withUnsafeBytes { Blake2b.hash(message, key: $0, into: out) }
                } else {
                    Blake2b.hash(message, key: nil, into: out)
                }
            }
        }
        #expect(hexString(digest) == vector.digest)
    }

    @Test("MAC under a secret key equals keyed hash (hashlib)", arguments: vectors.filter { ($0.key?.count ?? 0) >= 16 })
    func mac(_ vector: Vector) throws {
        let key = try SecureBytes(testBytes: try #require(vector.key))
        #expect(hexString(try Blake2b.mac(vector.message, key: key)) == vector.digest)
    }

    @Test func emptyKeyIsUnkeyed() {
        #expect(Blake2b.hash(Array("abc".utf8), key: []) == Blake2b.hash(Array("abc".utf8)))
    }

    @Test func digestLengthIs32() {
        #expect(Blake2b.digestLength == 32)
        #expect(Blake2b.hash([]).count == 32)
    }

    @Test("MAC refuses keys outside 16…64 bytes", arguments: [0, 1, 15, 65, 128])
    func macKeyLength(_ length: Int) throws {
        let key = try SecureBytes.random(count: length)
        let error = #expect(throws: CryptoError.self) { try Blake2b.mac([1, 2, 3], key: key) }
        guard case .invalidLength(let what, _, let actual)? = error?.code else {
            Issue.record("expected invalidLength, got \(String(describing: error))")
            return
        }
        #expect(what == "MAC key")
        #expect(actual == length)
    }
}
