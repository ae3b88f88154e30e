import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

extension JournalTestSuite {
    /// Two writers in two processes, a writer killed mid-append, a write that fails: SPEC §5.
    /// One at a time: each starts its own writers and times the lock's wait.
    @Suite(.serialized) struct JournalProcessTests {
        /// Writers hold the lock only while they append; one held far longer (a stopped
        /// process, or a program other than giftkeeper) is waited for, then called in use.
        @Test func aLockHeldTooLongIsInUseAfterAShortWait() async throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("held.journal")
            let bytes = try makeJournal(at: path, payloads: [[1], [2]])
            let holder = open(path, O_RDONLY | O_CLOEXEC)
            try #require(holder >= 0)
            defer { close(holder) }
            try #require(flock(holder, LOCK_EX) == 0)
            let clock = ContinuousClock()
            let start = clock.now
            let probe = try await runProgram(try probePath(), [path, "10"])
            let message = probe.stderr
            #expect(probe.status == 4, "\(probe)")
            #expect(clock.now - start >= .seconds(1), "the lock was waited for")
            // Gave up rather than waiting on: the patience is 2 s; the rest of the bound is for
            // starting a process on a loaded machine (CI runs the other suites beside it).
            #expect(clock.now - start < .seconds(20))
            #expect(probe.stdout.isEmpty)
            #expect(message.contains("in use"), "\(message)")
            #expect(!message.dropLast().contains("\n"), "one line: \(message)")
            #expect(try readBytes(path) == bytes)
        }

        /// SPEC §12: several processes append to one file at once. Each append takes the lock
        /// briefly, takes in what the others appended, and appends after it: every frame any
        /// of them acknowledged is in the chain exactly once, in one verified order.
        @Test func processesAppendingAtOnceLoseNothing() async throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("shared.journal")
            try makeJournal(at: path, payloads: [])
            let probe = try probePath()
            let probes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                for _ in 0..<3 { group.addTask { try await runProgram(probe, [path, "150"], timeout: .seconds(120)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var acknowledged: [UInt64] = []
            for probe in probes {
                let numbers = completeLines(probe.stdout).compactMap(UInt64.init)
                #expect(probe.status == 0, "\(probe)")
                #expect(numbers.count == 150)
                #expect(numbers == numbers.sorted(), "each process's frames in its own order")
                acknowledged += numbers
            }
            #expect(acknowledged.sorted() == Array(1...450), "each acknowledged once, none lost")
            let journal = try Journal.open(at: path, access: .readOnly)
            #expect(journal.lastSequence == 450)
            var expected: UInt64 = 1
            try journal.replay { frame in
                #expect(frame.sequence == expected)
                #expect(Array(frame.payload) == probePayload(for: frame.sequence), "frame \(frame.sequence)")
                expected += 1
            }
            #expect(try Journal.verify(at: path).isValid)
        }

        @Test func everyAcknowledgedFrameSurvivesAKill() async throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("killed.journal")
            let probe = try probePath()
            var acknowledged: UInt64 = 0
            var tornTails = 0
            var generator = TestRandom()

            for round in 0..<10 {
                let wanted = Int.random(in: 1...60, using: &generator)
                let pause = Duration.microseconds(Int.random(in: 0...3000, using: &generator))
                let (early, child) = try await withProgram(probe, [path, "100000"], timeout: .seconds(60)) { child in
                    let early = await child.lines(atLeast: wanted)
                    try await Task.sleep(for: pause)
                    child.kill(SIGKILL)
                    return early
                }
                #expect(early.count >= wanted, generator.comment("round \(round): probe stopped early: \(child)"))
                // Everything printed before the kill was acknowledged after its fsync.
                let lines = completeLines(child.stdout)
                #expect(child.signal == SIGKILL && !child.timedOut, generator.comment("round \(round): \(child)"))
                let numbers = lines.compactMap { UInt64($0) }
                #expect(numbers.count == lines.count)
                #expect(numbers == Array(acknowledged + 1..<acknowledged + 1 + UInt64(numbers.count)), generator.comment("round \(round)"))
                acknowledged = numbers.last ?? acknowledged

                let journal = try Journal.open(at: path, access: .readWrite)
                if journal.trimmedTail != nil { tornTails += 1 }
                #expect(journal.lastSequence >= acknowledged, generator.comment("round \(round): acknowledged frames lost"))
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

        @Test func aFailedWriteAcknowledgesNothingAndLeavesNoPartialFrame() async throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("full.journal")
            try makeJournal(at: path, payloads: [[1, 2, 3]])
            let before = try readBytes(path).count
            // Room for a few probe frames (61 to 129 bytes each), then EFBIG mid-frame.
            let limit = before + 300
            let child = try await runProgram(try probePath(), [path, "100", "--max-file-size", String(limit)])
            let lines = completeLines(child.stdout)
            let message = child.stderr
            #expect(child.status == 5, "\(child)")
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

/// The lines of `text` that its last newline ended (a line cut off by a kill is not one).
private func completeLines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}
