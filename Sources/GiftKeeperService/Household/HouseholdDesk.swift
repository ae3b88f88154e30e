package import GiftKeeperJournal
package import GiftKeeperSealing

/// A change of a household's members, as the service makes it with the frames that record
/// it (SPEC §13): it stops serving who left, and serves who was admitted.
package enum MembershipStep {
    case admit(invitation: [UInt8], keys: MemberKeys)
    case remove(MemberID)
    case promote(MemberID)
    case leave
}

/// The service's side of a household's membership, as a member's device reaches it: where
/// invitations are filed and join requests wait, and where a change of members is made
/// with its frames. The `household` commands use it, in the shell and one-shot alike
/// (``HouseholdShellService/changingMembers(_:)``).
package protocol HouseholdDesk: AnyObject {
    /// The codes of the invitations this device made that nobody was admitted on yet.
    var invitationCodes: [String] { get }
    /// Files invitation `invitationID` (its public key, the inviting owner's keys) and keeps
    /// its `code` on this device.
    func file(code: String, invitationID: [UInt8], publicKey: [UInt8], ownerKeys: [UInt8]) throws
    /// The join requests waiting for an owner (on any owner's invitation).
    func waitingRequests() throws -> [JoinRequest]
    /// Forgets `code` (invitation `invitationID`): an admission used it, or, `burning`, the
    /// service is told to burn it too.
    func spend(code: String, invitationID: [UInt8], burning: Bool) throws
    /// Appends `batch`, the frames of `step`, to `store`: through the service's one request
    /// that makes the change with them, or as any frames where there is none.
    func append(_ step: MembershipStep, batch: FrameBatch, to store: any FrameStore) throws -> AppendOutcome
}

extension ServiceError {
    /// A household session's refusal as the shell's error.
    init(household error: HouseholdSessionError) {
        switch error {
        case .domain(let domain): self.init(.domain(domain))
        case .household(.wrongPassword): self.init(.wrongPassword(recorded: false))
        case .household(.sealing(let sealing)): self.init(sealing: sealing)
        case .household(.busy): self.init(.changedElsewhere)
        case .household(let refusal): self.init(.household(refusal))
        case .nameTaken(let name): self.init(.householdNameTaken(name))
        case .invitation, .safetyNumberMismatch: self.init(.household(.notAMember))
        }
    }
}
