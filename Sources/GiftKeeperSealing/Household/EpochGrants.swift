package import GiftKeeperCrypto

/// What an epoch frame says to every member of its roster (docs/threat-model.md,
/// "Audiences, epochs and keys"): the roster after the change and a commitment to each
/// audience key it grants, signed by its author. (In the frame it is sealed under the new
/// *everyone* key; this is its content.)
public struct EpochBody: Hashable, Sendable {
    public let position: EpochPosition
    public let author: MemberID
    /// The members of the new epoch, in id order.
    public let roster: [MemberKeys]
    /// The owners of the new epoch (members who may admit and remove), in id order.
    public let owners: [MemberID]
    /// A commitment to each audience key the frame grants: every audience of the roster but
    /// *everyone but the author*, which another member completes.
    public let commitments: [Audience: [UInt8]]
    public let signature: [UInt8]
    /// In a renewal (a member's `passwd`), the member's old id and their old signing key's
    /// signature over the same bytes as ``signature``: the author is their new identity.
    public let renewal: EpochRenewal?

    /// A body as a frame holds it (``EpochGrants/begin(at:roster:author:)`` makes one).
    public init(
        position: EpochPosition, author: MemberID, roster: [MemberKeys], owners: [MemberID] = [], commitments: [Audience: [UInt8]],
        signature: [UInt8], renewal: EpochRenewal? = nil
    ) {
        self.position = position
        self.author = author
        self.roster = roster
        self.owners = owners
        self.commitments = commitments
        self.signature = signature
        self.renewal = renewal
    }

    /// What the author signs (and, in a renewal, the old key too): the position, the author,
    /// the roster, the owners, the commitments and, in a renewal, `GKRENEW1` and the old id.
    var signedBytes: [UInt8] {
        var bytes = position.encoded + author.bytes
        bytes.appendLittleEndian(UInt32(roster.count))
        for member in roster { bytes += member.signing + member.sealing }
        bytes.appendLittleEndian(UInt32(owners.count))
        for owner in owners { bytes += owner.bytes }
        bytes.appendLittleEndian(UInt32(commitments.count))
        for (audience, commitment) in commitments.sorted(by: { $0.key < $1.key }) { bytes += audience.encoded + commitment }
        if let renewal { bytes += Array("GKRENEW1".utf8) + renewal.from.bytes }
        return bytes
    }

    public var members: Roster { Roster(roster) }
}

/// A member's change of identity (`passwd` in a household; docs/threat-model.md): the id
/// they had, and its signing key's signature over the epoch body that names their new keys.
public struct EpochRenewal: Hashable, Sendable {
    public let from: MemberID
    public let signature: [UInt8]

    public init(from: MemberID, signature: [UInt8]) {
        self.from = from
        self.signature = signature
    }
}

/// An epoch frame's content: its body, and for each member of the roster (the author
/// included, for their other devices) the keys their audiences give them, sealed to them.
public struct EpochFrame: Sendable {
    public let body: EpochBody
    public let grants: [MemberID: [UInt8]]

    public init(body: EpochBody, grants: [MemberID: [UInt8]]) {
        self.body = body
        self.grants = grants
    }
}

/// The key of *everyone but* an epoch frame's author, which the author cannot make (they
/// would hold it): made by the first other member to take the frame in, sealed to every
/// member but the author, with its commitment, signed by its maker.
public struct EpochCompletion: Sendable {
    public let position: EpochPosition
    public let completer: MemberID
    public let audience: Audience
    public let commitment: [UInt8]
    public let grants: [MemberID: [UInt8]]
    public let signature: [UInt8]

    /// A completion as a frame holds it (``EpochGrants/complete(_:by:)`` makes one).
    public init(
        position: EpochPosition, completer: MemberID, audience: Audience, commitment: [UInt8], grants: [MemberID: [UInt8]],
        signature: [UInt8]
    ) {
        self.position = position
        self.completer = completer
        self.audience = audience
        self.commitment = commitment
        self.grants = grants
        self.signature = signature
    }

    var signedBytes: [UInt8] { Array("GKCOMPL1".utf8) + position.encoded + completer.bytes + audience.encoded + commitment }
}

/// Why a grant was refused: reported with its author and position, as tampering is.
public struct GrantViolation: Error, Hashable, Sendable {
    public enum Reason: Hashable, Sendable {
        /// The body's or completion's signature is not its author's, as the roster before holds them.
        case badSignature
        /// Its author is not a member of the household at this position.
        case authorNotMember
        /// The member opening it is not in its roster.
        case notInRoster
        /// There is no grant for this member, or it does not open with their key.
        case noGrant
        /// The grant is bound to another journal, position or epoch, or to another member.
        case misbound
        /// The grant holds a key of an audience the roster does not give this member
        /// (everyone but themselves above all), or the same audience twice.
        case keyNotForThisMember(Audience)
        /// A key does not match the body's commitment to it.
        case commitmentMismatch(Audience)
        /// The grant lacks a key the roster gives this member, or the body commits to
        /// other audiences than the roster's.
        case incomplete
        /// The grant's bytes are not a grant.
        case malformed
    }

    public let author: MemberID
    public let sequence: UInt64
    public let reason: Reason
}

/// Making, completing and opening epoch grants. A member takes in only what passes every
/// check of ``open(_:as:previous:)``; the rest is a ``GrantViolation``.
public enum EpochGrants {
    static let grantMagic = Array("GKGRANT1".utf8)

    /// Begins an epoch at `position` for `roster` and its `owners` (the author alone when
    /// nil), written by `author` (a member of it): a fresh key for every audience but
    /// *everyone but the author*, committed to in the signed body and sealed to each member
    /// for their audiences.
    ///
    /// With `renewing` (a member's `passwd`), `author` is their new identity, in `roster` in
    /// place of `renewing`, whose signature vouches for it.
    public static func begin(
        at position: EpochPosition, roster: Roster, owners: Set<MemberID>? = nil, author: MemberIdentity,
        renewing: MemberIdentity? = nil
    ) throws -> (frame: EpochFrame, keys: [AudienceKey]) {
        precondition(roster.contains(author.id), "the author of an epoch is one of its members")
        let owners = (owners ?? [author.id]).sorted()
        let audiences = roster.audiences.subtracting([.everyoneBut(author.id)]).sorted()
        let keys = try audiences.map(AudienceKey.generate)
        var commitments: [Audience: [UInt8]] = [:]
        for key in keys { commitments[key.audience] = try key.commitment(at: position) }
        let unsigned = EpochBody(
            position: position, author: author.id, roster: roster.ids.compactMap { roster.members[$0] }, owners: owners,
            commitments: commitments, signature: [], renewal: renewing.map { EpochRenewal(from: $0.id, signature: []) })
        let renewal = try renewing.map { EpochRenewal(from: $0.id, signature: try $0.signing.sign(unsigned.signedBytes)) }
        let body = EpochBody(
            position: position, author: author.id, roster: unsigned.roster, owners: owners, commitments: commitments,
            signature: try author.signing.sign(unsigned.signedBytes), renewal: renewal)
        var grants: [MemberID: [UInt8]] = [:]
        for (id, member) in roster.members {
            let mine = roster.audiences(of: id)
            grants[id] = try SealedBox.seal(try grant(keys.filter { mine.contains($0.audience) }, at: position, for: id), to: member.sealing)
        }
        return (EpochFrame(body: body, grants: grants), keys)
    }

    /// The completion of `frame` by `completer` (a member other than its author): the key
    /// of everyone but the author, sealed to every other member.
    public static func complete(_ frame: EpochFrame, by completer: MemberIdentity) throws -> (EpochCompletion, AudienceKey) {
        let body = frame.body
        precondition(completer.id != body.author, "the author of an epoch cannot complete it")
        let key = try AudienceKey.generate(for: .everyoneBut(body.author))
        let commitment = try key.commitment(at: body.position)
        var grants: [MemberID: [UInt8]] = [:]
        for member in body.roster where member.id != body.author {
            grants[member.id] = try SealedBox.seal(try grant([key], at: body.position, for: member.id), to: member.sealing)
        }
        let unsigned = EpochCompletion(
            position: body.position, completer: completer.id, audience: key.audience, commitment: commitment, grants: grants,
            signature: [])
        let completion = EpochCompletion(
            position: body.position, completer: completer.id, audience: key.audience, commitment: commitment, grants: grants,
            signature: try completer.signing.sign(unsigned.signedBytes))
        return (completion, key)
    }

    /// The keys `frame` grants `member`, after checking everything a member checks: the
    /// author signed the body with the key `previous` (the roster before; nil for the first
    /// epoch, which its author signs as a member of it) holds for them; `member` is in the
    /// roster; the grant opens, is bound to this position and to them; it holds exactly
    /// the keys of their audiences but *everyone but the author* (never *everyone but
    /// them*), each matching the body's commitment; and the body commits to exactly the
    /// roster's audiences but that one.
    public static func open(_ frame: EpochFrame, as member: MemberIdentity, previous: Roster?) throws(GrantViolation)
        -> [AudienceKey]
    {
        let body = frame.body
        func violation(_ reason: GrantViolation.Reason) -> GrantViolation {
            GrantViolation(author: body.author, sequence: body.position.sequence, reason: reason)
        }
        // A renewal is signed by its author's new key, in its roster, and by the old one, in the roster before.
        let signers = body.renewal == nil ? previous ?? body.members : body.members
        guard let author = signers.members[body.author] else { throw violation(.authorNotMember) }
        guard SigningKeyPair.verify(signature: body.signature, of: body.signedBytes, publicKey: author.signing) else {
            throw violation(.badSignature)
        }
        if let renewal = body.renewal {
            guard let old = previous?.members[renewal.from] else { throw violation(.authorNotMember) }
            guard SigningKeyPair.verify(signature: renewal.signature, of: body.signedBytes, publicKey: old.signing) else {
                throw violation(.badSignature)
            }
        }
        let roster = body.members
        guard roster.ids.count == body.roster.count, roster.contains(member.id) else { throw violation(.notInRoster) }
        let expected = roster.audiences(of: member.id).subtracting([.everyoneBut(body.author)])
        guard Set(body.commitments.keys) == roster.audiences.subtracting([.everyoneBut(body.author)]) else {
            throw violation(.incomplete)
        }
        let keys = try opened(frame.grants[member.id], as: member, at: body.position, violation: violation)
        for key in keys {
            guard expected.contains(key.audience) else { throw violation(.keyNotForThisMember(key.audience)) }
            guard (try? key.commitment(at: body.position)) == body.commitments[key.audience] else {
                throw violation(.commitmentMismatch(key.audience))
            }
        }
        guard Set(keys.map(\.audience)) == expected, keys.count == expected.count else { throw violation(.incomplete) }
        return keys
    }

    /// The key a completion of `frame` grants `member`: nil for the frame's author (who
    /// gets none), after checking that its maker is another member who signed it, that it
    /// is for *everyone but the author* at the frame's position, and that the key opens
    /// and matches its commitment.
    public static func open(_ completion: EpochCompletion, of frame: EpochFrame, as member: MemberIdentity)
        throws(GrantViolation) -> AudienceKey?
    {
        let body = frame.body
        func violation(_ reason: GrantViolation.Reason) -> GrantViolation {
            GrantViolation(author: completion.completer, sequence: body.position.sequence, reason: reason)
        }
        let roster = body.members
        guard completion.completer != body.author, let completer = roster.members[completion.completer] else {
            throw violation(.authorNotMember)
        }
        guard SigningKeyPair.verify(signature: completion.signature, of: completion.signedBytes, publicKey: completer.signing)
        else { throw violation(.badSignature) }
        guard completion.position == body.position, completion.audience == .everyoneBut(body.author) else {
            throw violation(.misbound)
        }
        guard member.id != body.author else { return nil }
        guard roster.contains(member.id) else { throw violation(.notInRoster) }
        let keys = try opened(completion.grants[member.id], as: member, at: body.position, violation: violation)
        guard keys.count == 1, let key = keys.first, key.audience == completion.audience else {
            throw violation(.keyNotForThisMember(keys.first?.audience ?? completion.audience))
        }
        guard (try? key.commitment(at: body.position)) == completion.commitment else {
            throw violation(.commitmentMismatch(key.audience))
        }
        return key
    }

    /// A grant of `keys`, for tests that break grants on purpose.
    package static func grantForTests(_ keys: [AudienceKey], at position: EpochPosition, for member: MemberID) throws
        -> SecureBytes
    {
        try grant(keys, at: position, for: member)
    }

    /// A grant's plaintext, in guarded memory: the magic, the position, the member, then
    /// each audience and its key.
    static func grant(_ keys: [AudienceKey], at position: EpochPosition, for member: MemberID) throws -> SecureBytes {
        let header = grantMagic + position.encoded + member.bytes + [UInt8(keys.count)]
        let entries = keys.map { $0.audience.encoded }
        let plaintext = try SecureBytes(capacity: header.count + entries.reduce(0) { $0 + $1.count } + 32 * keys.count)
        plaintext.withUnsafeMutableBytes { out in
            var offset = 0
            func write(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
                offset += bytes.count
            }
            header.withUnsafeBytes(write)
            for (key, audience) in zip(keys, entries) {
                audience.withUnsafeBytes(write)
                key.key.withUnsafeBytes(write)
            }
        }
        return plaintext
    }

    /// The keys in the grant `sealed` for `member`, checked to be bound to `position` and
    /// to them; each key copied into guarded memory of its own.
    static func opened(
        _ sealed: [UInt8]?, as member: MemberIdentity, at position: EpochPosition,
        violation: (GrantViolation.Reason) -> GrantViolation
    ) throws(GrantViolation) -> [AudienceKey] {
        guard let sealed, let plaintext = try? SealedBox.openSecret(sealed, with: member.sealing) else {
            throw violation(.noGrant)
        }
        let header = grantMagic + position.encoded + member.id.bytes
        let parsed: [(Audience, Range<Int>)]? = plaintext.withUnsafeBytes { bytes in
            guard bytes.count > header.count, bytes.prefix(header.count).elementsEqual(header) else { return nil }
            var offset = header.count + 1
            var entries: [(Audience, Range<Int>)] = []
            for _ in 0..<Int(bytes[header.count]) {
                guard offset < bytes.count else { return nil }
                let audience: Audience
                switch bytes[offset] {
                case 0:
                    audience = .everyone
                    offset += 1
                case 1 where offset + 1 + MemberID.length <= bytes.count:
                    guard let id = MemberID(bytes: Array(bytes[(offset + 1)..<(offset + 1 + MemberID.length)])) else { return nil }
                    audience = .everyoneBut(id)
                    offset += 1 + MemberID.length
                default:
                    return nil
                }
                guard offset + 32 <= bytes.count else { return nil }
                entries.append((audience, offset..<(offset + 32)))
                offset += 32
            }
            return offset == bytes.count ? entries : nil
        }
        guard let parsed else {
            // Either another member's or position's grant (its header differs) or garbage.
            let bound = plaintext.withUnsafeBytes { $0.count > header.count && $0.prefix(grantMagic.count).elementsEqual(grantMagic) }
            throw violation(bound ? .misbound : .malformed)
        }
        var keys: [AudienceKey] = []
        for (audience, range) in parsed {
            guard !keys.contains(where: { $0.audience == audience }) else { throw violation(.keyNotForThisMember(audience)) }
            guard let key = try? SecureBytes(capacity: 32) else { throw violation(.malformed) }
            key.withUnsafeMutableBytes { out in
                plaintext.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[range])) }
            }
            keys.append(AudienceKey(audience: audience, key: key))
        }
        return keys
    }
}
