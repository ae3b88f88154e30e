import GiftKeeperCrypto
import GiftKeeperFiles
public import GiftKeeperJournal
import GiftKeeperSealing

/// What a device remembers of the server its journal is shared through (SPEC §12): the
/// server's URL (no password: that stays in `~/.pgpass`) and the shared head — the last
/// position at which this device saw the server hold exactly its own frames.
///
/// Kept outside the journal, beside the rollback memory: `STATE_DIR/<journal id>-<place>.remote`,
/// mode 0600, written atomically. Five lines: `GKREMOTE1`, the URL, the shared sequence
/// number and hash in hex, this device's id in hex (16 random bytes, the name its
/// ``AuthenticatedHead`` is posted under; a record without one, written before device heads,
/// gets a new id), and ``received`` (a record without it counts none of its frames as this
/// device's own).
///
/// The shared head tells a server that lost frames (restored from a backup, or lying)
/// from frames this device has not sent yet. It is not authenticated: lowering it by hand
/// makes the next sync send this device's frames again, which restores what the server lost.
public struct RemoteRecord: Equatable, Sendable {
    public var url: String
    public var shared: JournalHead
    /// This device's id among the journal's devices.
    public var device: [UInt8]
    /// Where this device last took in other devices' frames: the frames after it, up to
    /// ``shared``, are this device's own, sent since; a change of theirs that a frame taken
    /// in later undoes is told (``OverriddenChange``).
    public var received: UInt64

    public init(url: String, shared: JournalHead, device: [UInt8], received: UInt64? = nil) {
        self.url = url
        self.shared = shared
        self.device = device
        self.received = min(received ?? shared.sequence, shared.sequence)
    }

    /// A record for a device new to the server at `url`, with a random device id.
    static func new(url: String, shared: JournalHead) throws(ServiceError) -> RemoteRecord {
        RemoteRecord(url: url, shared: shared, device: try newDeviceID())
    }

    /// This record, with a new device id if it has none (written before device heads).
    func withDeviceID() throws(ServiceError) -> RemoteRecord {
        guard device.count != 16 else { return self }
        return RemoteRecord(url: url, shared: shared, device: try Self.newDeviceID(), received: received)
    }

    private static func newDeviceID() throws(ServiceError) -> [UInt8] {
        do {
            return try randomBytes(count: 16)
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }

    static let magic = "GKREMOTE1"

    static func path(in directory: String, journalID: [UInt8], journalPath: String) -> String {
        HeadMemory.path(in: directory, journalID: journalID, journalPath: journalPath, extension: "remote")
    }

    /// The record kept for the journal at `journalPath`, if any and well-formed.
    /// A missing or malformed device id is read as empty (``withDeviceID()`` gives it one).
    static func read(from directory: String, journalID: [UInt8], journalPath: String) -> RemoteRecord? {
        guard let bytes = PrivateFiles.readSmallFile(path(in: directory, journalID: journalID, journalPath: journalPath))
        else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == magic else { return nil }
        let head = lines[2].split(separator: " ")
        guard head.count == 2, let sequence = UInt64(head[0]), let hash = unhex(head[1]), hash.count == 32 else {
            return nil
        }
        let device = lines.count > 3 ? unhex(lines[3]) ?? [] : []
        let received = lines.count > 4 ? UInt64(lines[4]) : nil
        return RemoteRecord(
            url: String(lines[1]), shared: JournalHead(sequence: sequence, hash: hash), device: device, received: received)
    }

    /// Writes atomically.
    func write(to directory: String, journalID: [UInt8], journalPath: String) throws(ServiceError) {
        let text = "\(Self.magic)\n\(url)\n\(shared.sequence) \(hexString(shared.hash))\n\(hexString(device))\n\(received)\n"
        let final = Self.path(in: directory, journalID: journalID, journalPath: journalPath)
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(directory)
            try PrivateFiles.replace(final, with: Array(text.utf8))
        } catch {
            throw ServiceError(.fileIO(operation: error.operation, path: final, errno: error.errno))
        }
    }
}
