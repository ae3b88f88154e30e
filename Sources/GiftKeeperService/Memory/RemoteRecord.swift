import GiftKeeperCrypto
import GiftKeeperFiles
public import GiftKeeperJournal
import GiftKeeperSealing

/// What a device remembers of the server its journal is shared through (SPEC §12): the
/// server's URL (no password: that stays in `~/.pgpass`) and the shared head — the last
/// position at which this device saw the server hold exactly its own frames.
///
/// Kept outside the journal, beside the rollback memory: `STATE_DIR/<journal id>-<place>.remote`,
/// mode 0600, written atomically. Lines: `GKREMOTE1`, the URL, the shared sequence number
/// and hash in hex, this device's id in hex (16 random bytes, the name its
/// ``AuthenticatedHead`` is posted under; a record without one, written before device heads,
/// gets a new id), the server's epoch in hex (empty when not known yet), `distrusted` when
/// the server was caught lying and no full sync has checked out since (else empty),
/// ``received`` (a record without it counts none of its frames as this device's own), and
/// one line per other device whose head this device verified: its id, sequence and hash in
/// hex. A record written before a line was added reads it as empty.
///
/// The shared head tells a server that lost frames (restored from a backup, or lying)
/// from frames this device has not sent yet. It is not authenticated: lowering it by hand
/// makes the next sync send this device's frames again, which restores what the server lost.
public struct RemoteRecord: Equatable, Sendable {
    public var url: String
    public var shared: JournalHead
    /// This device's id among the journal's devices.
    public var device: [UInt8]
    /// The server's epoch when this device last synced level with it (empty: not known).
    public var epoch: [UInt8] = []
    /// Set when a sync caught the server lying; cleared by a full sync that checks out.
    /// While set, nothing is sent to the server without a full read and check first.
    public var distrusted = false
    /// The other devices' heads as this device last verified them on the server's chain,
    /// by device id: what it posts it has seen of them (``AuthenticatedHead/seen``).
    public var seen: [[UInt8]: JournalHead] = [:]
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
        var record = self
        record.device = try Self.newDeviceID()
        return record
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
        var record = RemoteRecord(
            url: String(lines[1]), shared: JournalHead(sequence: sequence, hash: hash), device: device,
            received: lines.count > 6 ? UInt64(lines[6]) : nil)
        record.epoch = lines.count > 4 ? unhex(lines[4]) ?? [] : []
        record.distrusted = lines.count > 5 && lines[5] == "distrusted"
        for line in lines.dropFirst(7) {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let id = unhex(fields[0]), id.count == 16, let sequence = UInt64(fields[1]),
                let hash = unhex(fields[2]), hash.count == 32
            else { continue }
            record.seen[id] = JournalHead(sequence: sequence, hash: hash)
        }
        return record
    }

    /// Writes atomically.
    func write(to directory: String, journalID: [UInt8], journalPath: String) throws(ServiceError) {
        var text = "\(Self.magic)\n\(url)\n\(shared.sequence) \(hexString(shared.hash))\n\(hexString(device))\n"
        text += "\(hexString(epoch))\n\(distrusted ? "distrusted" : "")\n\(received)\n"
        for (id, head) in seen.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            text += "\(hexString(id)) \(head.sequence) \(hexString(head.hash))\n"
        }
        let final = Self.path(in: directory, journalID: journalID, journalPath: journalPath)
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(directory)
            try PrivateFiles.replace(final, with: Array(text.utf8))
        } catch {
            throw ServiceError(.fileIO(operation: error.operation, path: final, errno: error.errno))
        }
    }
}
