import GiftKeeperFiles
import Glibc

extension Journal {
    /// Checks a journal's structure and hash chain without keys, changing nothing.
    ///
    /// Takes a shared lock when the file system supports it, waiting for an append under
    /// way; a journal held exclusively longer than ``lockPatience`` fails with
    /// ``JournalError/Code/inUse``. Unlike ``open(at:access:)`` it
    /// does not refuse a file for its owner or mode: it reads nothing secret and writes
    /// nothing, so a copied or backed-up journal can be checked as it is. The chain guards
    /// against accidents, not tampering: anyone can recompute it; the service's `audit`
    /// authenticates every payload.
    /// - Returns: the first problem (sequence, offset, reason), or none; a torn tail is
    ///   reported but is not a problem.
    /// - Throws: `.notFound`, `.isDirectory`, `.notRegularFile`, `.inUse`, `.notAJournal`,
    ///   `.unsupportedVersion`, `.io`.
    public static func verify(at path: String) throws(JournalError) -> VerificationReport {
        let file = try openChecked(path, writable: false, checkOwnership: false)
        defer { file.close() }
        let locked: Bool
        do throws(SystemCallError) {
            locked = try file.lock(exclusive: false, waitingUpTo: lockPatience)
        } catch {
            locked = true  // no flock on this file system (ENOLCK, EOPNOTSUPP...): check without it
        }
        guard locked else { throw JournalError(.inUse, path: path) }
        let fileSize = try mapIO(path) { () throws(SystemCallError) in Int(try file.status().st_size) }
        let header: JournalHeader
        do throws(JournalError) {
            header = try readHeader(file, fileSize: fileSize, path: path)
        } catch  where error.code == .corrupt(headerProblem) {
            return VerificationReport(
                header: nil, frameCount: 0, lastSequence: 0, headHash: [], tornTail: nil, problem: headerProblem)
        }
        let summary = try mapIO(path) {
            try JournalReader.scan(file, genesisHash: header.genesisHash, from: JournalFormat.headerSize, to: fileSize)
        }
        return VerificationReport(
            header: header, frameCount: summary.frameCount, lastSequence: summary.lastSequence,
            headHash: summary.headHash, tornTail: summary.tornTail, problem: summary.problem)
    }
}
