public import GiftKeeperCrypto

/// Why an invitation code or a join request was refused.
public enum InvitationError: Error, Hashable, Sendable {
    /// Not an invitation code: wrong characters or length.
    case unreadableCode
    /// The owner's public keys (from the server) do not match the code's fingerprint: the
    /// server, or someone in between, substituted them.
    case ownerKeysDoNotMatch
    /// The request is not signed with the invitation's key, or not for this invitation.
    case badRequest
}

/// A one-time invitation to a household (docs/threat-model.md, "Joining and the safety
/// number"): 16 random bytes, from which the invitation's id and signing key are derived,
/// and a fingerprint of the owner's public keys, written in base32 groups. The server is
/// given only the id and the public key: it can neither redeem the code nor learn whom it
/// invites.
public struct InvitationCode: Sendable {
    public static let secretLength = 16
    static let fingerprintLength = 10

    let secret: SecureBytes
    let ownerFingerprint: [UInt8]

    /// A new code for an invitation from `owner`.
    public static func make(owner: MemberKeys) throws -> InvitationCode {
        InvitationCode(secret: try SecureBytes.random(count: secretLength), ownerFingerprint: fingerprint(of: owner))
    }

    init(secret: SecureBytes, ownerFingerprint: [UInt8]) {
        self.secret = secret
        self.ownerFingerprint = ownerFingerprint
    }

    /// The code as typed: `ABCD-EFGH-…` (RFC 4648 base32, no padding, case and dashes ignored).
    public init(parsing text: String) throws(InvitationError) {
        guard let bytes = Base32.decode(text), bytes.count == Self.secretLength + Self.fingerprintLength,
            let secret = try? SecureBytes(capacity: Self.secretLength)
        else { throw .unreadableCode }
        secret.withUnsafeMutableBytes { $0.copyBytes(from: bytes.prefix(Self.secretLength)) }
        self.init(secret: secret, ownerFingerprint: Array(bytes.suffix(Self.fingerprintLength)))
    }

    /// The code to show: the secret and the fingerprint in base32, in groups of four.
    public var text: String {
        let bytes = secret.withUnsafeBytes { Array($0) } + ownerFingerprint
        let encoded = Base32.encode(bytes)
        return stride(from: 0, to: encoded.count, by: 4).map { start in
            String(encoded.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    /// The invitation's id (what the server files it under) and signing key, derived from the secret.
    public func invitationKeys() throws -> (id: [UInt8], signing: SigningKeyPair) {
        let master = try SecureBytes(capacity: 32)
        master.withUnsafeMutableBytes { out in
            secret.withUnsafeBytes { key in
                Array("giftkeeper invitation".utf8).withUnsafeBytes { Blake2b.hash($0, key: key, into: out) }
            }
        }
        let id = try SubkeyDerivation.derive(from: master, id: 1, context: "gkinvite", length: 16).withUnsafeBytes { Array($0) }
        let seed = try SubkeyDerivation.derive(from: master, id: 2, context: "gkinvite", length: SigningKeyPair.seedLength)
        return (id, try SigningKeyPair(seed: seed))
    }

    /// Whether `owner` are the keys the code was made for.
    public func matches(owner: MemberKeys) -> Bool {
        constantTimeEqual(Self.fingerprint(of: owner), ownerFingerprint)
    }

    static func fingerprint(of owner: MemberKeys) -> [UInt8] {
        Array(Blake2b.hash(Array("GKOWNER1".utf8) + owner.signing + owner.sealing).prefix(fingerprintLength))
    }
}

/// A joiner's request: their public keys sealed to the owner, signed with the invitation's
/// key. The server checks the signature and keeps it; it never sees the joiner's keys
/// before admission, so it cannot grind a matching safety number.
public struct JoinRequest: Hashable, Sendable {
    public let invitationID: [UInt8]
    public let sealedKeys: [UInt8]
    public let signature: [UInt8]

    public init(invitationID: [UInt8], sealedKeys: [UInt8], signature: [UInt8]) {
        self.invitationID = invitationID
        self.sealedKeys = sealedKeys
        self.signature = signature
    }

    /// The request of `joiner` answering `code`, once the owner's keys (as the server gives
    /// them) match the code's fingerprint.
    public static func make(answering code: InvitationCode, joiner: MemberIdentity, owner: MemberKeys) throws -> JoinRequest {
        guard code.matches(owner: owner) else { throw InvitationError.ownerKeysDoNotMatch }
        let (id, signing) = try code.invitationKeys()
        let sealed = try SealedBox.seal(Array("GKJOIN01".utf8) + id + joiner.keys.signing + joiner.keys.sealing, to: owner.sealing)
        return JoinRequest(invitationID: id, sealedKeys: sealed, signature: try signing.sign(id + sealed))
    }

    /// Whether the invitation's key (the public half the owner gave the server) signed it.
    public func isSigned(by invitationKey: [UInt8]) -> Bool {
        SigningKeyPair.verify(signature: signature, of: invitationID + sealedKeys, publicKey: invitationKey)
    }

    /// The joiner's public keys, opened by the owner who made `code`.
    public func joinerKeys(owner: MemberIdentity, code: InvitationCode) throws -> MemberKeys {
        let (id, signing) = try code.invitationKeys()
        guard id == invitationID, isSigned(by: signing.publicKey) else { throw InvitationError.badRequest }
        let opened = try SealedBox.open(sealedKeys, with: owner.sealing)
        let header = Array("GKJOIN01".utf8) + id
        guard opened.count == header.count + 64, Array(opened.prefix(header.count)) == header,
            let keys = MemberKeys(signing: Array(opened.dropFirst(header.count).prefix(32)), sealing: Array(opened.suffix(32)))
        else { throw InvitationError.badRequest }
        return keys
    }
}

/// The number both sides read out before an admission: BLAKE2b over the household, the
/// invitation and both members' public keys (owner first), as 12 digits. An attacker in
/// the middle gets one blind try per invitation: one chance in 10¹².
public enum SafetyNumber {
    public static func of(household: [UInt8], invitationID: [UInt8], owner: MemberKeys, joiner: MemberKeys) -> String {
        let digest = Blake2b.hash(
            Array("GKSAFETY".utf8) + household + invitationID + owner.signing + owner.sealing + joiner.signing + joiner.sealing)
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000_000_000
        let digits = String(value)
        let padded = String(repeating: "0", count: 12 - digits.count) + digits
        return stride(from: 0, to: 12, by: 4).map { String(padded.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }
}

/// RFC 4648 base32 without padding, for codes a person types: no Swift package on the
/// list does it, and it is twenty lines.
enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text` (case, spaces and dashes ignored); nil for any other character.
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "-") && character != UInt8(ascii: " ") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        // What is left is the last character's padding: fewer than 5 bits, all zero.
        guard bits < 5, buffer & ((1 << bits) - 1) == 0 else { return nil }
        return out
    }
}
