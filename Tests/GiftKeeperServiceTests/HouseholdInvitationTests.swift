import Foundation
import GiftKeeperCrypto
import GiftKeeperSealing
import Testing

/// Joining a household (issue 28; docs/threat-model.md, "Joining and the safety number"):
/// the code, the owner's fingerprint, the request only the invitation's key signs and only
/// the owner opens, and the safety number both sides read out.
@Suite struct HouseholdInvitationTests {
    let household = Array(repeating: UInt8(3), count: 16)

    @Test("A code reads back as typed (any case, dashes or spaces); anything else is not a code")
    func codeText() throws {
        let owner = try MemberIdentity.generate()
        let code = try InvitationCode.make(owner: owner.keys)
        let text = code.text
        #expect(text.split(separator: "-").allSatisfy { $0.count <= 4 } && text.filter { $0 != "-" }.count == 42, "\(text)")
        for typed in [text, text.lowercased(), text.replacingOccurrences(of: "-", with: " ")] {
            let parsed = try InvitationCode(parsing: typed)
            #expect(try parsed.invitationKeys().id == code.invitationKeys().id)
            #expect(parsed.matches(owner: owner.keys))
        }
        for bad in ["", "ABCD", text + "A", String(text.dropLast()) + "1", "!" + text.dropFirst()] {
            #expect(throws: InvitationError.unreadableCode) { try InvitationCode(parsing: bad) }
        }
    }

    @Test("The owner opens the joiner's keys; both compute the same safety number; the server checks only the signature")
    func join() throws {
        let owner = try MemberIdentity.generate()
        let joiner = try MemberIdentity.generate()
        let code = try InvitationCode.make(owner: owner.keys)
        let request = try JoinRequest.make(answering: try InvitationCode(parsing: code.text), joiner: joiner, owner: owner.keys)
        let (id, signing) = try code.invitationKeys()
        // The server holds the id and the public key only.
        #expect(request.invitationID == id && request.isSigned(by: signing.publicKey))
        let opened = try request.joinerKeys(owner: owner, code: code)
        #expect(opened == joiner.keys)
        let ownerSays = SafetyNumber.of(household: household, invitationID: id, owner: owner.keys, joiner: opened)
        let joinerSays = SafetyNumber.of(household: household, invitationID: id, owner: owner.keys, joiner: joiner.keys)
        #expect(ownerSays == joinerSays)
        #expect(ownerSays.count == 14 && ownerSays.split(separator: " ").count == 3, "\(ownerSays)")
    }

    @Test("Keys substituted in the middle: the joiner refuses a fake owner; a fake joiner shows another safety number")
    func substitutedKeys() throws {
        let owner = try MemberIdentity.generate()
        let joiner = try MemberIdentity.generate()
        let mallory = try MemberIdentity.generate()
        let code = try InvitationCode.make(owner: owner.keys)
        // The server hands the joiner Mallory's keys as the owner's: the fingerprint says no.
        #expect(throws: InvitationError.ownerKeysDoNotMatch) { try JoinRequest.make(answering: code, joiner: joiner, owner: mallory.keys) }
        // Without the code, nobody can sign a request the server takes.
        let (_, signing) = try code.invitationKeys()
        let other = try JoinRequest.make(answering: try InvitationCode.make(owner: owner.keys), joiner: mallory, owner: owner.keys)
        let forged = JoinRequest(invitationID: try code.invitationKeys().id, sealedKeys: other.sealedKeys, signature: other.signature)
        #expect(!forged.isSigned(by: signing.publicKey))
        #expect(throws: InvitationError.badRequest) { try forged.joinerKeys(owner: owner, code: code) }
        // Someone with the code who joins as Mallory: the numbers read out differ.
        let stolen = try JoinRequest.make(answering: code, joiner: mallory, owner: owner.keys)
        let id = try code.invitationKeys().id
        let ownerSays = SafetyNumber.of(
            household: household, invitationID: id, owner: owner.keys, joiner: try stolen.joinerKeys(owner: owner, code: code))
        #expect(ownerSays != SafetyNumber.of(household: household, invitationID: id, owner: owner.keys, joiner: joiner.keys))
    }
}
