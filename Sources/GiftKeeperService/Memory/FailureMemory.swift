import GiftKeeperFiles
import GiftKeeperJournal

/// What this machine remembers of the failed sign-ins it recorded in a journal since the
/// last head it remembered (issue 30): the head just after the newest one, and how many
/// ended the journal then. Failures are recorded while locked, when there is no data key
/// to authenticate a head with, so the record is not authenticated: forging one can only
/// raise a false alarm. Cutting the failed-login records off the journal is then reported
/// like any rollback, and the wait they gave stays.
///
/// `<journal id>-<place>.failed` beside the remembered head: sequence number (8 bytes,
/// little-endian), chain hash (32), count (8). Removed once a head is remembered after them.
struct RememberedFailures: Equatable {
    let head: JournalHead
    let count: Int

    private static let size = 8 + 32 + 8

    static func path(in directory: String, journalID: [UInt8], journalPath: String) -> String {
        HeadMemory.path(in: directory, journalID: journalID, journalPath: journalPath, extension: "failed")
    }

    static func read(from directory: String, journalID: [UInt8], journalPath: String) -> RememberedFailures? {
        guard let bytes = PrivateFiles.readSmallFile(path(in: directory, journalID: journalID, journalPath: journalPath)),
            bytes.count == size
        else { return nil }
        func integer(at offset: Int) -> UInt64 {
            bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        let count = integer(at: 40)
        guard count <= UInt64(Int.max) else { return nil }
        return RememberedFailures(head: JournalHead(sequence: integer(at: 0), hash: Array(bytes[8..<40])), count: Int(count))
    }

    /// Best effort: a record that cannot be written loses only this extra evidence.
    func write(to directory: String, journalID: [UInt8], journalPath: String) {
        func littleEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let bytes = littleEndian(head.sequence) + head.hash + littleEndian(UInt64(count))
        try? PrivateFiles.makeDirectories(directory)
        try? PrivateFiles.replace(Self.path(in: directory, journalID: journalID, journalPath: journalPath), with: bytes)
    }

    static func forget(in directory: String, journalID: [UInt8], journalPath: String) {
        try? FileSystem.unlink(path(in: directory, journalID: journalID, journalPath: journalPath))
    }

    /// What a journal ending at `lastSequence`, whose chain hash just after frame
    /// `head.sequence` is `hashThere` (nil when it is not that long), says against the
    /// record: nil while it still holds the failures recorded.
    func finding(lastSequence: UInt64, hashThere: [UInt8]?) -> RollbackFinding? {
        if head.sequence > lastSequence { return .eventsMissing(count: head.sequence - lastSequence) }
        return hashThere == head.hash ? nil : .historyDiverged(sequence: head.sequence)
    }
}
