public import GiftKeeperCrypto

/// Who may read a household event: every member, or every member but one (the one a
/// present is for), or one member alone. A member's *only me* is a key of their own, kept
/// in their key wrap and never granted.
public enum Audience: Hashable, Sendable, Comparable {
    case everyone
    case everyoneBut(MemberID)
    case only(MemberID)

    /// Its bytes in grants, bodies, commitments and signatures: `0x00`, or `0x01` and the
    /// member id, or `0x02` and the member id (never in a grant).
    var encoded: [UInt8] {
        switch self {
        case .everyone: [0]
        case .everyoneBut(let member): [1] + member.bytes
        case .only(let member): [2] + member.bytes
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.encoded.lexicographicallyPrecedes(b.encoded) }
}

/// Where an epoch frame stands in its journal: what every grant and commitment of it is
/// bound to, so none can be moved to another journal or position.
public struct EpochPosition: Hashable, Sendable {
    public let journalID: [UInt8]
    public let sequence: UInt64
    public let previousHash: [UInt8]
    /// The epoch it begins (1 for the household's first).
    public let epoch: UInt64

    public init(journalID: [UInt8], sequence: UInt64, previousHash: [UInt8], epoch: UInt64) {
        self.journalID = journalID
        self.sequence = sequence
        self.previousHash = previousHash
        self.epoch = epoch
    }

    var encoded: [UInt8] {
        var bytes = Array("GKEPOCH1".utf8) + journalID
        bytes.appendLittleEndian(sequence)
        bytes += previousHash
        bytes.appendLittleEndian(epoch)
        return bytes
    }
}

/// One audience's key in one epoch: 32 random bytes in guarded memory, from which
/// `crypto_kdf_derive_from_key` makes a subkey for each job.
public struct AudienceKey: Sendable {
    public let audience: Audience
    public let key: SecureBytes

    public init(audience: Audience, key: SecureBytes) {
        self.audience = audience
        self.key = key
    }

    public static func generate(for audience: Audience) throws -> AudienceKey {
        AudienceKey(audience: audience, key: try SecureBytes.random(count: 32))
    }

    /// The commitment to this key at `position`: a BLAKE2b MAC under the key's commitment
    /// subkey over the position and the audience. It binds the key without revealing it.
    public func commitment(at position: EpochPosition) throws -> [UInt8] {
        let subkey = try SubkeyDerivation.derive(from: key, id: 3, context: "gkcommit")
        return try Blake2b.mac(position.encoded + audience.encoded, key: subkey)
    }
}
