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
    }

    package static let length = 60

    /// The block size events are padded to from format version 2 (SPEC §12: 64-byte buckets).
    package static let paddingBlock = 64

    /// Whether events sealed in a journal of `formatVersion` are padded (from version 2).
    package static func padsPayloads(formatVersion: UInt16) -> Bool { formatVersion >= 2 }

    package var padsPayloads: Bool { Self.padsPayloads(formatVersion: formatVersion) }

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

/// The additional data of kind-1 events, rewritten in place frame after frame.
///
/// The fixed part (purpose, format version, journal id) is written once; each frame only
/// changes the sequence number, the kind and the previous hash. Same bytes as
/// ``FrameBinding/bytes(for:)`` with ``FrameBinding/Purpose/event``, without allocating.
package final class EventAdditionalData {
    private static let sequenceOffset = 19
    private static let kindOffset = 27
    private static let previousHashOffset = 28

    package let bytes: UnsafeMutableRawBufferPointer

    package init(formatVersion: UInt16, journalID: [UInt8]) {
        precondition(journalID.count == 16, "journal id must be 16 bytes")
        bytes = .allocate(byteCount: FrameBinding.length, alignment: 8)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        bytes[0] = FrameBinding.Purpose.event.rawValue
        bytes.storeBytes(of: formatVersion.littleEndian, toByteOffset: 1, as: UInt16.self)
        journalID.withUnsafeBytes { id in
            UnsafeMutableRawBufferPointer(rebasing: bytes[3..<Self.sequenceOffset]).copyMemory(from: id)
        }
    }

    deinit {
        bytes.deallocate()
    }

    /// Points the buffer at one frame; `previousHash` must be 32 bytes.
    @inline(__always)
    package func update(sequence: UInt64, kind: FrameKind, previousHash: UnsafeRawBufferPointer) {
        precondition(previousHash.count == 32, "previous hash must be 32 bytes")
        bytes.storeBytes(of: sequence.littleEndian, toByteOffset: Self.sequenceOffset, as: UInt64.self)
        bytes[Self.kindOffset] = kind.rawValue
        UnsafeMutableRawBufferPointer(rebasing: bytes[Self.previousHashOffset..<FrameBinding.length])
            .copyMemory(from: previousHash)
    }
}
