public import GiftKeeperCrypto

/// A household member's id: 16 bytes of BLAKE2b over their two public keys, so two joins
/// never collide and need no coordination (docs/threat-model.md, "Households: the design").
public struct MemberID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    public static let length = 16

    /// 16 bytes already checked (a hash's first 16).
    init(hashPrefix bytes: [UInt8]) {
        precondition(bytes.count == Self.length)
        self.bytes = bytes
    }

    public static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    /// The first 8 hex digits, for messages and tests.
    public var description: String { bytes.prefix(4).map { String($0, radix: 16).leftPadded(2) }.joined() }
}

/// What every member knows of another: their signing and sealing public keys.
public struct MemberKeys: Hashable, Sendable {
    /// Ed25519, for the signatures on what they write.
    public let signing: [UInt8]
    /// X25519, for the keys sealed to them.
    public let sealing: [UInt8]

    public init?(signing: [UInt8], sealing: [UInt8]) {
        guard signing.count == SigningKeyPair.publicKeyLength, sealing.count == BoxKeyPair.publicKeyLength else { return nil }
        self.signing = signing
        self.sealing = sealing
    }

    /// The public halves of key pairs, whose lengths their types checked.
    init(_ signing: SigningKeyPair, _ sealing: BoxKeyPair) {
        self.signing = signing.publicKey
        self.sealing = sealing.publicKey
    }

    public var id: MemberID {
        MemberID(hashPrefix: Array(Blake2b.hash(signing + sealing).prefix(MemberID.length)))
    }
}

/// A member's own identity, made on their own device: the secret halves of their keys,
/// which exist only there (inside their key wrap, under their own password).
public struct MemberIdentity: Sendable {
    public let signing: SigningKeyPair
    public let sealing: BoxKeyPair

    public init(signing: SigningKeyPair, sealing: BoxKeyPair) {
        self.signing = signing
        self.sealing = sealing
    }

    /// A new identity (`crypto_sign_keypair`, `crypto_box_keypair`).
    public static func generate() throws -> MemberIdentity {
        MemberIdentity(signing: try SigningKeyPair.generate(), sealing: try BoxKeyPair.generate())
    }

    public var keys: MemberKeys {
        MemberKeys(signing, sealing)
    }

    public var id: MemberID { keys.id }
}

/// The members of a household in one epoch, by id.
public struct Roster: Hashable, Sendable {
    public private(set) var members: [MemberID: MemberKeys] = [:]

    public init(_ keys: [MemberKeys] = []) {
        for key in keys { members[key.id] = key }
    }

    /// The ids in a fixed order (the bytes'), as written and signed.
    public var ids: [MemberID] { members.keys.sorted() }

    public func contains(_ id: MemberID) -> Bool { members[id] != nil }

    public mutating func admit(_ keys: MemberKeys) { members[keys.id] = keys }

    public mutating func remove(_ id: MemberID) { members[id] = nil }

    /// The audiences `member` holds the keys of: everyone, and everyone but each other
    /// member; never everyone but themselves.
    public func audiences(of member: MemberID) -> Set<Audience> {
        guard contains(member) else { return [] }
        return Set([.everyone] + ids.filter { $0 != member }.map(Audience.everyoneBut))
    }

    /// Every audience of the epoch: everyone, and everyone but each member.
    public var audiences: Set<Audience> { Set([.everyone] + ids.map(Audience.everyoneBut)) }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
