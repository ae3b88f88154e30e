import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import Testing

extension JournalTestSuite {
    /// The chain is checked a read buffer at a time: wherever the first bad frame lies (a
    /// buffer's edges, the first or last frame), it is reported at its sequence number and
    /// offset, and every frame before it is kept.
    @Suite struct JournalBufferTests {
        /// 9,000 frames of 250 bytes: about 2.7 MB, so the 2 MiB read buffer is refilled.
        static let frameCount = 9_000

        static func largeJournal(in directory: TemporaryDirectory) throws -> [UInt8] {
            let path = directory.file("large.journal")
            let journal = try Journal.create(at: path)
            for first in stride(from: 1, through: frameCount, by: 1_000) {
                _ = try journal.append { batch in
                    for sequence in first..<min(first + 1_000, frameCount + 1) {
                        try batch.add(kind: .dataSealed, payload: payloads(sizes: [250], salt: UInt8(sequence % 251))[0])
                    }
                }
            }
            return try readBytes(path)
        }

        @Test func theFirstBadFrameIsReportedWhereverItLies() throws {
            let directory = try TemporaryDirectory()
            let bytes = try Self.largeJournal(in: directory)
            let ranges = frameRanges(bytes)
            #expect(ranges.count == Self.frameCount)
            let copy = directory.file("flipped.journal")
            // Frames at the start, around where the first buffer ends (2 MiB), inside a
            // buffer, and the last.
            let bufferEdge = ranges.firstIndex { $0.upperBound > 2 << 20 } ?? 0
            let frames = [0, 1, 2, 1_500, 4_000, bufferEdge - 1, bufferEdge, bufferEdge + 1, 8_000, Self.frameCount - 1]
            for frame in frames {
                // A payload byte (frame hash), then a byte of the stored header check.
                for (byte, reason) in [
                    (ranges[frame].lowerBound + 40, JournalDamage.frameHashMismatch), (ranges[frame].lowerBound + 13, .frameHeaderMismatch),
                ] {
                    var flipped = bytes
                    flipped[byte] ^= 0x04
                    try writeNewFile(flipped, to: copy)
                    let report = try Journal.verify(at: copy)
                    #expect(report.problem?.sequence == UInt64(frame + 1), "frame \(frame + 1): \(String(describing: report.problem))")
                    #expect(report.problem?.offset == ranges[frame].lowerBound, "frame \(frame + 1)")
                    #expect(report.problem?.damage == reason, "frame \(frame + 1): \(String(describing: report.problem))")
                    #expect(report.frameCount == frame, "frame \(frame + 1)")
                    let error = caught(JournalError.self) { try Journal.open(at: copy, access: .readOnly) }
                    #expect(error?.code == report.problem.map { .corrupt($0) }, "frame \(frame + 1)")
                }
            }
        }

        @Test func ofTwoBadFramesInOneBufferTheEarlierIsReported() throws {
            let directory = try TemporaryDirectory()
            let bytes = try Self.largeJournal(in: directory)
            let ranges = frameRanges(bytes)
            let copy = directory.file("flipped.journal")
            // Two in the first buffer, near or far apart.
            for (first, second) in [(100, 3_000), (3_000, 3_001), (0, 6_000)] {
                var flipped = bytes
                flipped[ranges[first].lowerBound + 30] ^= 0x01
                flipped[ranges[second].lowerBound + 30] ^= 0x01
                try writeNewFile(flipped, to: copy)
                let report = try Journal.verify(at: copy)
                #expect(report.problem?.sequence == UInt64(first + 1), "\(String(describing: report.problem))")
                #expect(report.frameCount == first)
            }
        }

        @Test func aWholeLargeJournalVerifiesAndReplaysInOrder() throws {
            let directory = try TemporaryDirectory()
            let bytes = try Self.largeJournal(in: directory)
            let report = try Journal.verify(at: directory.file("large.journal"))
            #expect(report.isValid)
            #expect(report.frameCount == Self.frameCount)
            let journal = try Journal.open(at: directory.file("large.journal"), access: .readOnly)
            let ranges = frameRanges(bytes)
            var previous: [UInt8] = journal.header.genesisHash
            var sequence: UInt64 = 0
            try journal.replay { frame in
                sequence += 1
                #expect(frame.sequence == sequence)
                #expect(Array(frame.previousHash) == previous)
                let range = ranges[Int(frame.sequence) - 1]
                previous = Array(bytes[range.upperBound - 32..<range.upperBound])
            }
            #expect(sequence == UInt64(Self.frameCount))
            #expect(journal.headHash == previous)
        }
    }
}
