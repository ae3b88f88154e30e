import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import Testing

/// Known-answer vectors for a household's journal (format version 3, docs/journal-format.md):
/// the header, a member id, a leave, an audience tag and a commitment, each computed
/// independently with Python's hashlib (BLAKE2b, keyed, with salt and personalisation for
/// `crypto_kdf_derive_from_key`) and the `cryptography` package (Ed25519, X25519); and the
/// layouts of a member's key wrap, an epoch frame and a completion, byte by byte.
@Suite struct HouseholdVectorTests {
    static let journalID = Array(UInt8(0)..<16)

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func secure(_ bytes: [UInt8]) throws -> SecureBytes {
        let secret = try SecureBytes(capacity: bytes.count)
        secret.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        return secret
    }

    /// The identity of Ed25519 seed 01…01 and X25519 secret key 02…02.
    static func identity() throws -> MemberIdentity {
        MemberIdentity(
            signing: try SigningKeyPair(seed: try secure(Array(repeating: 1, count: 32))),
            sealing: try BoxKeyPair(
                publicKey: Self.bytes("ce8d3ad1ccb633ec7b70c17814a5c76ecd029685050d344745ba05870e587d59"),
                secretKey: try secure(Array(repeating: 2, count: 32))))
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test("The header of a household's journal: version 3, the layout of versions 1 and 2")
    func header() throws {
        let (bytes, header) = try VerifiedFrames.newHeader(journalID: Self.journalID, path: "vector", household: true)
        #expect(
            Self.hex(bytes)
                == "474946544b45455003000000000102030405060708090a0b0c0d0e0f50004bb05047b703c93f4334cf3eec560f00679879826c84965fc3b1c513f6cc")
        #expect(header.formatVersion == 3)
        // A person's journal keeps version 2.
        #expect(try VerifiedFrames.newHeader(journalID: Self.journalID, path: "vector").header.formatVersion == 2)
    }

    @Test("A member id, and a leave: epoch, member id, Ed25519 signature over GKLEAVE1, the position, the epoch and the id")
    func memberIDAndLeave() throws {
        let identity = try Self.identity()
        #expect(Self.hex(identity.keys.signing) == "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c")
        #expect(Self.hex(identity.id.bytes) == "48af6ad11324b310d4616dd001a668e7")
        let position = FramePosition(journalID: Self.journalID, sequence: 7, kind: 8, previousHash: Array(repeating: 0xAA, count: 32))
        let leave = try HouseholdFrames.Leave.make(by: identity, epoch: 2, at: position)
        #expect(
            Self.hex(leave)
                == "020000000000000048af6ad11324b310d4616dd001a668e7"
                + "3a727f05364350ba6986fe62e1a50262f370880284b8f3d94d2fac24aad92eeb989cd7b0452b63ad6595b78bf3133285af18985459b4998fc10abdc576165902")
        let parsed = try #require(HouseholdFrames.Leave(leave))
        #expect(parsed.epoch == 2 && parsed.member == identity.id && parsed.isSigned(by: identity.keys, at: position))
        let moved = FramePosition(journalID: Self.journalID, sequence: 8, kind: 8, previousHash: Array(repeating: 0xAA, count: 32))
        #expect(!parsed.isSigned(by: identity.keys, at: moved))
    }

    @Test("An audience tag and a commitment: keyed BLAKE2b under crypto_kdf subkeys of the audience key")
    func tagAndCommitment() throws {
        let key = AudienceKey(audience: .everyone, key: try Self.secure(Array(repeating: 3, count: 32)))
        let epoch = EpochPosition(journalID: Self.journalID, sequence: 5, previousHash: Array(repeating: 0xCC, count: 32), epoch: 2)
        #expect(Self.hex(try key.commitment(at: epoch)) == "aa3ff047c9f41c9e78cd7f4f2990be960c11941f003af6ba6c5e00b76ac69e65")
        let identity = try Self.identity()
        let position = FramePosition(journalID: Self.journalID, sequence: 9, kind: 7, previousHash: Array(repeating: 0xBB, count: 32))
        let frame = try HouseholdEvents.seal(Array("a wish".utf8), at: position, epoch: 2, for: key, everyone: key, author: identity)
        #expect(Array(frame.prefix(8)) == [2, 0, 0, 0, 0, 0, 0, 0])
        #expect(Self.hex(Array(frame[8..<24])) == "0c3a1e0e9628d4ab5ac41985b09c8a0f")
        // Epoch, tag, nonce, AEAD tag, author, signature, membership tag around one 64-byte block.
        #expect(frame.count == 8 + 16 + 24 + 16 + 16 + 64 + 64 + 16)
        let opened = try HouseholdEvents.open(frame, at: position, keyring: EpochKeyring(epoch: 2, keys: [key]), roster: Roster([identity.keys]))
        #expect(opened?.payload == Array("a wish".utf8) && opened?.author == identity.id)
    }

    @Test("A member's key wrap: 458 bytes, its clear part in place, opened by the password or the recovery code")
    func memberWrap() throws {
        let world = try HouseholdWorld()
        let member = try HouseholdMember.join(
            world.store.handle(), password: try HouseholdWorld.secret("pw"), recoveryCode: try HouseholdWorld.secret("code"),
            parameters: .testMinimum, initial: HouseholdWorld.initial)
        let wrap = try #require(try world.frames().first)
        #expect(wrap.kind == .memberWrap && wrap.payload.count == MemberWrapPayload.length && MemberWrapPayload.length == 458)
        #expect(wrap.payload[0] == 1 && wrap.payload[1] == 2)
        #expect(Array(wrap.payload[2..<10]) == [1, 0, 0, 0, 0, 0, 0, 0])  // opslimit 1 (test minimum)
        #expect(Array(wrap.payload[50..<82]) == member.keys.signing && Array(wrap.payload[82..<114]) == member.keys.sealing)
        for (password, code) in [("pw", nil), (nil, "code")] as [(String?, String?)] {
            let opened = try HouseholdMember.open(
                world.store.handle(), as: member.id, password: try password.map(HouseholdWorld.secret),
                recoveryCode: try code.map(HouseholdWorld.secret), initial: HouseholdWorld.initial)
            #expect(opened.secrets.onlyMe.key.constantTimeEquals(member.secrets.onlyMe.key))
            #expect(opened.secrets.identity.signing.seed.constantTimeEquals(member.secrets.identity.signing.seed))
        }
    }

    @Test("An epoch frame and a completion: their clear parts byte by byte, the body opened with the grant")
    func epochAndCompletion() throws {
        let world = try HouseholdWorld()
        let alice = try world.create()
        let bob = try world.join(admittedBy: alice)
        let frames = try world.frames()
        #expect(frames.map(\.kind) == [.memberWrap, .epoch, .memberWrap, .epoch, .completion])
        // The first epoch, of Alice alone: epoch 1, one grant (her id, its length, a sealed box
        // of magic 8, position 72, id 16, count 1 and everyone's 1 + 32), then the sealed body
        // (nonce 24, author 16, 2 + 64 for the roster, 2 + 16 owners, 2 + 33 commitments,
        // signature 64, tag 16).
        let first = frames[1].payload
        #expect(Array(first.prefix(10)) == [1, 0, 0, 0, 0, 0, 0, 0, 1, 0])
        #expect(Array(first[10..<26]) == alice.id.bytes)
        let grantLength = 48 + 8 + 72 + 16 + 1 + 33
        #expect(Array(first[26..<28]) == [UInt8(grantLength & 0xFF), UInt8(grantLength >> 8)])
        #expect(first.count == 28 + grantLength + 24 + 16 + 66 + 18 + 35 + 64 + 16)
        let sealed = try #require(HouseholdFrames.epoch(frames[3].payload))
        #expect(sealed.epoch == 2 && Set(sealed.grants.keys) == [alice.id, bob.id])
        let opened = try HouseholdFrames.open(sealed, as: bob.secrets.identity, at: frames[3].position)
        #expect(opened.body.author == alice.id && opened.body.owners == [alice.id] && opened.body.members.ids == [alice.id, bob.id].sorted())
        // Bob's completion: epoch 2, his id, everyone-but-Alice (0x01 and her id), the commitment,
        // one grant (Alice gets none), his signature.
        let completion = frames[4].payload
        #expect(Array(completion.prefix(8)) == [2, 0, 0, 0, 0, 0, 0, 0] && Array(completion[8..<24]) == bob.id.bytes)
        #expect(completion[24] == 1 && Array(completion[25..<41]) == alice.id.bytes)
        #expect(Array(completion[73..<75]) == [1, 0] && Array(completion[75..<91]) == bob.id.bytes)
        let parsed = try #require(HouseholdFrames.completion(completion, of: opened.body.position))
        #expect(parsed.completer == bob.id && parsed.audience == .everyoneBut(alice.id) && parsed.grants.keys.sorted() == [bob.id])
    }
}
