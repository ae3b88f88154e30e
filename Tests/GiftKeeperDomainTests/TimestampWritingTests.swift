import GiftKeeperDomain
import GiftKeeperTestSupport
import Testing

/// `Timestamp.writeISO8601(into:)` appends after what the buffer holds and agrees with
/// `iso8601` (defined through it); the known answers are in `TimestampTests`.
@Suite struct TimestampWritingTests {
    private func written(_ timestamp: Timestamp, after prefix: [UInt8] = []) -> [UInt8] {
        var buffer = prefix
        timestamp.writeISO8601(into: &buffer)
        return buffer
    }

    @Test(arguments: [
        Int64(0), -1, 1, 999, 1000, -1000, -1001, 86_399_999, 86_400_000, -86_400_000, 1_796_115_600_000,
        951_782_400_000, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -62_135_596_800_000,
        -62_167_219_200_000, -62_167_219_200_001, -62_198_755_200_000, 31_556_889_864_403_199, -31_556_889_864_403_199,
        .max, .min, .max - 1, .min + 1, Int64.max / 2, Int64.min / 2,
    ])
    func knownValues(ms: Int64) {
        let timestamp = Timestamp(millisecondsSinceEpoch: ms)
        #expect(written(timestamp) == Array(timestamp.iso8601.utf8), "\(ms)")
    }

    @Test func appendsAfterWhatIsThere() {
        let timestamp = Timestamp(millisecondsSinceEpoch: 1_796_115_600_123)
        #expect(written(timestamp, after: Array("at ".utf8)) == Array("at 2026-12-01T09:00:00.123Z".utf8))
    }

    @Test func manyRandomValuesMatchTheString() {
        var random = TestRandom()
        for round in 0..<100_000 {
            let bits = random.next()
            // Every range: whole Int64, ±10,000 years, and the years around 0 and 9999/10000.
            let ms: Int64 =
                switch round % 4 {
                case 0: Int64(bitPattern: bits)
                case 1: Int64(bitPattern: bits) % 315_569_520_000_000
                case 2: -62_167_219_200_000 + Int64(bitPattern: bits) % 63_113_904_000_000
                default: 253_402_300_800_000 + Int64(bitPattern: bits) % 63_113_904_000_000
                }
            let timestamp = Timestamp(millisecondsSinceEpoch: ms)
            let bytes = written(timestamp)
            guard bytes == Array(timestamp.iso8601.utf8) else {
                Issue.record(random.comment("\(ms): \(String(decoding: bytes, as: UTF8.self)) != \(timestamp.iso8601)"))
                return
            }
            #expect(Timestamp(iso8601UTF8: bytes[...]) == timestamp, random.comment("\(ms)"))
        }
    }
}
