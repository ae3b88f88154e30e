import GiftKeeperCrypto
import GiftKeeperJournal

/// The head a device last verified on the server, posted there for the other devices
/// (SPEC §12): a server that shows two devices two different forks, each consistent in
/// itself, is caught when one of them reads the other's head and does not find it in
/// the chain the server shows it.
///
/// Authenticated so the server cannot forge one: layout (120 bytes) magic `GKDEVHD1` ‖
/// journal id (16) ‖ device id (16) ‖ sequence (u64 LE) ‖ chain hash (32) ‖ key-epoch
/// wrap sequence (u64 LE) ‖ BLAKE2b-256 MAC of the previous 88 bytes under `crypto_kdf`
/// subkey 2, context `GKdevhd1`, of that epoch's data key (which never leaves the devices).
struct DeviceHead: Equatable {
    static let magic: [UInt8] = Array("GKDEVHD1".utf8)
    static let length = 8 + 16 + 16 + 8 + 32 + 8 + 32

    let journalID: [UInt8]
    let device: [UInt8]
    let head: JournalHead
    let epochWrapSequence: UInt64

    private var body: [UInt8] {
        var out = Self.magic
        out += journalID
        out += device
        out.appendLittleEndian(head.sequence)
        out += head.hash
        out.appendLittleEndian(epochWrapSequence)
        return out
    }

    private static func macKey(_ dataKey: SecureBytes) throws -> SecureBytes {
        try SubkeyDerivation.derive(from: dataKey, id: 2, context: "GKdevhd1")
    }

    /// The record to post, authenticated under `dataKey` (the epoch `epochWrapSequence` names).
    func encoded(dataKey: SecureBytes) throws -> [UInt8] {
        let key = try Self.macKey(dataKey)
        defer { key.wipe() }
        return body + (try Blake2b.mac(body, key: key))
    }

    /// What reading another device's record found.
    enum Reading: Equatable {
        /// Authenticated: this device's head there.
        case verified(DeviceHead)
        /// Well-formed, of an epoch this session does not hold yet (a password changed on
        /// another device, not taken in here): checked at a later sync.
        case keyMissing(DeviceHead)
        /// Of an unknown layout (a later version's), left alone.
        case unknownLayout
        /// Malformed for this layout, of another journal or device, or its MAC does not verify.
        case forged
    }

    /// Reads the record device `device` posted for `journalID`; `dataKey(wrapSequence)` gives
    /// the data key of an epoch this session holds.
    static func read(_ record: [UInt8], device: [UInt8], journalID: [UInt8], dataKey: (UInt64) -> SecureBytes?) -> Reading {
        guard record.count >= magic.count, Array(record.prefix(magic.count)) == magic else {
            return record.starts(with: Array("GKDEVHD".utf8)) ? .unknownLayout : .forged
        }
        var reader = ByteReader(record)
        _ = reader.read(8)
        guard record.count == length,
            let journal = reader.read(16), journal == journalID,
            let id = reader.read(16), id == device,
            let sequence = reader.readLittleEndian(UInt64.self),
            let hash = reader.read(32),
            let epoch = reader.readLittleEndian(UInt64.self)
        else { return .forged }
        let parsed = DeviceHead(
            journalID: journal, device: id, head: JournalHead(sequence: sequence, hash: hash), epochWrapSequence: epoch)
        guard let key = dataKey(epoch) else { return .keyMissing(parsed) }
        guard let expected = try? parsed.encoded(dataKey: key),
            constantTimeEqual(Array(expected.suffix(32)), Array(record.suffix(32)))
        else { return .forged }
        return .verified(parsed)
    }
}
