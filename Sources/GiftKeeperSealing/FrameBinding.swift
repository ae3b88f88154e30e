package import GiftKeeperJournal

/// What every sealed item in a frame is bound to: the additional data of its AEAD.
///
/// Layout (60 bytes): purpose (1) ‖ format version (u16 LE) ‖ journal id (16) ‖
/// sequence number (u64 LE) ‖ frame kind (1) ‖ previous frame hash (32). Binding the
/// sequence number and the previous hash means a frame cannot be moved, duplicated or
/// spliced into another journal without its AEAD failing, even by someone who recomputes
/// the (unkeyed) chain hashes.
package struct FrameBinding: Equatable {
    /// Which sealed item of a frame the binding is for, so one can never pass for another.
    package enum Purpose: UInt8 {
        case event = 1
        case wrappedDataKey = 2
        case boxSecretKey = 3
        case previousDataKey = 4
        case failedLoginRecord = 5
        // A household member's key wrap (format version 3).
        case memberKeyByPassword = 6
        case memberKeyByRecovery = 7
        case memberSecrets = 8
        case memberWrapSignature = 9
    }

    package static let length = 60

    /// The block size events are padded to from format version 2 (SPEC §12: 64-byte buckets).
    package static let paddingBlock = 64

    /// Whether events sealed in a journal of this format version are padded (from version 2).
    package var padsPayloads: Bool { formatVersion >= 2 }

    package let formatVersion: UInt16
    package let journalID: [UInt8]
    package let sequence: UInt64
    package let kind: FrameKind
    package let previousHash: [UInt8]

    package func bytes(for purpose: Purpose) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.length)
        out.append(purpose.rawValue)
        out.appendLittleEndian(formatVersion)
        out.append(contentsOf: journalID)
        out.appendLittleEndian(sequence)
        out.append(kind.rawValue)
        out.append(contentsOf: previousHash)
        return out
    }
}
