public import GiftKeeperJournal

/// An unfinished last write (a crash mid-append): `length` bytes from byte `offset` to the end.
public struct IncompleteWrite: Sendable, Equatable {
    public let offset: Int
    public let length: Int
    /// Where the bytes were saved before they were trimmed (mode 0600, beside the journal);
    /// nil when nothing was trimmed (read-only access).
    public let savedAs: String?

    init(_ tail: TornTail) {
        offset = tail.offset
        length = tail.length
        savedAs = tail.savedAs
    }
}

/// What `verify` found: structure and hash chain, checked without the password.
public struct JournalCheck: Sendable, Equatable {
    /// Whole frames that verified, before any problem or unfinished write.
    public let frameCount: Int
    public let lastSequence: UInt64
    /// An unfinished last write, which the next session opening for writing trims.
    public let incompleteWrite: IncompleteWrite?
    /// The first problem, if any.
    public let problem: JournalProblem?
}

extension JournalCheck {
    /// Checks the journal at `journalPath` without keys, changing nothing (SPEC §5): framing
    /// and the hash chain, against accidents. A copied or backed-up journal is checked as
    /// it is, whatever its owner and mode. `audit` is the check against tampering.
    public static func verify(journalPath: String) throws(ServiceError) -> JournalCheck {
        let report: VerificationReport
        do {
            report = try Journal.verify(at: journalPath)
        } catch {
            throw ServiceError(.journal(error))
        }
        return JournalCheck(
            frameCount: report.frameCount, lastSequence: report.lastSequence,
            incompleteWrite: report.tornTail.map(IncompleteWrite.init), problem: report.problem)
    }
}
