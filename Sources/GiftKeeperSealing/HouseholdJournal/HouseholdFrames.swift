import GiftKeeperCrypto
import GiftKeeperJournal

/// The payloads of a household's epoch frames (kind 5), completions (kind 6) and leaves
/// (kind 8), as bytes and back (docs/journal-format.md, format version 3). Integers are
/// little-endian; an audience is `0x00`, or `0x01`/`0x02` and a member id. Reading never
/// traps: anything that does not parse is nil.
package enum HouseholdFrames {
    // MARK: Epoch frames

    /// An epoch frame's payload: the epoch (u64), the grants in clear (u16 count, then each
    /// member id, u16 length, sealed box), then the body sealed under the new *everyone*
    /// key (nonce ‖ ciphertext ‖ tag; additional data: the frame's position and every byte
    /// before it). The body: author id, u16 count and each member's signing and sealing
    /// keys, u16 count and each owner id, u16 count and each audience with its 32-byte
    /// commitment, the author's 64-byte signature; in a renewal, then the old id and the old
    /// key's 64-byte signature.
    package static func encode(_ frame: EpochFrame, everyone: AudienceKey, at position: FramePosition) throws -> [UInt8] {
        let body = frame.body
        var clear = HouseholdEvents.epochBytes(body.position.epoch)
        appendGrants(frame.grants, to: &clear)
        var plain = body.author.bytes
        plain.appendLittleEndian(UInt16(body.roster.count))
        for member in body.roster { plain += member.signing + member.sealing }
        plain.appendLittleEndian(UInt16(body.owners.count))
        for owner in body.owners { plain += owner.bytes }
        plain.appendLittleEndian(UInt16(body.commitments.count))
        for (audience, commitment) in body.commitments.sorted(by: { $0.key < $1.key }) { plain += audience.encoded + commitment }
        plain += body.signature
        if let renewal = body.renewal { plain += renewal.from.bytes + renewal.signature }
        let key = try HouseholdEvents.subkey(everyone, .epochBody)
        return clear + (try AEAD.seal(plain, key: key, additionalData: position.encoded + clear))
    }

    /// An epoch frame's clear part: its epoch and grants; the body stays sealed.
    package struct SealedEpoch {
        package let epoch: UInt64
        package let grants: [MemberID: [UInt8]]
        let clear: [UInt8]
        let sealedBody: [UInt8]
    }

    package static func epoch(_ payload: [UInt8]) -> SealedEpoch? {
        var reader = ByteReader(payload)
        guard let epoch = reader.readLittleEndian(UInt64.self), let grants = readGrants(&reader) else { return nil }
        let clear = reader.consumed(from: 0)
        guard let sealed = reader.read(reader.remaining) else { return nil }
        return SealedEpoch(epoch: epoch, grants: grants, clear: clear, sealedBody: sealed)
    }

    /// The epoch frame as `member` opens it: their grant gives the new *everyone* key, which
    /// opens the body. (The grant is not checked against the body here: ``EpochGrants/open(_:as:previous:)`` does.)
    package static func open(_ sealed: SealedEpoch, as member: MemberIdentity, at frame: FramePosition)
        throws(HouseholdRefusal) -> EpochFrame
    {
        func refused(_ reason: HouseholdRefusal.Reason) -> HouseholdRefusal {
            HouseholdRefusal(sequence: frame.sequence, reason: reason)
        }
        let position = EpochPosition(
            journalID: frame.journalID, sequence: frame.sequence, previousHash: frame.previousHash, epoch: sealed.epoch)
        let granted: [AudienceKey]
        do throws(GrantViolation) {
            granted = try EpochGrants.opened(sealed.grants[member.id], as: member, at: position) { reason in
                GrantViolation(author: member.id, sequence: frame.sequence, reason: reason)
            }
        } catch {
            throw refused(.grant(error.reason))
        }
        guard let everyone = granted.first(where: { $0.audience == .everyone }) else { throw refused(.grant(.incomplete)) }
        guard let opened = open(sealed, everyone: everyone, at: position, frame: frame) else { throw refused(.malformed(.epoch)) }
        return opened
    }

    /// The frame once its body is opened with the new *everyone* key; nil when it does not
    /// open or parse.
    static func open(_ sealed: SealedEpoch, everyone: AudienceKey, at position: EpochPosition, frame: FramePosition)
        -> EpochFrame?
    {
        guard let key = try? HouseholdEvents.subkey(everyone, .epochBody),
            let plain = try? AEAD.open(sealed.sealedBody, key: key, additionalData: frame.encoded + sealed.clear)
        else { return nil }
        var reader = ByteReader(plain)
        guard let author = readID(&reader), let memberCount = reader.readLittleEndian(UInt16.self) else { return nil }
        var roster: [MemberKeys] = []
        for _ in 0..<memberCount {
            guard let signing = reader.read(32), let sealing = reader.read(32), let keys = MemberKeys(signing: signing, sealing: sealing)
            else { return nil }
            roster.append(keys)
        }
        guard let ownerCount = reader.readLittleEndian(UInt16.self) else { return nil }
        var owners: [MemberID] = []
        for _ in 0..<ownerCount {
            guard let owner = readID(&reader) else { return nil }
            owners.append(owner)
        }
        guard let commitmentCount = reader.readLittleEndian(UInt16.self) else { return nil }
        var commitments: [Audience: [UInt8]] = [:]
        for _ in 0..<commitmentCount {
            guard let audience = readAudience(&reader), commitments[audience] == nil, let commitment = reader.read(32) else { return nil }
            commitments[audience] = commitment
        }
        guard let signature = reader.read(SigningKeyPair.signatureLength) else { return nil }
        var renewal: EpochRenewal?
        if reader.remaining > 0 {
            guard let from = readID(&reader), let signature = reader.read(SigningKeyPair.signatureLength) else { return nil }
            renewal = EpochRenewal(from: from, signature: signature)
        }
        guard reader.remaining == 0 else { return nil }
        let body = EpochBody(
            position: position, author: author, roster: roster, owners: owners, commitments: commitments, signature: signature,
            renewal: renewal)
        return EpochFrame(body: body, grants: sealed.grants)
    }

    // MARK: Completions

    /// A completion's payload: the epoch (u64), the completer's id, the audience, the
    /// 32-byte commitment, the grants (as an epoch frame's), the completer's signature.
    package static func encode(_ completion: EpochCompletion) -> [UInt8] {
        var bytes = HouseholdEvents.epochBytes(completion.position.epoch) + completion.completer.bytes
        bytes += completion.audience.encoded + completion.commitment
        appendGrants(completion.grants, to: &bytes)
        return bytes + completion.signature
    }

    /// The epoch a completion's payload names, read first to find the frame it completes.
    package static func completionEpoch(_ payload: [UInt8]) -> UInt64? {
        var reader = ByteReader(payload)
        return reader.readLittleEndian(UInt64.self)
    }

    /// A completion of the epoch frame at `position`.
    package static func completion(_ payload: [UInt8], of position: EpochPosition) -> EpochCompletion? {
        var reader = ByteReader(payload)
        guard reader.readLittleEndian(UInt64.self) == position.epoch, let completer = readID(&reader),
            let audience = readAudience(&reader), let commitment = reader.read(32), let grants = readGrants(&reader),
            let signature = reader.read(SigningKeyPair.signatureLength), reader.remaining == 0
        else { return nil }
        return EpochCompletion(
            position: position, completer: completer, audience: audience, commitment: commitment, grants: grants, signature: signature)
    }

    // MARK: Leaves

    /// A member's signed departure: epoch (u64) ‖ member id ‖ Ed25519 signature over
    /// `GKLEAVE1` ‖ the frame's position ‖ the epoch ‖ the member id.
    package struct Leave: Hashable, Sendable {
        package let epoch: UInt64
        package let member: MemberID
        let signature: [UInt8]

        package static func make(by member: MemberIdentity, epoch: UInt64, at position: FramePosition) throws -> [UInt8] {
            let unsigned = signedBytes(member: member.id, epoch: epoch, at: position)
            return HouseholdEvents.epochBytes(epoch) + member.id.bytes + (try member.signing.sign(unsigned))
        }

        package init?(_ payload: [UInt8]) {
            var reader = ByteReader(payload)
            guard let epoch = reader.readLittleEndian(UInt64.self), let member = readID(&reader),
                let signature = reader.read(SigningKeyPair.signatureLength), reader.remaining == 0
            else { return nil }
            self.epoch = epoch
            self.member = member
            self.signature = signature
        }

        /// Whether `keys` (the leaver's, as the chain holds them) signed it at `position`.
        package func isSigned(by keys: MemberKeys, at position: FramePosition) -> Bool {
            SigningKeyPair.verify(
                signature: signature, of: Self.signedBytes(member: member, epoch: epoch, at: position), publicKey: keys.signing)
        }

        static func signedBytes(member: MemberID, epoch: UInt64, at position: FramePosition) -> [UInt8] {
            Array("GKLEAVE1".utf8) + position.encoded + HouseholdEvents.epochBytes(epoch) + member.bytes
        }
    }

    // MARK: Parts

    private static func appendGrants(_ grants: [MemberID: [UInt8]], to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(UInt16(grants.count))
        for (member, grant) in grants.sorted(by: { $0.key < $1.key }) {
            bytes += member.bytes
            bytes.appendLittleEndian(UInt16(grant.count))
            bytes += grant
        }
    }

    private static func readGrants(_ reader: inout ByteReader) -> [MemberID: [UInt8]]? {
        guard let count = reader.readLittleEndian(UInt16.self) else { return nil }
        var grants: [MemberID: [UInt8]] = [:]
        for _ in 0..<count {
            guard let member = readID(&reader), grants[member] == nil, let length = reader.readLittleEndian(UInt16.self),
                let grant = reader.read(Int(length))
            else { return nil }
            grants[member] = grant
        }
        return grants
    }

    private static func readID(_ reader: inout ByteReader) -> MemberID? {
        reader.read(MemberID.length).flatMap { MemberID(bytes: $0) }
    }

    private static func readAudience(_ reader: inout ByteReader) -> Audience? {
        switch reader.readByte() {
        case 0: return .everyone
        case 1: return readID(&reader).map(Audience.everyoneBut)
        case 2: return readID(&reader).map(Audience.only)
        default: return nil
        }
    }
}
