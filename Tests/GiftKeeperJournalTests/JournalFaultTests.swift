import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import Testing

extension JournalTestSuite {
    /// Every truncation, every bit flip, reorder, duplicate, drop, splice: SPEC §5.
    @Suite struct JournalFaultTests {
        @Test func everyTruncationKeepsTheWholeFramesBeforeTheCut() throws {
            let directory = try TemporaryDirectory()
            let original = directory.file("original.journal")
            let contents = payloads(sizes: smallJournalSizes)
            let bytes = try makeJournal(at: original, payloads: contents)
            let ranges = frameRanges(bytes)
            #expect(ranges.count == contents.count)
            let copy = directory.file("cut.journal")

            for cut in 0..<60 {
                try writeNewFile(Array(bytes[0..<cut]), to: copy)
                #expect(caught(JournalError.self) { try Journal.open(at: copy, access: .readWrite) }?.code == .notAJournal, "cut \(cut)")
                #expect(caught(JournalError.self) { try Journal.verify(at: copy) }?.code == .notAJournal, "cut \(cut)")
            }
            for cut in 60..<bytes.count {
                try writeNewFile(Array(bytes[0..<cut]), to: copy)
                let whole = ranges.filter { $0.upperBound <= cut }
                let boundary = whole.last?.upperBound ?? 60
                let expectedTail = cut == boundary ? nil : TornTail(offset: boundary, length: cut - boundary)

                let report = try Journal.verify(at: copy)
                #expect(report.isValid, "cut \(cut): \(String(describing: report.problem))")
                #expect(report.tornTail == expectedTail, "cut \(cut)")
                #expect(report.frameCount == whole.count)

                let journal = try Journal.open(at: copy, access: .readWrite)
                #expect(journal.trimmedTail.map { TornTail(offset: $0.offset, length: $0.length) } == expectedTail, "cut \(cut)")
                // What was trimmed was first saved beside the journal, byte for byte.
                if let saved = journal.trimmedTail?.savedAs {
                    #expect(try readBytes(saved) == Array(bytes[boundary..<cut]), "cut \(cut)")
                    #expect(permissions(of: saved) == 0o600)
                    try FileManager.default.removeItem(atPath: saved)
                }
                // A tail of zeros (the start of an empty frame's length field) holds nothing to save.
                let keepsBytes = expectedTail != nil && bytes[boundary..<cut].contains { $0 != 0 }
                #expect((journal.trimmedTail?.savedAs != nil) == keepsBytes, "cut \(cut)")
                #expect(journal.frameCount == whole.count, "cut \(cut)")
                #expect(journal.lastSequence == UInt64(whole.count))
                #expect(journal.size == boundary)
                let frames = try replayAll(journal)
                #expect(frames.map(\.payload) == Array(contents.prefix(whole.count)), "cut \(cut)")
                #expect(try readBytes(copy) == Array(bytes[0..<boundary]), "cut \(cut)")
            }
        }

        @Test func everyBitFlipIsReportedNeverTrimmed() throws {
            let directory = try TemporaryDirectory()
            let original = directory.file("original.journal")
            let bytes = try makeJournal(at: original, payloads: payloads(sizes: smallJournalSizes))
            let ranges = frameRanges(bytes)
            let copy = directory.file("flipped.journal")
            try writeNewFile(bytes, to: copy)
            var failures = 0

            for index in 0..<bytes.count {
                for bit in 0..<8 {
                    var flipped = bytes
                    flipped[index] ^= UInt8(1 << bit)
                    try patchByte(copy, at: index, to: flipped[index])
                    defer { try? patchByte(copy, at: index, to: bytes[index]) }
                    let label = "byte \(index) bit \(bit)"

                    // Where the problem must be reported: the frame holding the byte, or the header.
                    let frame = ranges.firstIndex { $0.contains(index) }
                    let expectedSequence = frame.map { UInt64($0 + 1) } ?? 0
                    let expectedOffset = frame.map { ranges[$0].lowerBound } ?? 0

                    do {
                        let report = try Journal.verify(at: copy)
                        #expect(!report.isValid, "\(label)")
                        #expect(report.tornTail == nil, "\(label)")
                        #expect(report.problem?.sequence == expectedSequence, "\(label): \(String(describing: report.problem))")
                        #expect(report.problem?.offset == expectedOffset, "\(label)")
                        if report.isValid { failures += 1 }
                    } catch {
                        // Only the magic and version bytes may make the file unreadable as a journal.
                        let allowed: Bool
                        switch error.code {
                        case .notAJournal: allowed = index < 8
                        case .unsupportedVersion: allowed = index == 8 || index == 9
                        default: allowed = false
                        }
                        #expect(allowed, "\(label): \(error)")
                    }

                    let openError = caught(JournalError.self) { try Journal.open(at: copy, access: .readWrite) }
                    #expect(openError != nil, "\(label) opened")
                    if case .corrupt(let problem)? = openError?.code {
                        #expect(problem.sequence == expectedSequence, "\(label)")
                        #expect(openError?.exitCode == 1)
                    }
                    #expect(try readBytes(copy) == flipped, "\(label): file changed")
                    if openError == nil { failures += 1 }
                }
            }
            #expect(failures == 0)
        }

        /// The small journal, split into header and frames, and the expected problem after an edit.
        private func expectProblem(
            _ name: String, header: [UInt8], frames: [[UInt8]], sequence: UInt64, offsetOfFrame frameIndex: Int,
            damage: JournalDamage, in directory: TemporaryDirectory
        ) throws {
            let path = directory.file(name)
            try writeNewFile(header + frames.flatMap { $0 }, to: path)
            let offset = 60 + frames.prefix(frameIndex).reduce(0) { $0 + $1.count }
            let report = try Journal.verify(at: path)
            #expect(report.problem?.sequence == sequence, "\(name): \(String(describing: report.problem))")
            #expect(report.problem?.offset == offset, "\(name)")
            #expect(report.problem?.damage == damage, "\(name): \(String(describing: report.problem))")
            #expect(report.frameCount == Int(sequence) - 1)
            #expect(report.tornTail == nil)
            for access in [JournalAccess.readOnly, .readWrite] {
                let error = caught(JournalError.self) { try Journal.open(at: path, access: access) }
                #expect(error?.code == report.problem.map { .corrupt($0) }, "\(name)")
                #expect(error?.exitCode == 1)
            }
        }

        @Test func reorderedDuplicatedDroppedAndSplicedFramesAreReported() throws {
            let directory = try TemporaryDirectory()
            let contents = payloads(sizes: smallJournalSizes)
            let bytes = try makeJournal(at: directory.file("a.journal"), payloads: contents)
            let other = try makeJournal(at: directory.file("b.journal"), payloads: contents)
            let header = Array(bytes[0..<60])
            let frames = frameRanges(bytes).map { Array(bytes[$0]) }
            let otherFrames = frameRanges(other).map { Array(other[$0]) }

            var reordered = frames
            reordered.swapAt(1, 2)
            try expectProblem(
                "reordered", header: header, frames: reordered, sequence: 2, offsetOfFrame: 1,
                damage: .unexpectedSequence(found: 3, expected: 2), in: directory)

            var duplicated = frames
            duplicated.insert(frames[1], at: 2)
            try expectProblem(
                "duplicated", header: header, frames: duplicated, sequence: 3, offsetOfFrame: 2,
                damage: .unexpectedSequence(found: 2, expected: 3), in: directory)

            var dropped = frames
            dropped.remove(at: 2)
            try expectProblem(
                "dropped", header: header, frames: dropped, sequence: 3, offsetOfFrame: 2,
                damage: .unexpectedSequence(found: 4, expected: 3), in: directory)

            var spliced = frames
            spliced[2] = otherFrames[2]  // same sequence, kind and length: only the chain tells
            try expectProblem(
                "spliced", header: header, frames: spliced, sequence: 3, offsetOfFrame: 2,
                damage: .frameHeaderMismatch, in: directory)

            try expectProblem(
                "foreign-header", header: Array(other[0..<60]), frames: frames, sequence: 1, offsetOfFrame: 0,
                damage: .frameHeaderMismatch, in: directory)

            var altered = frames
            altered[3][30] ^= 0xFF  // a payload byte: the header still verifies
            try expectProblem(
                "altered-payload", header: header, frames: altered, sequence: 4, offsetOfFrame: 3,
                damage: .frameHashMismatch, in: directory)

            // A bad frame followed by good ones is never cut away, whatever the access.
            var truncatedMiddle = frames
            truncatedMiddle[1].removeLast(10)
            try expectProblem(
                "short-middle-frame", header: header, frames: truncatedMiddle, sequence: 2, offsetOfFrame: 1,
                damage: .frameHashMismatch, in: directory)
        }

        /// The journal renamed over or removed while open (`cp j new; mv new j`): the next
        /// append is not acknowledged, the file now at the path is untouched, and the old
        /// file is cut back to what it held.
        @Test func aJournalReplacedWhileOpenAcknowledgesNothing() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("replaced.journal")
            let kept = directory.file("old.journal")
            let copy = directory.file("copy.journal")

            for replacement in ["renamed-over", "removed"] {
                _ = unlink(path)
                _ = unlink(kept)
                try makeJournal(at: path, payloads: payloads(sizes: [10, 20]))
                let journal = try Journal.open(at: path, access: .readWrite)
                try journal.append { batch in try batch.add(kind: .dataSealed, payload: [1, 2, 3]) }
                let before = try readBytes(path)
                #expect(link(path, kept) == 0)  // the old file keeps a name, to look at it afterwards
                if replacement == "renamed-over" {
                    try writeNewFile(before, to: copy)
                    #expect(rename(copy, path) == 0)
                } else {
                    #expect(unlink(path) == 0)
                }

                let error = caught(JournalError.self) {
                    try journal.append { batch in
                        try batch.add(kind: .dataSealed, payload: [4, 5, 6])
                        try batch.add(kind: .dataSealed, payload: [7, 8, 9])
                    }
                }
                #expect(error?.code == .changedWhileOpen(.replaced), "\(replacement)")
                #expect(error?.exitCode == 1)
                #expect(journal.lastSequence == 3, "\(replacement): nothing acknowledged")
                #expect(journal.size == before.count)
                #expect(try readBytes(kept) == before, "\(replacement): the old file is cut back")
                if replacement == "renamed-over" {
                    #expect(try readBytes(path) == before, "the replacement is untouched")
                }
                // The handle pretends nothing afterwards.
                #expect(caught(JournalError.self) { try journal.append { try $0.add(kind: .dataSealed, payload: [1]) } }?.code == .unusable)
                #expect(try readBytes(kept) == before)
            }
        }

        /// A look for other writers' frames, made again and again (after the first, one
        /// `lstat` of the path while it names the file), takes in what another handle
        /// appended, and notices a journal renamed over it or removed, whatever the size.
        @Test func repeatedLooksTakeInAppendsAndNoticeAJournalReplaced() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("looked-at.journal")
            let copy = directory.file("copy.journal")
            for replacement in ["renamed-over, as long", "renamed-over, longer", "removed"] {
                _ = unlink(path)
                try makeJournal(at: path, payloads: payloads(sizes: [10, 20]))
                let journal = try Journal.open(at: path, access: .readWrite)
                let other = try Journal.open(at: path, access: .readWrite)
                for _ in 0..<3 { #expect(try journal.waitForFrames(after: 2, milliseconds: 0) == false) }
                try other.append { batch in try batch.add(kind: .dataSealed, payload: [1, 2, 3]) }
                #expect(try journal.waitForFrames(after: 2, milliseconds: 0), "\(replacement): the other's frame")
                #expect(journal.lastSequence == 3 && journal.size == other.size)

                var bytes = try readBytes(path)
                if replacement == "renamed-over, longer" { bytes += [0, 0, 0] }
                if replacement == "removed" {
                    #expect(unlink(path) == 0)
                } else {
                    try writeNewFile(bytes, to: copy)
                    #expect(rename(copy, path) == 0)
                }
                let error = caught(JournalError.self) { _ = try journal.waitForFrames(after: 3, milliseconds: 0) }
                #expect(error?.code == .changedWhileOpen(.replaced), "\(replacement)")
            }
        }

        /// Bytes appended (or cut) by a program that ignores the lock: the next append
        /// writes nothing, so the frames before them stay whole and their bytes stay theirs.
        @Test func foreignBytesBehindTheWritersBackAreNeverOverwritten() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("foreign.journal")
            let foreign = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

            var foreignOffset = 0
            for change in ["cut", "appended"] {
                _ = unlink(path)
                try makeJournal(at: path, payloads: payloads(sizes: [10, 20]))
                let journal = try Journal.open(at: path, access: .readWrite)
                try journal.append { batch in try batch.add(kind: .dataSealed, payload: [1, 2, 3]) }
                let size = journal.size
                if change == "appended" {
                    try appendBytes(foreign, to: path)
                    foreignOffset = size
                } else {
                    #expect(truncate(path, off_t(size - 10)) == 0)
                }
                let after = try readBytes(path)

                let error = caught(JournalError.self) {
                    try journal.append { batch in
                        try batch.add(kind: .dataSealed, payload: [4, 5, 6])
                        try batch.add(kind: .dataSealed, payload: [7, 8, 9])
                    }
                }
                if change == "cut" {
                    #expect(error?.code == .changedWhileOpen(.size(expected: size, actual: after.count)), "\(change)")
                } else {
                    // Bytes after ours are taken in as another writer's frames only if they verify.
                    guard case .corrupt(let problem)? = error?.code else {
                        Issue.record("foreign bytes were not reported as damage: \(String(describing: error))")
                        continue
                    }
                    #expect(problem.offset == size)
                }
                #expect(error?.exitCode == 1)
                #expect(try readBytes(path) == after, "\(change): not a byte written")
                #expect(journal.lastSequence == 3)
                #expect(caught(JournalError.self) { try journal.append { try $0.add(kind: .dataSealed, payload: [1]) } }?.code == .unusable)
                #expect(try readBytes(path) == after)
            }
            // The three acknowledged frames are still whole, in front of the foreign bytes.
            let report = try Journal.verify(at: path)
            #expect(report.frameCount == 3)
            #expect(report.problem?.offset == foreignOffset)
        }
    }
}

extension JournalTestSuite {
    /// Issue 13, finding 5: whoever can write the file could make intact frames look like a
    /// torn tail (a middle frame's length set past the end, its keyless header check
    /// recomputed). Only an unfinished append may be trimmed; this is damage.
    @Suite struct HiddenFramesTests {
        @Test("A middle frame's length pushed past the end, check recomputed: damage reported, nothing trimmed", arguments: [0, 1, 2])
        func lengthPushedPastTheEndIsDamage(frame: Int) throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("hidden.journal")
            var bytes = try makeJournal(at: path, payloads: payloads(sizes: [30, 40, 50, 60]))
            let ranges = frameRanges(bytes)
            let start = ranges[frame].lowerBound
            let previousHash = frame == 0 ? Array(bytes[28..<60]) : Array(bytes[ranges[frame - 1].upperBound - 32..<ranges[frame - 1].upperBound])
            let pastTheEnd = UInt32(bytes.count - start)  // runs past the end: looks unfinished
            withUnsafeBytes(of: pastTheEnd.littleEndian) { bytes.replaceSubrange(start..<start + 4, with: $0) }
            let check = Blake2b.hash(Array(bytes[start..<start + 13]), key: previousHash).prefix(8)
            bytes.replaceSubrange(start + 13..<start + 21, with: check)
            try writeNewFile(bytes, to: path)

            let report = try Journal.verify(at: path)
            #expect(!report.isValid)
            #expect(report.tornTail == nil)
            #expect(report.problem?.offset == start)
            #expect(
                { if case .hiddenFrames? = report.problem?.damage { true } else { false } }(), "\(String(describing: report.problem))")
            #expect(caught(JournalError.self) { try Journal.open(at: path, access: .readWrite) }.map { "\($0.code)" }?.hasPrefix("corrupt") == true)
            #expect(try readBytes(path) == bytes, "no byte trimmed")
            #expect(try directoryEntries(directory.path) == ["hidden.journal"], "nothing saved aside either")
        }

        @Test("A genuine unfinished append (every cut inside the last batch) is still trimmed, and saved aside first")
        func genuineTornBatchIsTrimmed() throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("torn.journal")
            let journal = try Journal.create(at: path)
            try journal.append { try $0.add(kind: .keyWrap, payload: [1, 2, 3]) }
            let before = try readBytes(path).count
            try journal.append { batch in
                for payload in payloads(sizes: [70, 80, 90]) { try batch.add(kind: .dataSealed, payload: payload) }
            }
            let whole = try readBytes(path)
            for cut in stride(from: before + 1, to: whole.count, by: 7) {
                try writeNewFile(Array(whole[0..<cut]), to: path)
                let reopened = try Journal.open(at: path, access: .readWrite)
                let kept = try readBytes(path)
                #expect(kept.count == reopened.size)
                if let saved = reopened.trimmedTail?.savedAs {
                    // The journal keeps the whole frames; the unfinished one is saved aside.
                    #expect(kept + (try readBytes(saved)) == Array(whole[0..<cut]), "cut \(cut)")
                    try FileManager.default.removeItem(atPath: saved)
                } else {
                    #expect(kept == Array(whole[0..<cut]), "cut \(cut) is a frame boundary")
                }
            }
        }
    }
}

extension JournalTestSuite {
    /// Issue 13, finding 8: bit rot in the version field is damage, not a newer format.
    @Suite struct VersionFieldTests {
        @Test("A version field changed without its header hash is damage (verify: problem; open: corrupt)", arguments: [UInt8(4), UInt8(1)])
        func changedVersionIsDamage(high: UInt8) throws {
            let directory = try TemporaryDirectory()
            let path = directory.file("rot.journal")
            var bytes = try makeJournal(at: path, payloads: [[1], [2]])
            bytes[8] = high == 4 ? 4 : bytes[8]
            bytes[9] = high == 4 ? bytes[9] : 1  // version 4 (3 is a household's), or 256 + the version
            try writeNewFile(bytes, to: path)
            let report = try Journal.verify(at: path)
            #expect(report.problem?.sequence == 0, "\(String(describing: report.problem))")
            let error = caught(JournalError.self) { try Journal.open(at: path, access: .readWrite) }
            #expect(error.map { "\($0.code)" }?.hasPrefix("corrupt") == true, "\(String(describing: error))")
            #expect(error?.exitCode == 1)
            #expect(try readBytes(path) == bytes)
            // With its hash recomputed it is a newer format, as before.
            rehashHeader(&bytes)
            try writeNewFile(bytes, to: path)
            #expect(
                caught(JournalError.self) { try Journal.open(at: path, access: .readWrite) }.map { "\($0.code)" }?.hasPrefix("unsupportedVersion")
                    == true)
        }
    }
}
