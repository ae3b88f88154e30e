import GiftKeeperFiles
public import GiftKeeperJournal

/// What a device remembers of the server its journal is shared through (SPEC §12): the
/// server's URL (no password: that stays in `~/.pgpass`) and the shared head — the last
/// position at which this device saw the server hold exactly its own frames.
///
/// Kept outside the journal, beside the rollback memory: `STATE_DIR/<journal id>-<place>.remote`,
/// mode 0600, written atomically. Three lines: `GKREMOTE1`, the URL, and the shared
/// sequence number and hash in hex.
///
/// The shared head tells a server that lost frames (restored from a backup, or lying)
/// from frames this device has not sent yet. It is not authenticated: lowering it by hand
/// makes the next sync send this device's frames again, which restores what the server lost.
public struct RemoteRecord: Equatable, Sendable {
    public var url: String
    public var shared: JournalHead

    public init(url: String, shared: JournalHead) {
        self.url = url
        self.shared = shared
    }

    static let magic = "GKREMOTE1"

    static func path(in directory: String, journalID: [UInt8], journalPath: String) -> String {
        RememberedHead.path(in: directory, journalID: journalID, journalPath: journalPath, extension: "remote")
    }

    /// The record kept for the journal at `journalPath`, if any and well-formed.
    static func read(from directory: String, journalID: [UInt8], journalPath: String) -> RemoteRecord? {
        guard let bytes = PrivateFiles.readSmallFile(path(in: directory, journalID: journalID, journalPath: journalPath))
        else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == magic else { return nil }
        let head = lines[2].split(separator: " ")
        guard head.count == 2, let sequence = UInt64(head[0]), let hash = unhex(head[1]), hash.count == 32 else {
            return nil
        }
        return RemoteRecord(url: String(lines[1]), shared: JournalHead(sequence: sequence, hash: hash))
    }

    /// Writes atomically.
    func write(to directory: String, journalID: [UInt8], journalPath: String) throws(ServiceError) {
        let text = "\(Self.magic)\n\(url)\n\(shared.sequence) \(hexString(shared.hash))\n"
        let final = Self.path(in: directory, journalID: journalID, journalPath: journalPath)
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(directory)
            try PrivateFiles.replace(final, with: Array(text.utf8))
        } catch {
            throw ServiceError(.fileIO(operation: error.operation, path: final, errno: error.errno))
        }
    }
}
