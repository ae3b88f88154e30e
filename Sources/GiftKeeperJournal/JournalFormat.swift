import GiftKeeperCrypto

/// The constants of the journal format (`docs/journal-format.md` is the contract).
///
/// Version 2 has version 1's layout; only what its frames seal differs: events are padded
/// to 64-byte blocks before sealing (the service does it). Both are read; new journals
/// are written in version 2, and a journal keeps the version it was made with. Version 3
/// is a household's journal (SPEC §13): the same layout, with the household frame kinds.
package enum JournalFormat {
    /// `GIFTKEEP` in ASCII.
    static let magic: [UInt8] = Array("GIFTKEEP".utf8)
    /// The version a person's new journal is written in.
    package static let currentVersion: UInt16 = 2
    /// The version of a household's journal, and the newest this build reads.
    package static let householdVersion: UInt16 = 3
    /// Magic 8 + version 2 + flags 2 + journal id 16 + header hash 32.
    static let headerSize = 60
    /// The bytes the header hash covers: everything before it.
    static let headerHashedSize = 28
    static let journalIDSize = 16
    static let hashSize = 32
    /// Length 4 + sequence 8 + kind 1: the bytes the header check covers.
    static let frameCheckedSize = 13
    /// Length, sequence, kind and the 8-byte header check.
    static let frameHeaderSize = 21
    static let headerCheckSize = 8
    /// Frame header + frame hash: a frame is this plus its payload.
    static let frameOverhead = frameHeaderSize + hashSize
    /// The largest payload a frame may carry (1 MiB). A larger length field is corruption.
    static let maximumPayload = 1 << 20
    /// The longest frame there can be, and so the longest tail an unfinished append can
    /// leave after the last whole frame: a longer tail is damage, never a torn write.
    package static let longestFrame = frameOverhead + maximumPayload
}

/// What a frame's payload is, the only thing about it in clear.
public enum FrameKind: UInt8, Sendable {
    /// Sealed under the data key (an event).
    case dataSealed = 1
    /// Sealed to the journal's public key (a failed login recorded without the password).
    case publicSealed = 2
    /// A key wrap (the data key sealed under a password-derived key).
    case keyWrap = 3
    // Format version 3 (a household's journal) only; docs/journal-format.md lays them out.
    /// A member's key wrap: their identity's secret halves under their own password.
    case memberWrap = 4
    /// An epoch frame: each member's audience keys sealed to them, and the signed body.
    case epoch = 5
    /// The key of *everyone but* an epoch frame's author, made by another member.
    case completion = 6
    /// A household event: sealed for one audience, signed inside by its author.
    case householdEvent = 7
    /// A member's signed departure.
    case leave = 8

    /// Whether the kind belongs to a household's journal (format version 3).
    public var isHousehold: Bool { rawValue >= Self.memberWrap.rawValue }
}

/// The clear header at the start of a journal file.
public struct JournalHeader: Sendable, Equatable {
    /// The format version the file was written in.
    public let formatVersion: UInt16
    /// 16 random bytes naming this journal; bound into every event's additional data.
    public let journalID: [UInt8]
    /// BLAKE2b-256 of the header's first 28 bytes: the "previous hash" of frame 1.
    public let genesisHash: [UInt8]

    /// The 60 header bytes of a new journal of `version` with identifier `journalID`.
    static func encode(journalID: [UInt8], version: UInt16 = JournalFormat.currentVersion) -> [UInt8] {
        precondition(journalID.count == JournalFormat.journalIDSize, "journal id must be 16 bytes")
        var bytes = JournalFormat.magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt16(0))
        bytes += journalID
        bytes += Blake2b.hash(bytes)
        return bytes
    }

    /// The header's 60 bytes as stored: the same for every copy of the journal (a device's
    /// file, a server's row), so a copy made from them has the same genesis hash.
    public var encoded: [UInt8] {
        var bytes = JournalFormat.magic
        bytes.appendLittleEndian(formatVersion)
        bytes.appendLittleEndian(UInt16(0))
        bytes += journalID
        bytes += genesisHash
        return bytes
    }

    /// Why a header cannot be read.
    enum DecodingFailure: Error, Equatable {
        /// Too short, wrong magic, version 0 or unknown flags.
        case notAJournal
        /// A version newer than this build reads.
        case newerVersion(UInt16)
        /// The header hash does not match the bytes it covers.
        case hashMismatch
    }

    /// Reads a header from the first 60 bytes of a file (fewer when the file is shorter).
    ///
    /// The version is believed only once the header hash verifies: a newer version keeps
    /// the magic, version and hash where version 1 has them, so a changed version field
    /// that does not verify is damage (bit rot, tampering), never "upgrade giftkeeper".
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodingFailure) -> JournalHeader {
        guard bytes.count >= JournalFormat.headerSize,
            bytes.prefix(JournalFormat.magic.count).elementsEqual(JournalFormat.magic)
        else {
            throw .notAJournal
        }
        let version = bytes.loadLittleEndian(UInt16.self, at: 8)
        let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<JournalFormat.headerHashedSize])
        let stored = Array(bytes[JournalFormat.headerHashedSize..<JournalFormat.headerSize])
        let genesis = Blake2b.hash(covered)
        guard constantTimeEqual(genesis, stored) else {
            // A version field that bit rot or a hand changed does not verify: damage, not a
            // newer format (which writes its header hash as every version does).
            throw .hashMismatch
        }
        if version > JournalFormat.householdVersion {
            throw .newerVersion(version)
        }
        let flags = bytes.loadLittleEndian(UInt16.self, at: 10)
        guard version >= 1, flags == 0 else {
            throw .notAJournal
        }
        return JournalHeader(
            formatVersion: version,
            journalID: Array(bytes[12..<12 + JournalFormat.journalIDSize]),
            genesisHash: genesis)
    }
}

extension UnsafeRawBufferPointer {
    /// An unaligned little-endian integer at `offset`.
    @inline(__always)
    func loadLittleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension Array where Element == UInt8 {
    /// Appends an integer's little-endian bytes.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with a typed error (the standard one only rethrows `any Error`).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }

    /// `withUnsafeMutableBytes` for a body with a typed error.
    mutating func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeMutableBytes { bytes in Result { () throws(E) in try body(bytes) } }.get()
    }
}
