package import GiftKeeperCrypto
package import GiftKeeperJournal

/// A journal head authenticated under a subkey of one key epoch's data key (which never
/// leaves the devices), so that whoever holds the record without the keys cannot forge it:
/// what this machine remembers of a journal between sessions, to detect a rollback (SPEC
/// §5, ``HeadMemory``), and what a device posts on a server for the other devices, so that
/// a server showing two devices two forks, each consistent in itself, is caught when one of
/// them reads the other's head and does not find it in the chain it is shown (SPEC §12).
///
/// Layout: magic ‖ journal id (16) ‖ device id (16, posted heads only) ‖ sequence (u64 LE)
/// ‖ chain hash (32) ‖ key-epoch wrap sequence (u64 LE) ‖ BLAKE2b-256 MAC of all the bytes
/// before it under a `crypto_kdf` subkey of that epoch's data key:
/// - remembered: magic `GKHEAD01`, 104 bytes, subkey 1, context `GKhead01`;
/// - posted: magic `GKDEVHD1`, 120 bytes, subkey 2, context `GKdevhd1`;
/// - posted with what the device has seen of the others: magic `GKDEVHD2`, the key-epoch
///   wrap sequence followed by a count (u16 LE, at most ``maximumSeen``) and, per other
///   device, its id (16), sequence (u64 LE) and chain hash (32), then the MAC; subkey 3,
///   context `GKdevhd2`. A server that shows one device an older head of another than a
///   third device saw is caught when their views cross (SPEC §12).
package struct AuthenticatedHead: Equatable {
    package let journalID: [UInt8]
    /// The device that posted it; nil for the head remembered on this machine.
    package let device: [UInt8]?
    package let head: JournalHead
    package let epochWrapSequence: UInt64
    /// The other devices' heads as the posting device last verified them on the chain it
    /// was shown (posted heads only; empty in the older layout).
    package let seen: [SeenHead]

    /// One other device's head, as a posting device verified it.
    package struct SeenHead: Equatable, Sendable {
        package let device: [UInt8]
        package let head: JournalHead

        package init(device: [UInt8], head: JournalHead) {
            self.device = device
            self.head = head
        }
    }

    /// The most other devices' heads one record carries.
    package static let maximumSeen = 64

    package init(journalID: [UInt8], device: [UInt8]?, head: JournalHead, epochWrapSequence: UInt64, seen: [SeenHead] = []) {
        self.journalID = journalID
        self.device = device
        self.head = head
        self.epochWrapSequence = epochWrapSequence
        self.seen = device == nil ? [] : Array(seen.prefix(Self.maximumSeen))
    }

    /// What each of the two records is.
    private struct Layout {
        let magic: [UInt8]
        /// The magic of any version of this record (a later one is left alone).
        let family: [UInt8]
        let hasDevice: Bool
        let hasSeen: Bool
        let subkeyID: UInt64
        let context: StaticString
        /// The length of a record with `seen` other devices' heads.
        func length(seen: Int) -> Int { magic.count + 16 + (hasDevice ? 16 : 0) + 8 + 32 + 8 + (hasSeen ? 2 + 56 * seen : 0) + 32 }

        static let remembered = Layout(
            magic: Array("GKHEAD01".utf8), family: Array("GKHEAD0".utf8), hasDevice: false, hasSeen: false, subkeyID: 1,
            context: "GKhead01")
        static let posted = Layout(
            magic: Array("GKDEVHD1".utf8), family: Array("GKDEVHD".utf8), hasDevice: true, hasSeen: false, subkeyID: 2,
            context: "GKdevhd1")
        static let postedWithSeen = Layout(
            magic: Array("GKDEVHD2".utf8), family: Array("GKDEVHD".utf8), hasDevice: true, hasSeen: true, subkeyID: 3,
            context: "GKdevhd2")

        /// The layout of `record`, of those a record of its kind may have.
        static func of(_ record: [UInt8], posted: Bool) -> Layout? {
            (posted ? [Self.posted, postedWithSeen] : [remembered]).first { record.starts(with: $0.magic) }
        }
    }

    private var layout: Layout { device == nil ? .remembered : seen.isEmpty ? .posted : .postedWithSeen }

    /// The length of a record: posted by a device (without other devices' heads), or
    /// remembered on this machine.
    package static func length(posted: Bool) -> Int { (posted ? Layout.posted : Layout.remembered).length(seen: 0) }

    private var body: [UInt8] {
        var out = layout.magic
        out += journalID
        if let device { out += device }
        out.appendLittleEndian(head.sequence)
        out += head.hash
        out.appendLittleEndian(epochWrapSequence)
        if layout.hasSeen {
            out.appendLittleEndian(UInt16(seen.count))
            for other in seen {
                out += other.device
                out.appendLittleEndian(other.head.sequence)
                out += other.head.hash
            }
        }
        return out
    }

    /// The record, authenticated under `dataKey` (the epoch `epochWrapSequence` names).
    package func encoded(dataKey: SecureBytes) throws -> [UInt8] {
        let key = try SubkeyDerivation.derive(from: dataKey, id: layout.subkeyID, context: layout.context)
        defer { key.wipe() }
        return body + (try Blake2b.mac(body, key: key))
    }

    /// What reading a record found.
    package enum Reading: Equatable {
        /// Authenticated.
        case verified(AuthenticatedHead)
        /// Well-formed, of an epoch this session does not hold: a password changed on another
        /// device and not taken in here yet, or an epoch this journal no longer has.
        case keyMissing(AuthenticatedHead)
        /// Of an unknown layout (a later version's), left alone.
        case unknownLayout
        /// Malformed for this layout, of another journal or device, or its MAC does not verify.
        case forged
    }

    /// The fields of a record, unauthenticated; nil when it is not one. `posted`: a device's
    /// record (with its device id), else one remembered on this machine.
    package static func parse(_ record: [UInt8], posted: Bool) -> AuthenticatedHead? {
        guard let layout = Layout.of(record, posted: posted) else { return nil }
        var reader = ByteReader(record)
        guard reader.read(layout.magic.count) == layout.magic,
            let journalID = reader.read(16),
            let device = posted ? reader.read(16) : [],
            let sequence = reader.readLittleEndian(UInt64.self),
            let hash = reader.read(32),
            let epoch = reader.readLittleEndian(UInt64.self),
            let count = layout.hasSeen ? reader.readLittleEndian(UInt16.self) : 0,
            count <= maximumSeen, (count > 0) == layout.hasSeen,
            record.count == layout.length(seen: Int(count))
        else { return nil }
        var seen: [SeenHead] = []
        for _ in 0..<count {
            guard let other = reader.read(16), let sequence = reader.readLittleEndian(UInt64.self), let hash = reader.read(32)
            else { return nil }
            seen.append(SeenHead(device: other, head: JournalHead(sequence: sequence, hash: hash)))
        }
        return AuthenticatedHead(
            journalID: journalID, device: posted ? device : nil, head: JournalHead(sequence: sequence, hash: hash),
            epochWrapSequence: epoch, seen: seen)
    }

    /// Reads and authenticates a record of `journalID`: posted by `device`, or, when it is nil,
    /// remembered on this machine. `dataKey(wrapSequence)` gives the data key of an epoch
    /// this session holds.
    package static func read(
        _ record: [UInt8], journalID: [UInt8], device: [UInt8]?, dataKey: (UInt64) -> SecureBytes?
    ) -> Reading {
        let posted = device != nil
        guard Layout.of(record, posted: posted) != nil else {
            return record.starts(with: (posted ? Layout.posted : Layout.remembered).family) ? .unknownLayout : .forged
        }
        guard let parsed = parse(record, posted: posted), parsed.journalID == journalID, parsed.device == device else {
            return .forged
        }
        guard let key = dataKey(parsed.epochWrapSequence) else { return .keyMissing(parsed) }
        guard let expected = try? parsed.encoded(dataKey: key),
            constantTimeEqual(Array(expected.suffix(32)), Array(record.suffix(32)))
        else { return .forged }
        return .verified(parsed)
    }
}
