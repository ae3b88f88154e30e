import GiftKeeperCrypto
import Testing

@Suite("SecureBytes")
struct SecureBytesTests {
    @Test("capacity and count", arguments: [0, 1, 32, 4096])
    func capacityAndCount(_ capacity: Int) throws {
        let bytes = try SecureBytes(capacity: capacity)
        #expect(bytes.capacity == capacity)
        #expect(bytes.count == capacity)
        #expect(bytes.testBytes == [UInt8](repeating: 0, count: capacity), "fresh memory is zeroed")
    }

    @Test(
        "an explicit count is clamped to 0…capacity",
        arguments: [
            (-5, 0), (0, 0), (3, 3), (8, 8), (9, 8), (Int.max, 8),
        ])
    func explicitCount(_ requested: Int, _ expected: Int) throws {
        let bytes = try SecureBytes(capacity: 8, count: requested)
        #expect(bytes.capacity == 8)
        #expect(bytes.count == expected)
        #expect(bytes.testBytes.count == expected)
    }

    @Test("a copy holds the same bytes in memory of its own")
    func copy() throws {
        let original = try SecureBytes.random(count: 20)
        let bytes = original.testBytes
        let copied = try original.copy()
        #expect(copied.testBytes == bytes && copied.count == 20)
        original.wipe()
        #expect(copied.testBytes == bytes, "wiping the original leaves the copy")
    }

    @Test("random is not all zero and differs each time")
    func random() throws {
        let a = try SecureBytes.random(count: 64)
        let b = try SecureBytes.random(count: 64)
        #expect(a.count == 64)
        #expect(a.capacity == 64)
        #expect(a.testBytes.contains { $0 != 0 })
        #expect(!a.constantTimeEquals(b))
        #expect(try SecureBytes.random(count: 0).count == 0)
    }

    @Test("wipe zeroes every allocated byte and empties")
    func wipe() throws {
        let bytes = try SecureBytes.random(count: 48)
        // Shrink the count so that bytes beyond it also hold data, then check they are zeroed too.
        let partial = try SecureBytes(capacity: 16, count: 0)
        for byte in 1...10 { partial.append(UInt8(byte)) }
        bytes.wipe()
        partial.wipe()
        #expect(bytes.count == 0)
        #expect(bytes.capacity == 48)
        #expect(partial.count == 0)
        // Reveal the whole allocation through fill (which keeps what body returns).
        bytes.fill { whole in
            #expect(whole.count == 48)
            #expect(whole.allSatisfy { $0 == 0 })
            return 0
        }
        partial.fill { whole in
            #expect(whole.allSatisfy { $0 == 0 })
            return 0
        }
        // Wiping an empty buffer is harmless.
        try SecureBytes(capacity: 0).wipe()
    }

    @Test("fill keeps what body returns, clamped, and zeroes the rest")
    func fill() throws {
        let bytes = try SecureBytes(capacity: 8)
        bytes.fill { whole in
            for index in whole.indices { whole[index] = 0xEE }
            return 3
        }
        #expect(bytes.count == 3)
        #expect(bytes.testBytes == [0xEE, 0xEE, 0xEE])
        bytes.fill { whole in
            // The tail beyond the kept count was zeroed by the previous fill.
            #expect(Array(whole) == [0xEE, 0xEE, 0xEE, 0, 0, 0, 0, 0])
            return 100
        }
        #expect(bytes.count == 8)
        bytes.fill { _ in -4 }
        #expect(bytes.count == 0)
        bytes.fill { whole in
            #expect(whole.allSatisfy { $0 == 0 })
            return 0
        }
    }

    @Test("fill rethrows and still behaves")
    func fillRethrows() throws {
        struct Stop: Error {}
        let bytes = try SecureBytes(capacity: 4)
        #expect(throws: Stop.self) { try bytes.fill { _ in throw Stop() } }
    }

    @Test("append up to capacity, then refuses")
    func append() throws {
        let bytes = try SecureBytes(capacity: 3, count: 0)
        #expect(bytes.count == 0)
        #expect(bytes.append(0x61))
        #expect(bytes.append(0x62))
        #expect(bytes.append(0x63))
        #expect(!bytes.append(0x64))
        #expect(bytes.count == 3)
        #expect(bytes.testBytes == Array("abc".utf8))
        #expect(bytes.isASCII)
    }

    @Test("removeLast drops and zeroes the last byte; no-op when empty")
    func removeLast() throws {
        let bytes = try SecureBytes(capacity: 4, count: 0)
        for byte: UInt8 in [1, 2, 3] { bytes.append(byte) }
        bytes.removeLast()
        #expect(bytes.testBytes == [1, 2])
        bytes.removeLast()
        bytes.removeLast()
        bytes.removeLast()
        #expect(bytes.count == 0)
        bytes.fill { whole in
            #expect(whole.allSatisfy { $0 == 0 }, "removed bytes are zeroed")
            return 0
        }
        // Room again after removal.
        #expect(bytes.append(9))
        #expect(bytes.testBytes == [9])
    }

    @Test func constantTimeEquals() throws {
        let a = try SecureBytes(testBytes: [1, 2, 3, 4])
        let same = try SecureBytes(testBytes: [1, 2, 3, 4])
        let different = try SecureBytes(testBytes: [1, 2, 3, 5])
        let shorter = try SecureBytes(testBytes: [1, 2, 3])
        #expect(a.constantTimeEquals(a))
        #expect(a.constantTimeEquals(same))
        #expect(!a.constantTimeEquals(different))
        #expect(!a.constantTimeEquals(shorter))
        #expect(!shorter.constantTimeEquals(a))
        #expect(try SecureBytes(capacity: 0).constantTimeEquals(SecureBytes(capacity: 5, count: 0)))
        // Only the bytes in use count, not the spare capacity.
        let roomy = try SecureBytes(capacity: 10, count: 0)
        for byte: UInt8 in [1, 2, 3, 4] { roomy.append(byte) }
        #expect(roomy.constantTimeEquals(a))
    }

    @Test("withUnsafeMutableBytes writes through")
    func mutableAccess() throws {
        let bytes = try SecureBytes(capacity: 2)
        bytes.withUnsafeMutableBytes { $0[1] = 0x7F }
        #expect(bytes.testBytes == [0, 0x7F])
    }

    @Test func isASCII() throws {
        #expect(try SecureBytes(testBytes: Array("hunter2".utf8)).isASCII)
        #expect(try SecureBytes(capacity: 0).isASCII)
        #expect(try !SecureBytes(testBytes: Array("façade".utf8)).isASCII)
        #expect(try !SecureBytes(testBytes: [0x80]).isASCII)
    }
}

@Suite("Utilities")
struct UtilityTests {
    @Test func randomBytesAreFresh() throws {
        #expect(try randomBytes(count: 0).isEmpty)
        let a = try randomBytes(count: 32)
        #expect(a.count == 32)
        #expect(a != (try randomBytes(count: 32)))
        #expect(a.contains { $0 != 0 })
    }

    @Test func constantTimeEqualArrays() {
        #expect(constantTimeEqual([], []))
        #expect(constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEqual([0, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2], [1, 2, 3]))
        #expect(!constantTimeEqual([], [0]))
    }

    @Test func sodiumInitialises() throws {
        try Sodium.ensureInitialized()
        try Sodium.ensureInitialized()
        #expect(Sodium.libraryVersion.first?.isNumber == true)
    }
}
