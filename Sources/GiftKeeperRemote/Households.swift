import Foundation
public import GiftKeeperJournal
public import GiftKeeperWire
import NIOHTTP1

/// A household on a sync service, seen from a member's device (SPEC §13): the service keeps
/// who is a member and who an owner, invitations and their one join request each, and
/// serves a household journal to its members only. Everything it keeps is public keys,
/// ids, times and sealed bytes; the cryptography is the members' (GiftKeeperSealing).
extension ServiceRemote {
    /// Makes the service's copy of household journal `header`, empty, with this device's
    /// account as its owner (`ownerKeys`: the owner's member public keys, signing then sealing).
    /// - Throws: ``JournalError/Code/alreadyExists`` when the account sees a journal of its id.
    public func createHousehold(header: JournalHeader, ownerKeys: [UInt8]) throws(JournalError) -> ServiceFrameStore {
        let journal = NewJournal(header: Data(header.encoded), journalID: Data(header.journalID), genesisHash: Data(header.genesisHash))
        let (status, body) = try connection.send(.POST, Route.households, body: NewHousehold(journal: journal, ownerKeys: Data(ownerKeys)))
        if status == 409 { throw JournalError(.alreadyExists, path: ServiceFrameStore.name(connection, header.journalID)) }
        try connection.check(status, body)
        guard let store = try ServiceFrameStore.open(connection: connection, journalID: header.journalID) else {
            throw JournalError(.unreachable(.journalGone), path: description)
        }
        return store
    }

    /// Posts an invitation to household `journalID` (an owner's): its id and public key,
    /// derived from the code's secret, which never leaves this device; the inviting owner's
    /// public keys; and how long it may be used.
    public func invite(
        journalID: [UInt8], invitationID: [UInt8], publicKey: [UInt8], ownerKeys: [UInt8], expiresInSeconds: Int
    ) throws(JournalError) {
        let new = NewInvitation(
            id: Data(invitationID), publicKey: Data(publicKey), ownerKeys: Data(ownerKeys), expiresInSeconds: expiresInSeconds)
        _ = try connection.callHousehold(
            .POST, Route.householdInvitations(journalID), body: new, answer: Empty.self, conflict: .codeUsed, missing: .notMember)
    }

    /// What a joiner holding a code learns of its invitation: the household's journal, the
    /// inviting owner's public keys (to check against the code) and the time left.
    public func invitation(_ id: [UInt8]) throws(JournalError) -> InvitationInfo {
        try connection.callHousehold(
            .GET, Route.invitation(id), body: Empty?.none, answer: InvitationInfo.self, conflict: .codeUsed, missing: .unknownCode)
    }

    /// Sends a join request on invitation `invitationID`: the joiner's public keys sealed to
    /// the owner and signed with the invitation's key. The account joins only once an owner
    /// admits it.
    public func requestJoin(invitationID: [UInt8], sealedKeys: [UInt8], signature: [UInt8]) throws(JournalError) {
        let body = JoinRequestBody(sealedKeys: Data(sealedKeys), signature: Data(signature))
        _ = try connection.callHousehold(
            .POST, Route.joinRequest(invitationID), body: body, answer: Empty.self, conflict: .codeUsed, missing: .unknownCode)
    }

    /// Household `journalID`'s invitations with their join requests (an owner's).
    public func invitations(journalID: [UInt8]) throws(JournalError) -> [InvitationList.Invitation] {
        try connection.callHousehold(
            .GET, Route.householdInvitations(journalID), body: Empty?.none, answer: InvitationList.self, conflict: .codeUsed,
            missing: .notMember
        ).invitations
    }

    /// Burns invitation `id` of household `journalID` (an owner's): a safety number did not
    /// match, or it is no longer wanted.
    public func burnInvitation(_ id: [UInt8], journalID: [UInt8]) throws(JournalError) {
        _ = try connection.callHousehold(
            .DELETE, Route.invitation(id, of: journalID), body: Empty?.none, answer: Empty.self, conflict: .codeUsed,
            missing: .notMember)
    }

    /// Household `journalID`'s members and which of them this device's account is.
    public func roster(journalID: [UInt8]) throws(JournalError) -> HouseholdRoster {
        try connection.callHousehold(
            .GET, Route.members(journalID), body: Empty?.none, answer: HouseholdRoster.self, conflict: .lastOwner, missing: .notMember)
    }
}

extension ServiceFrameStore {
    /// Appends `batch` (the epoch frame of an admission, a removal or a new owner, or a
    /// member's `leave`) and makes the change of members it records, in one request: the
    /// change is made only if the frames land (``AppendOutcome/conflict(current:)``: neither
    /// happened; read, then decide again). For `admit`, `invitation` and the admitted
    /// member's `memberKeys`; for `remove` and `promote`, the member's `account`; for `renew`,
    /// the member's new `memberKeys`.
    public func changeMembers(
        _ kind: MembershipChange.Kind, account: String? = nil, invitation: [UInt8]? = nil, memberKeys: [UInt8]? = nil,
        frames batch: FrameBatch
    ) throws(JournalError) -> AppendOutcome {
        let placeholder = AppendRequest(base: WireHead(sequence: 0, hash: Data()), head: WireHead(sequence: 0, hash: Data()), frames: [], post: nil)
        let change = MembershipChange(
            kind: kind, account: account, invitation: invitation.map { Data($0) }, memberKeys: memberKeys.map { Data($0) },
            append: placeholder)
        return try appendPiece(batch, posting: nil, changing: change).outcome
    }
}

extension ServiceConnection {
    /// ``call(_:_:body:answer:allowingMissing:deadline:)`` for a household's request: a
    /// refusal by one of the rules the service keeps is a ``MembershipRefusal`` — 403 not an
    /// owner, 404 `missing`, 409 `conflict`, 410 an expired code.
    func callHousehold<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)?, answer: Answer.Type, conflict: MembershipRefusal,
        missing: MembershipRefusal
    ) throws(JournalError) -> Answer {
        let (status, data) = try send(method, path, body: body)
        let refusal: MembershipRefusal? =
            switch status {
            case 403: .notOwner
            case 404: missing
            case 409: conflict
            case 410: .codeExpired
            default: nil
            }
        if let refusal { throw JournalError(.unreachable(.household(refusal)), path: name) }
        try check(status, data)
        if let empty = Empty() as? Answer { return empty }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw JournalError(.unreachable(.unexpectedAnswer), path: name)
        }
    }
}
