import GiftKeeperCrypto

/// Where a household event frame stands: what its signature and tags are bound to.
public struct FramePosition: Hashable, Sendable {
    public let journalID: [UInt8]
    public let sequence: UInt64
    public let kind: UInt8
    public let previousHash: [UInt8]

    public init(journalID: [UInt8], sequence: UInt64, kind: UInt8, previousHash: [UInt8]) {
        self.journalID = journalID
        self.sequence = sequence
        self.kind = kind
        self.previousHash = previousHash
    }

    var encoded: [UInt8] {
        // One array, made once: every event a member opens builds it.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.domain.count + journalID.count + 9 + previousHash.count)
        bytes += Self.domain
        bytes += journalID
        bytes.appendLittleEndian(sequence)
        bytes.append(kind)
        bytes += previousHash
        return bytes
    }

    private static let domain = Array("GKFRAME1".utf8)
}

/// The keys a member holds of one epoch: each audience's, by audience.
public struct EpochKeyring: Sendable {
    public let epoch: UInt64
    public let keys: [Audience: AudienceKey]

    public init(epoch: UInt64, keys: [AudienceKey]) {
        self.epoch = epoch
        var byAudience: [Audience: AudienceKey] = [:]
        for key in keys { byAudience[key.audience] = key }
        self.keys = byAudience
    }
}

/// A household event a member could open: who wrote it (signed), for whom, and the event.
public struct OpenedHouseholdEvent: Sendable {
    public let author: MemberID
    public let audience: Audience
    public let payload: [UInt8]
}

/// Why a household event frame was refused: it names the frame's position.
public struct HouseholdFrameError: Error, Hashable, Sendable {
    public enum Reason: Hashable, Sendable {
        /// Too short, or an epoch this member holds no key of.
        case malformed
        /// The membership tag does not verify: no member of the epoch made it (the server
        /// cannot write at all).
        case notFromAMember
        /// The audience tag matched a key this member holds, but the ciphertext does not open.
        case doesNotOpen
        /// Its author is not a member at this position.
        case authorNotMember
        /// The signature is not its author's over this position, epoch, audience and event.
        case badSignature
    }

    public let sequence: UInt64
    public let reason: Reason
}

/// Sealing and opening a household event frame (docs/threat-model.md, "A household
/// event"): epoch ‖ audience tag ‖ AEAD ciphertext ‖ membership tag. Inside the
/// ciphertext: the author's id, their Ed25519 signature, the event padded to 64-byte
/// blocks. The signature is inside on purpose: outside, it would tell every member who
/// wrote each frame they cannot read.
public enum HouseholdEvents {
    static let tagLength = 16

    /// The frame of `payload` for `audience` at `position`, written by `author`.
    /// `everyone` is the epoch's *everyone* key, whose membership subkey tags the frame.
    public static func seal(
        _ payload: [UInt8], at position: FramePosition, epoch: UInt64, for audience: AudienceKey, everyone: AudienceKey,
        author: MemberIdentity
    ) throws -> [UInt8] {
        try seal(payload, at: position, epoch: epoch, for: audience, everyone: everyone, signer: author, claiming: author.id)
    }

    /// A frame signed by `signer` that names `claimed` as its author: what a member writing
    /// as another would make, for the tests that check it is refused.
    package static func sealForTests(
        _ payload: [UInt8], at position: FramePosition, epoch: UInt64, for audience: AudienceKey, everyone: AudienceKey,
        signer: MemberIdentity, claiming claimed: MemberID
    ) throws -> [UInt8] {
        try seal(payload, at: position, epoch: epoch, for: audience, everyone: everyone, signer: signer, claiming: claimed)
    }

    /// `frame` (at `position`), opened with `from` (an audience key of its epoch), sealed
    /// again unchanged inside (author, signature, event) for `to` at `target`, with new tags:
    /// what a member who can read a frame would make to show it to another audience, for the
    /// tests that check it is refused.
    package static func readdressedForTests(
        _ frame: [UInt8], at position: FramePosition, from: AudienceKey, to: AudienceKey, everyone: AudienceKey,
        at target: FramePosition
    ) throws -> [UInt8] {
        let headerLength = 8 + tagLength
        let body = Array(frame.dropLast(tagLength))
        let inner = try AEAD.open(
            Array(body[headerLength...]), key: try subkey(from, .aead), additionalData: position.encoded + Array(body.prefix(headerLength)))
        var readdressed = Array(frame.prefix(8)) + (try audienceTag(to, at: target))
        readdressed += try AEAD.seal(inner, key: try subkey(to, .aead), additionalData: target.encoded + readdressed)
        return readdressed + (try membershipTag(readdressed, at: target, everyone: everyone))
    }

    /// Whether `key` does anything with `frame` at `position`: its audience tag matches, it
    /// makes the membership tag (as an *everyone* key), or its AEAD key opens the ciphertext.
    /// For the tests that check no key a member held outside their epochs opens a frame.
    package static func keyOpensForTests(_ frame: [UInt8], at position: FramePosition, key: AudienceKey) -> Bool {
        let headerLength = 8 + tagLength
        guard frame.count > headerLength + tagLength else { return false }
        let body = Array(frame.dropLast(tagLength))
        let tagMatches = (try? audienceTag(key, at: position)) == Array(frame[8..<headerLength])
        let membershipMatches = (try? membershipTag(body, at: position, everyone: key)) == Array(frame.suffix(tagLength))
        let opens = (try? subkey(key, .aead)).flatMap { aead in
            try? AEAD.open(Array(body[headerLength...]), key: aead, additionalData: position.encoded + Array(body.prefix(headerLength)))
        }
        return tagMatches || membershipMatches || opens != nil
    }

    private static func seal(
        _ payload: [UInt8], at position: FramePosition, epoch: UInt64, for audience: AudienceKey, everyone: AudienceKey,
        signer: MemberIdentity, claiming author: MemberID
    ) throws -> [UInt8] {
        let signed = position.encoded + epochBytes(epoch) + audience.audience.encoded + payload
        let inner = author.bytes + (try signer.signing.sign(signed)) + (try Padding.padded(payload, blockSize: 64))
        var frame = epochBytes(epoch) + (try audienceTag(audience, at: position))
        frame += try AEAD.seal(inner, key: try subkey(audience, .aead), additionalData: position.encoded + frame)
        return frame + (try membershipTag(frame, at: position, everyone: everyone))
    }

    /// The event in `frame`, or nil when it is not for this member (no audience key of
    /// theirs matches its tag). `roster` is the household's members at this position, with
    /// the keys the chain holds for them.
    /// - Throws: ``HouseholdFrameError`` for a frame no member made, or one that matched a
    ///   key of theirs and then does not open, or is not signed by a member.
    public static func open(_ frame: [UInt8], at position: FramePosition, keyring: EpochKeyring, roster: Roster)
        throws(HouseholdFrameError) -> OpenedHouseholdEvent?
    {
        guard let subkeys = try? EpochSubkeys(keyring) else {
            throw HouseholdFrameError(sequence: position.sequence, reason: .malformed)
        }
        return try open(frame, at: position, subkeys: subkeys, roster: roster)
    }

    /// ``open(_:at:keyring:roster:)`` with the epoch's subkeys derived once (a member's
    /// device takes in every frame of an epoch with the same ones). Without
    /// `verifyingSignature`, neither the signature nor the membership tag is checked: only
    /// for a frame this device verified before, at a position whose chain hash it
    /// remembered (``VerifiedMark``); which audience it is for is still found by its tag.
    public static func open(
        _ frame: [UInt8], at position: FramePosition, subkeys: EpochSubkeys, roster: Roster, verifyingSignature: Bool = true
    ) throws(HouseholdFrameError) -> OpenedHouseholdEvent? {
        try frame.withUnsafeBytes { bytes in
            Result { () throws(HouseholdFrameError) in
                try open(bytes, at: position, subkeys: subkeys, roster: roster, verifyingSignature: verifyingSignature)
            }
        }.get()
    }

    /// ``open(_:at:subkeys:roster:verifyingSignature:)`` of the frame's payload where it
    /// lies (a store's frame, read in place): only the plaintext and the event are copied out.
    public static func open(
        _ frame: UnsafeRawBufferPointer, at position: FramePosition, subkeys: EpochSubkeys, roster: Roster,
        verifyingSignature: Bool = true
    ) throws(HouseholdFrameError) -> OpenedHouseholdEvent? {
        func refused(_ reason: HouseholdFrameError.Reason) -> HouseholdFrameError {
            HouseholdFrameError(sequence: position.sequence, reason: reason)
        }
        let headerLength = 8 + tagLength
        guard frame.count > headerLength + tagLength, UInt64(littleEndian: frame.loadUnaligned(as: UInt64.self)) == subkeys.epoch,
            let membership = subkeys.membership
        else { throw refused(.malformed) }
        let at = position.encoded
        let body = UnsafeRawBufferPointer(rebasing: frame[..<(frame.count - tagLength)])
        // A frame this device verified before (the mark's chain hash covers it) had its membership tag checked then.
        if verifyingSignature {
            let made = (at + body).withUnsafeBytes { bytes in
                Blake2b.macPrefixMatches(bytes, key: membership, tag: UnsafeRawBufferPointer(rebasing: frame.suffix(tagLength)))
            }
            guard made else { throw refused(.notFromAMember) }
        }
        let tag = UnsafeRawBufferPointer(rebasing: frame[8..<headerLength])
        let found = at.withUnsafeBytes { bytes in subkeys.audiences.first { Blake2b.macPrefixMatches(bytes, key: $0.tag, tag: tag) } }
        guard let key = found else { return nil }
        let inner: [UInt8]
        do {
            inner = try AEAD.open(
                UnsafeRawBufferPointer(rebasing: body[headerLength...]), key: key.aead, additionalData: at + body[..<headerLength])
        } catch {
            throw refused(.doesNotOpen)
        }
        let signatureEnd = MemberID.length + SigningKeyPair.signatureLength
        guard inner.count > signatureEnd else { throw refused(.doesNotOpen) }
        guard let authorID = MemberID(bytes: Array(inner[..<MemberID.length])), let author = roster.members[authorID] else {
            throw refused(.authorNotMember)
        }
        let length = inner.withUnsafeBytes { Padding.unpaddedLength(UnsafeRawBufferPointer(rebasing: $0[signatureEnd...]), blockSize: 64) }
        guard let length else { throw refused(.doesNotOpen) }
        let payload = Array(inner[signatureEnd..<(signatureEnd + length)])
        if verifyingSignature {
            let signed = at + epochBytes(subkeys.epoch) + key.audience.encoded + payload
            let signature = Array(inner[MemberID.length..<signatureEnd])
            guard SigningKeyPair.verify(signature: signature, of: signed, publicKey: author.signing) else { throw refused(.badSignature) }
        }
        return OpenedHouseholdEvent(author: authorID, audience: key.audience, payload: payload)
    }

    enum Job: UInt64 {
        case aead = 1
        case tag = 2
        case membership = 4
        /// The key an epoch frame's body is sealed under (from the new *everyone* key).
        case epochBody = 5
    }

    static func subkey(_ key: AudienceKey, _ job: Job) throws -> SecureBytes {
        try SubkeyDerivation.derive(from: key.key, id: job.rawValue, context: "gkhouse1")
    }

    /// 16 bytes of BLAKE2b keyed with the audience's tag key over the position: holders find
    /// their key with a few keyed hashes; to anyone else it is noise.
    static func audienceTag(_ key: AudienceKey, at position: FramePosition) throws -> [UInt8] {
        Array(try Blake2b.mac(position.encoded, key: try subkey(key, .tag)).prefix(tagLength))
    }

    static func membershipTag(_ body: [UInt8], at position: FramePosition, everyone: AudienceKey) throws -> [UInt8] {
        Array(try Blake2b.mac(position.encoded + body, key: try subkey(everyone, .membership)).prefix(tagLength))
    }

    static func epochBytes(_ epoch: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLittleEndian(epoch)
        return bytes
    }
}

/// An epoch's subkeys as a member holds them, derived once from their ``EpochKeyring``: the
/// membership key (from *everyone*), and each audience's tag and AEAD keys in a fixed order.
public struct EpochSubkeys: Sendable {
    struct Held: Sendable {
        let audience: Audience
        let tag: SecureBytes
        let aead: SecureBytes
    }

    public let epoch: UInt64
    /// Nil when the keyring lacks *everyone* (no frame of the epoch can then be checked).
    let membership: SecureBytes?
    let audiences: [Held]

    public init(_ keyring: EpochKeyring) throws {
        epoch = keyring.epoch
        membership = try keyring.keys[.everyone].map { try HouseholdEvents.subkey($0, .membership) }
        audiences = try keyring.keys.values.sorted { $0.audience < $1.audience }.map { key in
            Held(audience: key.audience, tag: try HouseholdEvents.subkey(key, .tag), aead: try HouseholdEvents.subkey(key, .aead))
        }
    }
}
