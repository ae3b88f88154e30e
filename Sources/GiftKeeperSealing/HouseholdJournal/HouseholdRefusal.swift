public import GiftKeeperDomain
public import GiftKeeperJournal

/// Why a member's device refused a frame of a household's journal: the frame's position
/// and the reason, as data (the shell words it). Nothing from that frame on is folded in;
/// it is tampering, reported as a person's journal reports it (exit 1).
public struct HouseholdRefusal: Error, Hashable, Sendable {
    public enum Reason: Hashable, Sendable {
        /// An event frame failed a check after the chain: no member made it (membership
        /// tag), it does not open, its author is not a member, or its signature is not theirs.
        case event(HouseholdFrameError.Reason)
        /// An epoch frame or a completion failed a check of its grant or body.
        case grant(GrantViolation.Reason)
        /// A member's key wrap that is not one, or that its member did not sign.
        case memberWrap(MemberWrapFault)
        /// The frame's bytes are not a frame of its kind (or its body does not open).
        case malformed(FrameKind)
        /// A person's frame kind (1 to 3) in a household's journal.
        case notAHouseholdFrame(FrameKind)
        /// A frame for epoch `found` where the household is in epoch `current`: sealed with
        /// the keys of an earlier epoch (those a removed member kept), or out of turn.
        case wrongEpoch(found: UInt64, current: UInt64)
        /// A change of members or owners its author may not make: only an owner admits,
        /// removes and names owners; any member may close out those who left; the first
        /// epoch is its author's alone; a household always has an owner among its members.
        case changeNotAllowed
        /// A leave by someone who is not a member at this position.
        case leaverNotMember
        /// A leave its member did not sign.
        case leaveNotSigned
        /// The last owner leaving while other members stay (a household always keeps one).
        case lastOwnerLeaving
        /// A second completion of the same epoch (the first in journal order wins).
        case alreadyCompleted
        /// An event opened and verified, but does not decode.
        case undecodable(EventDecodingError)
    }

    public let sequence: UInt64
    public let reason: Reason

    public init(sequence: UInt64, reason: Reason) {
        self.sequence = sequence
        self.reason = reason
    }
}

/// What signing in to, catching up with or writing to a household's journal can fail with.
public enum HouseholdError: Error {
    /// A frame refused at its position.
    case refused(HouseholdRefusal)
    /// The journal is not a household's (its format version is not 3).
    case notAHousehold(formatVersion: UInt16)
    /// No key wrap of this member in the journal (or none that they signed).
    case noKeyWrap
    /// The password (or recovery code) does not open the member's key wrap.
    case wrongPassword
    /// The member holds no key of the current epoch (not admitted yet, removed, or left).
    case notAMember
    /// Only an owner may do this.
    case notAnOwner
    /// The member cannot write for this audience: *everyone but* themselves, another's
    /// *only me*, or someone who is not a member.
    case notInAudience(Audience)
    /// The change would leave the household without an owner.
    case lastOwner
    /// Other writers kept appending first.
    case busy
    /// The journal ends `missing` frames before the head this device verified at its last
    /// sign-in (its ``VerifiedMark``): an older copy of it, which the device refuses to follow.
    case rolledBack(missing: UInt64)
    /// The journal is as long as the head this device verified, or longer, but along another
    /// chain: the chain hash at `sequence` is not the one its ``VerifiedMark`` names (a
    /// replaced or forked copy), found by comparing the two heads before any frame is read, or,
    /// in a longer journal, the frame after the mark's position, before any past it is verified.
    case forked(sequence: UInt64)
    /// The store or libsodium failed.
    case sealing(SealingError)
}
