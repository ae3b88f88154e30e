@testable import GiftKeeperJournal

/// The journal's frame reader, on any file: `verify`, a read-only open tolerating damage,
/// a strict read-only open, replay, and an open for writing with its torn-tail trim all
/// agree on what the file holds. Only an unfinished last append (at most one frame long)
/// is ever trimmed, what is trimmed is first saved aside byte for byte unless it is all
/// zeros, and a damaged journal is never changed.
enum FrameReaderCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        Scratch.clear()
        let path = Scratch.directory + "/fuzz.journal"
        Scratch.write(input, to: path)
        defer { Scratch.clear() }

        let report: VerificationReport
        do {
            report = try Journal.verify(at: path)
        } catch {
            // Not a journal at all (magic, version, size).
            return try requireRefusedUnchanged(path, input, because: "verify refuses the file (\(error))")
        }
        guard report.header != nil else {
            return try requireRefusedUnchanged(path, input, because: "the header does not verify")
        }
        if let torn = report.tornTail {
            try require(torn.offset + torn.length == input.count, "a torn tail that does not end the file")
            try require(torn.length > 0, "an empty torn tail")
        }

        try checkReading(path, report)
        try checkWriting(path, input, report)
    }

    /// Neither a tolerant read-only open nor an open for writing accepts the file, and
    /// the file is left byte for byte as it was.
    private static func requireRefusedUnchanged(_ path: String, _ input: [UInt8], because reason: String)
        throws(InvariantFailure)
    {
        try require(
            (try? Journal.open(at: path, access: .readOnly, toleratingDamage: true)) == nil,
            "\(reason), yet a tolerant open accepts it")
        try require((try? Journal.open(at: path, access: .readWrite)) == nil, "\(reason), yet an open for writing accepts it")
        try require(Scratch.read(path) == input, "\(reason), yet the file was changed")
    }

    private static func checkReading(_ path: String, _ report: VerificationReport) throws(InvariantFailure) {
        let tolerant: Journal
        do {
            tolerant = try Journal.open(at: path, access: .readOnly, toleratingDamage: true)
        } catch {
            throw InvariantFailure(description: "verify reads the journal, a tolerant open refuses it: \(error)")
        }
        try require(tolerant.frameCount == report.frameCount, "verify and a tolerant open count different frames")
        try require(tolerant.lastSequence == report.lastSequence, "verify and a tolerant open end at different sequences")
        try require(tolerant.headHash == report.headHash, "verify and a tolerant open end at different heads")
        try require(tolerant.damage == report.problem, "verify and a tolerant open report different damage")
        if report.isValid {
            try require(tolerant.trimmedTail == report.tornTail, "verify and a read-only open see different torn tails")
            var sequences: [UInt64] = []
            var frameBytes = 0
            do {
                try tolerant.replay { frame in
                    sequences.append(frame.sequence)
                    frameBytes += frame.payload.count + 53  // a frame's 21-byte header and 32-byte hash
                }
            } catch {
                throw InvariantFailure(description: "a journal that verifies does not replay: \(error)")
            }
            try require(
                sequences == (0..<report.frameCount).map { UInt64($0) + 1 },
                "replay's sequence numbers are not 1, 2, 3 …")
            try require(60 + frameBytes == tolerant.size, "replay's frames do not tile the file after its 60-byte header")
            var trusted = 0
            do {
                try tolerant.replay(chainCheck: .trustVerifiedOnOpen) { _ in trusted += 1 }
            } catch {
                throw InvariantFailure(description: "a verified journal does not replay trusting the open: \(error)")
            }
            try require(trusted == report.frameCount, "replay trusting the open visits another number of frames")
        }
        withExtendedLifetime(tolerant) {}

        let strict = try? Journal.open(at: path, access: .readOnly)
        try require((strict != nil) == report.isValid, "a strict read-only open disagrees with verify on damage")
    }

    private static func checkWriting(_ path: String, _ input: [UInt8], _ report: VerificationReport)
        throws(InvariantFailure)
    {
        // The writer is gone (its lock released) once openForWriting returns.
        guard try openForWriting(path, input, report) else { return }
        guard let after = try? Journal.verify(at: path) else {
            throw InvariantFailure(description: "the journal no longer verifies after its open for writing")
        }
        try require(after.isValid && after.tornTail == nil, "the journal is not clean after its trim")
        try require(
            after.frameCount == report.frameCount && after.headHash == report.headHash,
            "the trim lost or changed a frame")
    }

    /// Opens the journal for writing and checks what that did; false when it was refused.
    private static func openForWriting(_ path: String, _ input: [UInt8], _ report: VerificationReport)
        throws(InvariantFailure) -> Bool
    {
        let writable: Journal
        do {
            writable = try Journal.open(at: path, access: .readWrite)
        } catch {
            try require(!report.isValid, "a journal that verifies does not open for writing: \(error)")
            guard case .corrupt = error.code else {
                throw InvariantFailure(description: "a damaged journal is refused for another reason: \(error)")
            }
            try require(Scratch.read(path) == input, "opening a damaged journal for writing changed it")
            try require(Scratch.entries() == ["fuzz.journal"], "opening a damaged journal for writing left a file")
            return false
        }
        try require(report.isValid, "a damaged journal (\(report.problem.map { "\($0.damage)" } ?? "")) opens for writing")
        try require(
            writable.frameCount == report.frameCount && writable.headHash == report.headHash,
            "the writer's head differs from verify's")
        let now = Scratch.read(path) ?? []
        if let torn = report.tornTail {
            try require(now == Array(input[..<torn.offset]), "the trim did not cut exactly the torn tail")
            try require(torn.length <= JournalFormat.longestFrame, "a torn tail longer than one frame")
            if input[torn.offset...].allSatisfy({ $0 == 0 }) {
                try require(writable.trimmedTail?.savedAs == nil, "a tail of zeros was saved aside")
                try require(Scratch.entries() == ["fuzz.journal"], "trimming a tail of zeros left a file")
            } else {
                guard let saved = writable.trimmedTail?.savedAs else {
                    throw InvariantFailure(description: "a trimmed tail was not saved aside")
                }
                try require(Scratch.read(saved) == Array(input[torn.offset...]), "the saved tail differs from what was trimmed")
            }
        } else {
            try require(now == input, "a journal with no torn tail was changed by opening it for writing")
            try require(writable.trimmedTail == nil, "a trim where verify saw no torn tail")
        }
        return true
    }
}
