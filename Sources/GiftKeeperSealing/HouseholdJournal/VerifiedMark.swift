import GiftKeeperCrypto
package import GiftKeeperJournal

/// How far a member's device verified a household's journal (docs/threat-model.md, "A
/// household event"): `GKVERIF1` ‖ the journal id ‖ the member id ‖ the sequence number
/// (u64) ‖ the chain's hash there ‖ a BLAKE2b MAC under a subkey of the member's *only me*
/// key. The caller keeps it outside the journal, as a person's remembered head; handed back
/// at the next sign-in, no event's signature up to there is checked again (the chain hash
/// there commits to every frame before it), so a sign-in verifies only what is new.
package enum VerifiedMark {
    static let magic = Array("GKVERIF1".utf8)
    static let length = 8 + 16 + 16 + 8 + 32 + 32

    /// The mark of `head` for `member` in `journalID`.
    static func encode(_ head: JournalHead, journalID: [UInt8], member: MemberSecrets) throws -> [UInt8] {
        var bytes = magic + journalID + member.id.bytes
        bytes.appendLittleEndian(head.sequence)
        bytes += head.hash
        return bytes + (try Blake2b.mac(bytes, key: try key(member)))
    }

    /// The head in `bytes`, if this member made the mark for this journal and it was not altered.
    package static func decode(_ bytes: [UInt8], journalID: [UInt8], member: MemberSecrets) -> JournalHead? {
        var reader = ByteReader(bytes)
        guard bytes.count == length, reader.read(8) == magic, reader.read(16) == journalID, reader.read(16) == member.id.bytes,
            let sequence = reader.readLittleEndian(UInt64.self), let hash = reader.read(32), let mac = reader.read(32),
            let expected = try? Blake2b.mac(Array(bytes.prefix(length - 32)), key: try key(member)), constantTimeEqual(expected, mac)
        else { return nil }
        return JournalHead(sequence: sequence, hash: hash)
    }

    private static func key(_ member: MemberSecrets) throws -> SecureBytes {
        try SubkeyDerivation.derive(from: member.onlyMe.key, id: 1, context: "gkverif1")
    }
}
