import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import Testing

extension JournalTestSuite {
    @Suite struct JournalTests {
        @Test func createAppendReplayRoundTrip() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("round.journal")
            let contents = payloads(sizes: [5, 0, 40, 1000, 3])
            let kinds: [FrameKind] = [.keyWrap, .dataSealed, .publicSealed, .dataSealed, .dataSealed]
            var appended: [AppendedFrame] = []
            let header: JournalHeader
            do {
                let journal = try Journal.create(at: path)
                header = journal.header
                #expect(journal.lastSequence == 0)
                #expect(journal.frameCount == 0)
                #expect(journal.headHash == header.genesisHash)
                #expect(journal.size == 60)
                // One frame, then a batch of two, then two more: sequence and chain carry across.
                appended += try journal.append { batch in
                    #expect(batch.nextSequence == 1)
                    #expect(batch.previousHash == header.genesisHash)
                    #expect(batch.base == JournalHead(sequence: 0, hash: header.genesisHash))
                    try batch.add(kind: kinds[0], payload: contents[0])
                }
                appended += try journal.append { batch in
                    try batch.add(kind: kinds[1], payload: contents[1])
                    #expect(batch.nextSequence == 3)
                    try batch.add(kind: kinds[2], payload: contents[2])
                }
                appended += try journal.append { batch in
                    try batch.add(kind: kinds[3], payload: contents[3])
                    try batch.add(kind: kinds[4], payload: contents[4])
                }
                #expect(appended.map(\.sequence) == [1, 2, 3, 4, 5])
                #expect(journal.lastSequence == 5)
                #expect(journal.frameCount == 5)
                #expect(journal.headHash == appended[4].hash)
                #expect(try replayAll(journal).map(\.payload) == contents)
            }
            let fileBytes = try readBytes(path)
            for access in [JournalAccess.readOnly, .readWrite] {
                let journal = try Journal.open(at: path, access: access)
                #expect(journal.header == header)
                #expect(journal.trimmedTail == nil)
                #expect(journal.lastSequence == 5)
                #expect(journal.headHash == appended[4].hash)
                var previous = header.genesisHash
                var index = 0
                try journal.replay { frame in
                    #expect(frame.sequence == UInt64(index + 1))
                    #expect(frame.kind == kinds[index])
                    #expect(Array(frame.payload) == contents[index])
                    #expect(Array(frame.previousHash) == previous)
                    // Each payload is in the file where its append said the frame begins,
                    // after the frame's 21-byte header.
                    let payloadStart = appended[index].offset + 21
                    #expect(Array(fileBytes[payloadStart..<payloadStart + frame.payload.count]) == contents[index])
                    previous = appended[index].hash
                    index += 1
                }
                #expect(index == 5)
            }
        }

        @Test func headerAndFrameBytesAreAsDocumented() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("layout.journal")
            let journal = try Journal.create(at: path)
            var bytes = try readBytes(path)
            #expect(bytes.count == 60)
            #expect(Array(bytes[0..<8]) == Array("GIFTKEEP".utf8))
            #expect(Array(bytes[8..<10]) == [2, 0])  // version 2, little-endian
            #expect(Array(bytes[10..<12]) == [0, 0])  // flags
            #expect(Array(bytes[12..<28]) == journal.header.journalID)
            #expect(journal.header.journalID.count == 16)
            #expect(Array(bytes[28..<60]) == Blake2b.hash(Array(bytes[0..<28])))
            #expect(journal.header.genesisHash == Array(bytes[28..<60]))
            #expect(journal.header.formatVersion == 2)

            let frames = try journal.append { batch in
                try batch.add(kind: .publicSealed, payload: [0xAA, 0xBB])
            }
            bytes = try readBytes(path)
            #expect(bytes.count == 60 + 53 + 2)
            let genesis = journal.header.genesisHash
            #expect(Array(bytes[60..<64]) == [2, 0, 0, 0])  // payload length
            #expect(Array(bytes[64..<72]) == [1, 0, 0, 0, 0, 0, 0, 0])  // sequence 1
            #expect(bytes[72] == 2)  // kind: sealed to the public key
            #expect(Array(bytes[73..<81]) == Array(Blake2b.hash(Array(bytes[60..<73]), key: genesis).prefix(8)))
            #expect(Array(bytes[81..<83]) == [0xAA, 0xBB])
            let frameHash = Blake2b.hash(Array(bytes[60..<83]), key: genesis)
            #expect(Array(bytes[83..<115]) == frameHash)
            #expect(frames.first?.hash == frameHash)
            #expect(frames.first?.offset == 60)
            #expect(journal.headHash == frameHash)
        }

        /// The worked example of docs/journal-format.md, byte for byte.
        @Test func documentedExampleOpens() throws {
            let hex = """
                4749 4654 4b45 4550 0100 0000 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f 90e6 2ede
                4291 b335 f519 09ec 1b73 b5bd 2181 0bc0 a315 b00d d674 23e8 5076 2eb7 0500 0000
                0100 0000 0000 0000 01e7 a3a8 82c7 8d64 7b68 656c 6c6f 026b a718 694d e28d 3a53
                1539 f085 24a6 2ea5 89fe 4c91 bcd2 dd41 408a 8c14 1d02
                """
            let digits = Array(hex.filter(\.isHexDigit))
            let bytes = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<$0 + 2]), radix: 16)! }
            #expect(bytes.count == 118)
            let directory = try TemporaryDirectory()
            let path = directory.file("example.journal")
            try writeNewFile(bytes, to: path)
            let journal = try Journal.open(at: path, access: .readWrite)
            #expect(journal.header.journalID == Array(0..<16))
            #expect(journal.header.genesisHash == Array(bytes[28..<60]))
            #expect(journal.headHash == Array(bytes[86..<118]))
            let frames = try replayAll(journal)
            #expect(frames.count == 1)
            #expect(frames.first?.sequence == 1)
            #expect(frames.first?.kind == .dataSealed)
            #expect(frames.first?.payload == Array("hello".utf8))
            // Appending to it chains on from the documented frame hash.
            let appended = try journal.append { try $0.add(kind: .keyWrap, payload: []) }
            #expect(appended.first?.sequence == 2)
            #expect(appended.first?.offset == 118)
        }

        @Test func fileHoldsExactlyHeaderAndFrames() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("size.journal")
            let sizes = [0, 1, 2, 63, 64, 65, 4096, 70_000]
            let journal = try Journal.create(at: path)
            try journal.append { batch in
                for payload in payloads(sizes: sizes) {
                    try batch.add(kind: .dataSealed, payload: payload)
                }
            }
            let expected = 60 + sizes.reduce(0) { $0 + 53 + $1 }
            #expect(journal.size == expected)
            #expect(try readBytes(path).count == expected)
            #expect(frameRanges(try readBytes(path)).map(\.count) == sizes.map { $0 + 53 })
        }

        @Test func createMakesPrivateFileAndDirectories() throws {
            let directory = try TemporaryDirectory()
            #expect(chmod(directory.path, 0o755) == 0)
            let path = directory.file("a/b/c.journal")
            _ = try Journal.create(at: path)
            #expect(permissions(of: path) == 0o600)
            #expect(permissions(of: directory.file("a")) == 0o700)
            #expect(permissions(of: directory.file("a/b")) == 0o700)
            #expect(permissions(of: directory.path) == 0o755)  // an existing parent is left alone
            // Only the journal remains: the temporary name is gone.
            #expect(try directoryEntries(directory.file("a/b")) == ["c.journal"])
        }

        @Test func createRefusesAnExistingPath() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("exists.journal")
            let original = try makeJournal(at: path, payloads: [[1, 2, 3]])
            let error = caught(JournalError.self) { try Journal.create(at: path) }
            #expect(error?.code == .alreadyExists)
            #expect(error?.exitCode == 4)
            #expect(try readBytes(path) == original)

            let other = directory.file("notes.txt")
            try writeNewFile(Array("keep me".utf8), to: other)
            #expect(caught(JournalError.self) { try Journal.create(at: other) }?.code == .alreadyExists)
            #expect(try readBytes(other) == Array("keep me".utf8))
            #expect(try directoryEntries(directory.path).sorted() == ["exists.journal", "notes.txt"])
        }

        @Test func openRefusesWhatIsNotAPrivateJournal() throws {
            let directory = try TemporaryDirectory()
            for access in [JournalAccess.readOnly, .readWrite] {
                let missing = caught(JournalError.self) { try Journal.open(at: directory.file("missing.journal"), access: access) }
                #expect(missing?.code == .notFound)
                #expect(missing?.exitCode == 4)

                let isDirectory = caught(JournalError.self) { try Journal.open(at: directory.path, access: access) }
                #expect(isDirectory?.code == .isDirectory)
                #expect(isDirectory?.exitCode == 4)
            }

            let open = directory.file("open.journal")
            try makeJournal(at: open, payloads: [[9]])
            #expect(chmod(open, 0o644) == 0)
            let insecure = caught(JournalError.self) { try Journal.open(at: open, access: .readOnly) }
            #expect(insecure?.code == .insecurePermissions(mode: 0o644))
            #expect(insecure?.exitCode == 4)
            #expect(chmod(open, 0o620) == 0)
            #expect(caught(JournalError.self) { try Journal.open(at: open, access: .readWrite) }?.code == .insecurePermissions(mode: 0o620))

            let text = directory.file("text.journal")
            try writeNewFile(Array(String(repeating: "not a journal at all\n", count: 10).utf8), to: text)
            let notJournal = caught(JournalError.self) { try Journal.open(at: text, access: .readWrite) }
            #expect(notJournal?.code == .notAJournal)
            #expect(notJournal?.exitCode == 4)
            let short = directory.file("short.journal")
            try writeNewFile(Array("GIFTKEEP".utf8), to: short)
            #expect(caught(JournalError.self) { try Journal.open(at: short, access: .readOnly) }?.code == .notAJournal)
            let empty = directory.file("empty.journal")
            try writeNewFile([], to: empty)
            #expect(caught(JournalError.self) { try Journal.open(at: empty, access: .readWrite) }?.code == .notAJournal)

            let newer = directory.file("newer.journal")
            var bytes = try makeJournal(at: newer, payloads: [[1]])
            bytes[8] = 4  // version 3 is a household's journal; 4 is newer than this build reads
            rehashHeader(&bytes)
            try writeNewFile(bytes, to: newer)
            let version = caught(JournalError.self) { try Journal.open(at: newer, access: .readWrite) }
            #expect(version?.code == .unsupportedVersion(4))
            #expect(version?.exitCode == 4)
            #expect(caught(JournalError.self) { try Journal.verify(at: newer) }?.code == .unsupportedVersion(4))

            let flagged = directory.file("flags.journal")
            bytes = try makeJournal(at: flagged, payloads: [[1]])
            bytes[10] = 1
            rehashHeader(&bytes)
            try writeNewFile(bytes, to: flagged)
            #expect(caught(JournalError.self) { try Journal.open(at: flagged, access: .readOnly) }?.code == .notAJournal)

            let link = directory.file("link.journal")
            #expect(symlink(open, link) == 0)
            #expect(caught(JournalError.self) { try Journal.open(at: link, access: .readOnly) }?.code == .notRegularFile)
            let fifo = directory.file("fifo.journal")
            #expect(mkfifo(fifo, 0o600) == 0)
            for access in [JournalAccess.readOnly, .readWrite] {
                #expect(caught(JournalError.self) { try Journal.open(at: fifo, access: access) }?.code == .notRegularFile)
            }
        }

        @Test(.enabled(if: getuid() == 0, "needs root to give a file to another user"))
        func openRefusesAForeignFile() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("theirs.journal")
            try makeJournal(at: path, payloads: [[1]])
            #expect(chown(path, 4242, 4242) == 0)
            let error = caught(JournalError.self) { try Journal.open(at: path, access: .readOnly) }
            #expect(error?.code == .foreignOwner(uid: 4242))
            #expect(error?.exitCode == 4)
        }

        /// SPEC §12: handles on one file in any number (writers and readers) open side by
        /// side; an append built on a head another writer has passed is a conflict that
        /// brings the new head, and the next one built on it lands after the other's frames.
        @Test func handlesShareOneFileAndAConflictBringsTheNewHead() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("shared.journal")
            try makeJournal(at: path, payloads: [[1], [2]])
            let first = try Journal.open(at: path, access: .readWrite)
            let second = try Journal.open(at: path, access: .readWrite)
            let reader = try Journal.open(at: path, access: .readOnly)
            #expect(try Journal.verify(at: path).isValid)

            try first.append { try $0.add(kind: .dataSealed, payload: [3]) }
            var stale = second.makeBatch()
            try stale.add(kind: .dataSealed, payload: [30])
            guard case .conflict(let current) = try second.append(stale) else {
                Issue.record("a batch built on an old head was appended")
                return
            }
            #expect(current == first.head, "the conflict brings the head that won")
            #expect(second.lastSequence == 3, "and the frames that made it")
            var fresh = second.makeBatch()
            try fresh.add(kind: .dataSealed, payload: [4])
            #expect(try second.append(fresh) == .appended(fresh.head))

            // The reader takes in what both wrote; so does the first writer.
            #expect(try reader.waitForFrames(after: 2, milliseconds: 0))
            #expect(reader.lastSequence == 4)
            var payloads: [[UInt8]] = []
            try reader.read(after: 0, progress: nil) { payloads.append(Array($0.payload)) }
            #expect(payloads == [[1], [2], [3], [4]])
            #expect(try first.waitForFrames(after: 3, milliseconds: 0))
            #expect(first.head == second.head)
            let readOnly = caught(JournalError.self) { try reader.append { try $0.add(kind: .dataSealed, payload: [1]) } }
            #expect(readOnly?.code == .readOnlyAccess)
            #expect(readOnly?.exitCode == 5)
            #expect(try Journal.verify(at: path).frameCount == 4)
        }

        /// A program started while a journal is open does not keep it, nor its lock, once it
        /// runs: the descriptor is close-on-exec. (Between fork and exec a child still holds
        /// it, which is why `make test` keeps the suites that start programs apart.)
        @Test func theJournalIsClosedOnExec() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("cloexec.journal")
            try makeJournal(at: path, payloads: [[1]])
            let journal = try Journal.open(at: path, access: .readWrite)
            let descriptors = try directoryEntries("/proc/self/fd").compactMap(Int32.init).filter { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) == path
            }
            #expect(!descriptors.isEmpty, "the open journal has no descriptor on \(path)")
            for fd in descriptors {
                #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(fd) on the journal is inherited by programs")
            }
            withExtendedLifetime(journal) {}
        }

        /// A lock held longer than a writer ever holds it is waited for briefly, then the
        /// journal is called in use (exit 4): by opening, verifying and appending alike.
        @Test func aLockHeldTooLongIsInUse() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("locked.journal")
            try makeJournal(at: path, payloads: [[1], [2]])
            let writer = try Journal.open(at: path, access: .readWrite)
            let holder = open(path, O_RDONLY | O_CLOEXEC)
            try #require(holder >= 0)
            try #require(flock(holder, LOCK_EX) == 0)
            let second = caught(JournalError.self) { try Journal.open(at: path, access: .readWrite) }
            #expect(second?.code == .inUse)
            #expect(second?.exitCode == 4)
            #expect(caught(JournalError.self) { try Journal.verify(at: path) }?.code == .inUse)
            #expect(caught(JournalError.self) { try writer.append { try $0.add(kind: .dataSealed, payload: [3]) } }?.code == .inUse)
            close(holder)
            // Nothing was written while it was held; the writer carries on once it is free.
            try writer.append { try $0.add(kind: .dataSealed, payload: [3]) }
            #expect(try Journal.verify(at: path).frameCount == 3)
        }

        /// A lock let go while an open waits for it is taken: the open waits rather than
        /// calling the journal in use at once.
        @Test func aLockLetGoWhileWaitingIsTaken() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("briefly.journal")
            try makeJournal(at: path, payloads: [[1], [2]])
            let holder = open(path, O_RDONLY | O_CLOEXEC)
            try #require(holder >= 0)
            try #require(flock(holder, LOCK_EX) == 0)
            // Let go a small part of the way into the open's patience (2 s).
            Thread {
                usleep(200_000)
                close(holder)
            }.start()
            let journal = try Journal.open(at: path, access: .readWrite)
            try journal.append { try $0.add(kind: .dataSealed, payload: [3]) }
            #expect(try Journal.verify(at: path).frameCount == 3)
        }

        @Test func appendRejectsOversizedPayloadsAndWritesNothingOnFailure() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("bounds.journal")
            let journal = try Journal.create(at: path)
            let tooLarge = caught(JournalError.self) {
                try journal.append { batch in
                    try batch.add(kind: .dataSealed, payload: [1, 2, 3])
                    try batch.add(kind: .dataSealed, payload: [UInt8](repeating: 0, count: (1 << 20) + 1))
                }
            }
            #expect(tooLarge?.code == .frameTooLarge((1 << 20) + 1))
            #expect(tooLarge?.exitCode == 2)
            struct Abandoned: Error {}
            #expect(throws: Abandoned.self) {
                try journal.append { batch in
                    try batch.add(kind: .dataSealed, payload: [1])
                    throw Abandoned()
                }
            }
            #expect(try journal.append { _ in }.isEmpty)
            #expect(try readBytes(path).count == 60)
            #expect(journal.lastSequence == 0)
            // The largest allowed payload goes through.
            let largest = [UInt8](repeating: 7, count: 1 << 20)
            try journal.append { try $0.add(kind: .dataSealed, payload: largest) }
            #expect(try replayAll(journal).first?.payload == largest)
        }

        @Test func oversizedLengthFieldIsCorruptionNotAnAllocation() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("huge.journal")
            let bytes = try makeJournal(at: path, payloads: [[1, 2]])
            // A frame 2 whose header checks out but claims 2 GiB of payload.
            let lastHash = Array(bytes[(bytes.count - 32)...])
            var header: [UInt8] = [0, 0, 0, 0x80, 2, 0, 0, 0, 0, 0, 0, 0, 1]
            header += Blake2b.hash(header, key: lastHash).prefix(8)
            try writeNewFile(bytes + header + [UInt8](repeating: 1, count: 100), to: path)
            let report = try Journal.verify(at: path)
            #expect(
                report.problem
                    == JournalProblem(
                        sequence: 2, offset: bytes.count, damage: .frameTooLong(2_147_483_648)))
            let error = caught(JournalError.self) { try Journal.open(at: path, access: .readWrite) }
            #expect(error?.code == .corrupt(report.problem!))
            #expect(error?.exitCode == 1)
        }

        @Test func zeroExtendedTailIsTornAndTrimmedOnlyForWriting() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("zeros.journal")
            let bytes = try makeJournal(at: path, payloads: [[1], [2, 3]])
            try writeNewFile(bytes + [UInt8](repeating: 0, count: 5000), to: path)
            let report = try Journal.verify(at: path)
            #expect(report.isValid)
            #expect(report.tornTail == TornTail(offset: bytes.count, length: 5000))
            do {
                let reader = try Journal.open(at: path, access: .readOnly)
                #expect(reader.trimmedTail == TornTail(offset: bytes.count, length: 5000))
                #expect(reader.size == bytes.count)
                #expect(try replayAll(reader).count == 2)
            }
            #expect(try readBytes(path).count == bytes.count + 5000)
            let writer = try Journal.open(at: path, access: .readWrite)
            #expect(writer.trimmedTail?.offset == bytes.count)
            #expect(writer.trimmedTail?.length == 5000)
            // Zeros hold nothing anyone wrote: nothing is saved aside.
            #expect(writer.trimmedTail?.savedAs == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["zeros.journal"])
            #expect(try readBytes(path) == bytes)
            try writer.append { try $0.add(kind: .dataSealed, payload: [4]) }
            #expect(writer.lastSequence == 3)
        }

        @Test func tailLongerThanOneFrameIsDamageNeverReadOrCopied() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("extended.journal")
            let bytes = try makeJournal(at: path, payloads: [[1], [2, 3]])
            // One byte more than the longest frame, then 1 GiB more (a sparse hole: `truncate -s +1G`).
            for extra in [(1 << 20) + 54, 1 << 30] {
                try writeNewFile(bytes, to: path)
                #expect(truncate(path, off_t(bytes.count + extra)) == 0)
                let damage = JournalProblem(
                    sequence: 3, offset: bytes.count, damage: .tailTooLong(length: UInt64(extra)))
                let report = try Journal.verify(at: path)
                #expect(report.problem == damage)
                #expect(report.tornTail == nil)
                for access in [JournalAccess.readOnly, .readWrite] {
                    let error = caught(JournalError.self) { try Journal.open(at: path, access: access) }
                    #expect(error?.code == .corrupt(damage))
                    #expect(error?.exitCode == 1)
                }
                // Read-only tolerating damage (audit): the frames before it.
                let tolerant = try Journal.open(at: path, access: .readOnly, toleratingDamage: true)
                #expect(tolerant.damage == damage)
                #expect(tolerant.frameCount == 2)
                var info = stat()
                #expect(stat(path, &info) == 0 && Int(info.st_size) == bytes.count + extra)
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["extended.journal"])
            }
            // The longest frame's worth of zeros is still a torn tail, trimmed without a copy.
            try writeNewFile(bytes, to: path)
            #expect(truncate(path, off_t(bytes.count + (1 << 20) + 53)) == 0)
            #expect(try Journal.verify(at: path).tornTail == TornTail(offset: bytes.count, length: (1 << 20) + 53))
            let writer = try Journal.open(at: path, access: .readWrite)
            #expect(writer.trimmedTail == TornTail(offset: bytes.count, length: (1 << 20) + 53))
            #expect(try readBytes(path) == bytes)
        }

        @Test func replayReportsProgress() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("progress.journal")
            let journal = try Journal.create(at: path)
            try journal.append { batch in
                for _ in 0..<40 {
                    try batch.add(kind: .dataSealed, payload: [UInt8](repeating: 1, count: 100_000))
                }
            }
            var reports: [(Int, Int)] = []
            var count = 0
            try journal.replay(progress: { reports.append(($0, $1)) }, { _ in count += 1 })
            #expect(count == 40)
            #expect(reports.count >= 2)
            #expect(reports.last.map { $0 == (journal.size, journal.size) } == true)
            #expect(reports.map(\.0) == reports.map(\.0).sorted())
        }

        /// The sentences are the shell's: GiftKeeperREPLTests/MessagesTests.
        @Test func errorsHaveExitCodes() {
            let problem = JournalProblem(sequence: 7, offset: 1234, damage: .frameHashMismatch)
            let cases: [(JournalError.Code, Int32)] = [
                (.corrupt(problem), 1),
                (.frameTooLarge(2_000_000), 2),
                (.notFound, 4),
                (.alreadyExists, 4),
                (.inUse, 4),
                (.isDirectory, 4),
                (.notRegularFile, 4),
                (.notAJournal, 4),
                (.unsupportedVersion(3), 4),
                (.insecurePermissions(mode: 0o644), 4),
                (.foreignOwner(uid: 5), 4),
                (.io(operation: "open", errno: EACCES), 5),
                (.io(operation: "write", errno: ENOSPC), 5),
                (.io(operation: "open", errno: EROFS), 5),
                (.io(operation: "fsync", errno: EIO), 5),
                (.readOnlyAccess, 5),
                (.unusable, 5),
                (.changedWhileOpen(.size(expected: 100, actual: 400)), 1),
                (.changedWhileOpen(.replaced), 1),
            ]
            for (code, exit) in cases {
                let error = JournalError(code, path: "/x/j")
                #expect(error.exitCode == exit, "\(code)")
            }
        }

        /// A journal of 100,000 frames, appended in batches of 1,000, replays every frame in
        /// order. (How fast is the benchmarks' business: `make bench`.)
        @Test func largeJournalReplaysEveryFrame() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("large.journal")
            let total = 100_000
            let journal = try Journal.create(at: path)
            for batchStart in stride(from: 0, to: total, by: 1000) {
                try journal.append { batch in
                    for index in batchStart..<batchStart + 1000 {
                        try batch.add(kind: .dataSealed, payload: probePayload(for: UInt64(index + 1)))
                    }
                }
            }
            var count: UInt64 = 0
            var intact = true
            let reopened = try Journal.open(at: path, access: .readOnly)
            try reopened.replay { frame in
                count += 1
                intact = intact && frame.sequence == count && Array(frame.payload) == probePayload(for: count)
            }
            #expect(count == UInt64(total))
            #expect(intact, "every frame in order, with its payload")
            #expect(reopened.lastSequence == UInt64(total))
        }
    }
}
