public import GiftKeeperJournal

/// What `verify` found: structure and hash chain, checked without the password.
public struct JournalCheck: Sendable, Equatable {
    /// Whole frames that verified, before any problem or unfinished write.
    public let frameCount: Int
    public let lastSequence: UInt64
    /// An unfinished last write, which the next session opening for writing trims.
    public let incompleteWrite: TornTail?
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
            incompleteWrite: report.tornTail, problem: report.problem)
    }
}
