import GiftKeeperCrypto
package import GiftKeeperJournal
package import GiftKeeperSealing

/// Joining with a safety number (SPEC §13; docs/threat-model.md, "Joining and the safety
/// number"), the members' half: the service carries the invitation's id and public key, the
/// owner's public keys and the sealed request between them, and learns nothing else.
extension HouseholdSession {
    /// An owner's new invitation: the code to hand over (kept on the owner's device until
    /// they admit), and what the service files it under: its id and public key.
    package func invite() throws(HouseholdSessionError) -> (code: InvitationCode, id: [UInt8], publicKey: [UInt8]) {
        guard member.keyring.owners.contains(id) else { throw .household(.notAnOwner) }
        do {
            let code = try InvitationCode.make(owner: keys)
            let (invitation, signing) = try code.invitationKeys()
            return (code, invitation, signing.publicKey)
        } catch {
            throw .invitation(error as? InvitationError ?? .badRequest)
        }
    }

    /// A joiner's answer to `code`: their public keys sealed to `owner` (the keys the service
    /// gives, checked against the code's fingerprint first) and the safety number to read out.
    package func answer(_ code: InvitationCode, owner: MemberKeys) throws(HouseholdSessionError) -> (
        request: JoinRequest, safetyNumber: String
    ) {
        try Self.answer(code, owner: owner, joiner: member.secrets, household: member.store.header.journalID)
    }

    /// ``answer(_:owner:)`` for `joiner`, who has no session yet (on a service a joiner
    /// writes nothing until admitted: ``PendingJoin``), to household `journalID`.
    package static func answer(_ code: InvitationCode, owner: MemberKeys, joiner: MemberSecrets, household journalID: [UInt8])
        throws(HouseholdSessionError) -> (request: JoinRequest, safetyNumber: String)
    {
        guard code.matches(owner: owner) else { throw .invitation(.ownerKeysDoNotMatch) }
        do {
            let request = try JoinRequest.make(answering: code, joiner: joiner.identity, owner: owner)
            let number = SafetyNumber.of(
                household: journalID, invitationID: request.invitationID, owner: owner, joiner: joiner.identity.keys)
            return (request, number)
        } catch {
            throw .invitation(error as? InvitationError ?? .badRequest)
        }
    }

    /// The joiner's keys in `request` (an owner's, who made `code`) and the safety number the
    /// owner's device shows for them.
    package func joiner(of request: JoinRequest, code: InvitationCode) throws(HouseholdSessionError) -> (
        keys: MemberKeys, safetyNumber: String
    ) {
        do {
            let joiner = try request.joinerKeys(owner: member.secrets.identity, code: code)
            let number = SafetyNumber.of(
                household: member.store.header.journalID, invitationID: request.invitationID, owner: keys, joiner: joiner)
            return (joiner, number)
        } catch {
            throw .invitation(error as? InvitationError ?? .badRequest)
        }
    }

    /// Admits the joiner of `request` only if `typed` (the number they read out; spaces
    /// ignored) is the safety number: on a mismatch nothing is written and no key granted
    /// (the command then burns the invitation at the service). `appending`, when given,
    /// appends the admission's epoch frame with the joiner's keys (a service's
    /// `changeMembers(.admit, …)`, one request). The admitted member's keys.
    @discardableResult
    package func admit(
        _ request: JoinRequest, code: InvitationCode, safetyNumber typed: String,
        appending: ((FrameBatch, MemberKeys) throws -> AppendOutcome)? = nil
    ) throws(HouseholdSessionError) -> MemberKeys {
        let (joiner, number) = try joiner(of: request, code: code)
        let digits = { (text: String) in text.filter { !$0.isWhitespace } }
        guard constantTimeEqual(Array(digits(typed).utf8), Array(digits(number).utf8)) else { throw .safetyNumberMismatch }
        try Self.household { () throws(HouseholdError) in
            try member.admit(joiner, appending: appending.map { append in { batch in try append(batch, joiner) } })
        }
        return joiner
    }
}
