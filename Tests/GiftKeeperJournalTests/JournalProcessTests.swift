import GiftKeeperJournal
import Glibc
import Testing

extension JournalTestSuite {
    /// Two writers in two processes, a writer killed mid-append, a write that fails: SPEC §5.
    @Suite struct JournalProcessTests {
        @Test func aSecondProcessIsRefusedAtOnce() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("held.journal")
            let bytes = try makeJournal(at: path, payloads: [[1], [2]])
            let holder = try Journal.open(at: path, access: .readWrite)
            let clock = ContinuousClock()
            let start = clock.now
            let probe = try ChildProcess(try probePath(), [path, "10"])
            let output = probe.readAllLines()
            let message = probe.readError()
            #expect(probe.exitCode() == 4)
            #expect(clock.now - start < .seconds(5))
            #expect(output.isEmpty)
            #expect(message.contains("in use"), "\(message)")
            #expect(!message.dropLast().contains("\n"), "one line: \(message)")
            #expect(try readBytes(path) == bytes)
            withExtendedLifetime(holder) {}
        }

        @Test func everyAcknowledgedFrameSurvivesAKill() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("killed.journal")
            let probe = try probePath()
            var acknowledged: UInt64 = 0
            var tornTails = 0
            var generator = SystemRandomNumberGenerator()

            for round in 0..<10 {
                let child = try ChildProcess(probe, [path, "100000"])
                let wanted = Int.random(in: 1...60, using: &generator)
                let early = child.readLines(atLeast: wanted)
                #expect(early.count >= wanted, "round \(round): probe stopped early: \(child.readError())")
                usleep(UInt32.random(in: 0...3000, using: &generator))
                #expect(kill(child.pid, SIGKILL) == 0)
                // Everything printed before the kill was acknowledged after its fsync.
                let lines = child.readAllLines()
                #expect(child.terminatingSignal() == SIGKILL, "round \(round): \(child.readError())")
                let numbers = lines.compactMap { UInt64($0) }
                #expect(numbers.count == lines.count)
                #expect(numbers == Array(acknowledged + 1..<acknowledged + 1 + UInt64(numbers.count)), "round \(round)")
                acknowledged = numbers.last ?? acknowledged

                let journal = try Journal.open(at: path, access: .readWrite)
                if journal.trimmedTail != nil { tornTails += 1 }
                #expect(journal.lastSequence >= acknowledged, "round \(round): acknowledged frames lost")
                var expected: UInt64 = 1
                try journal.replay { frame in
                    #expect(frame.sequence == expected)
                    #expect(Array(frame.payload) == probePayload(for: frame.sequence), "frame \(frame.sequence)")
                    expected += 1
                }
                #expect(expected - 1 == journal.lastSequence)
                // Frames written but not yet acknowledged when the kill came count from here on.
                acknowledged = journal.lastSequence
            }
            print("kill test: \(acknowledged) frames after 10 kills, \(tornTails) torn tails trimmed")
        }

        @Test func aFailedWriteAcknowledgesNothingAndLeavesNoPartialFrame() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("full.journal")
            try makeJournal(at: path, payloads: [[1, 2, 3]])
            let before = try readBytes(path).count
            // Room for a few probe frames (61 to 129 bytes each), then EFBIG mid-frame.
            let limit = before + 300
            let child = try ChildProcess(try probePath(), [path, "100", "--max-file-size", String(limit)])
            let lines = child.readAllLines()
            let message = child.readError()
            #expect(child.exitCode() == 5, "\(message)")
            #expect(!lines.isEmpty && lines.count < 100)
            #expect(message.contains("write"), "\(message)")

            let journal = try Journal.open(at: path, access: .readWrite)
            #expect(journal.trimmedTail == nil)  // the writer cut its partial frame back itself
            #expect(journal.lastSequence == UInt64(lines.count + 1))
            #expect(try readBytes(path).count == journal.size)
            #expect(journal.size <= limit)
        }
    }
}
