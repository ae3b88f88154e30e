public import Foundation

/// The paths of households (SPEC §13): a household journal is read and appended to by the
/// journal routes (``Route/journal(_:)``) like a person's; these make one, invite, join and
/// change its members.
extension Route {
    public static let households = "/v1/households"
    public static let invitations = "/v1/invitations"

    /// `GET`: an invitation by its id (a joiner's); `POST …/request`: the join request.
    public static func invitation(_ id: [UInt8]) -> String { "\(invitations)/\(Wire.hex(id))" }
    public static func joinRequest(_ id: [UInt8]) -> String { "\(invitation(id))/request" }
    /// `POST`: a new invitation (an owner's); `GET`: the household's invitations and requests.
    public static func householdInvitations(_ journal: [UInt8]) -> String { "\(Route.journal(journal))/invitations" }
    /// `DELETE`: an invitation burnt (an owner's, after a safety number did not match).
    public static func invitation(_ id: [UInt8], of journal: [UInt8]) -> String { "\(householdInvitations(journal))/\(Wire.hex(id))" }
    /// `GET`: the roster; `POST`: a change of members with its epoch frame (``MembershipChange``).
    public static func members(_ journal: [UInt8]) -> String { "\(Route.journal(journal))/members" }
}

/// `POST /v1/households`: a household journal's server copy, empty; the account asking is
/// its owner. 409 when the account can see a journal of that id already.
public struct NewHousehold: Codable, Sendable {
    public var journal: NewJournal
    /// The owner's member public keys: Ed25519 for signing, then X25519 for sealing (64 bytes).
    public var ownerKeys: Data

    public init(journal: NewJournal, ownerKeys: Data) {
        self.journal = journal
        self.ownerKeys = ownerKeys
    }
}

/// `POST /v1/journals/ID/invitations` (an owner's): what the server keeps of an invitation —
/// never the code's secret, from which its id and key are derived.
public struct NewInvitation: Codable, Sendable {
    public var id: Data
    /// The invitation's Ed25519 public key, which signs the one join request it takes.
    public var publicKey: Data
    /// The inviting owner's member public keys, which the joiner checks against the code.
    public var ownerKeys: Data
    /// How long it may be used: 1 second to 7 days.
    public var expiresInSeconds: Int

    public static let longestLifetimeSeconds = 7 * 24 * 3_600

    public init(id: Data, publicKey: Data, ownerKeys: Data, expiresInSeconds: Int) {
        self.id = id
        self.publicKey = publicKey
        self.ownerKeys = ownerKeys
        self.expiresInSeconds = expiresInSeconds
    }
}

/// `GET /v1/invitations/ID` (a joiner's): the household's journal, the inviting owner's
/// public keys, the invitation's public key and the seconds left. 409 when another account
/// used it, 410 when it expired, 404 when there is none.
public struct InvitationInfo: Codable, Sendable {
    public var journalID: Data
    public var ownerKeys: Data
    public var publicKey: Data
    public var expiresInSeconds: Int

    public init(journalID: Data, ownerKeys: Data, publicKey: Data, expiresInSeconds: Int) {
        self.journalID = journalID
        self.ownerKeys = ownerKeys
        self.publicKey = publicKey
        self.expiresInSeconds = expiresInSeconds
    }
}

/// `POST /v1/invitations/ID/request` (a joiner's): the joiner's public keys sealed to the
/// owner, and the invitation key's signature of the invitation's id then those sealed bytes.
/// The server checks the signature, the expiry (410) and single use (409) and keeps it.
public struct JoinRequestBody: Codable, Sendable, Equatable {
    public var sealedKeys: Data
    public var signature: Data

    public init(sealedKeys: Data, signature: Data) {
        self.sealedKeys = sealedKeys
        self.signature = signature
    }

    /// The bytes the invitation's key signs.
    public static func signedBytes(invitationID: [UInt8], sealedKeys: [UInt8]) -> [UInt8] {
        invitationID + sealedKeys
    }
}

/// `GET /v1/journals/ID/invitations` (an owner's): the household's invitations, with the
/// join request each took, and how often a used one was tried again.
public struct InvitationList: Codable, Sendable {
    public struct Invitation: Codable, Sendable, Equatable {
        public var id: Data
        /// Seconds since 1970.
        public var expiresAt: Int64
        public var request: JoinRequestBody?
        public var requestedAt: Int64?
        public var refusedUses: Int
        public var lastRefusedAt: Int64?
        public var admittedAt: Int64?

        public init(
            id: Data, expiresAt: Int64, request: JoinRequestBody?, requestedAt: Int64?, refusedUses: Int, lastRefusedAt: Int64?,
            admittedAt: Int64?
        ) {
            self.id = id
            self.expiresAt = expiresAt
            self.request = request
            self.requestedAt = requestedAt
            self.refusedUses = refusedUses
            self.lastRefusedAt = lastRefusedAt
            self.admittedAt = admittedAt
        }

        /// A request waiting for an owner to admit it.
        public var isPending: Bool { request != nil && admittedAt == nil }
    }

    public var invitations: [Invitation]

    public init(invitations: [Invitation]) {
        self.invitations = invitations
    }
}

/// `POST /v1/journals/ID/members`: a change of the household's members and the epoch frame
/// (or `leave` frame) that goes with it, in one transaction: the change is made only if the
/// frames landed. Answered as an append (``AppendAnswer``); 404 for a non-member, 403 when
/// an owner's change comes from a member, 409 for the last owner's removal or leaving, 422
/// for no such member or join request.
public struct MembershipChange: Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// The account that made ``invitation``'s join request becomes a member.
        case admit
        /// ``account`` is no longer a member; its devices are served nothing more.
        case remove
        /// The account asking is no longer a member.
        case leave
        /// ``account`` becomes an owner.
        case promote
        /// The account asking renewed its member keys (`passwd`): ``memberKeys`` are its new ones.
        case renew
    }

    public var kind: Kind
    /// The member concerned (``HouseholdRoster/Member/account``), for `remove` and `promote`.
    public var account: String?
    /// The invitation whose request is admitted, for `admit`.
    public var invitation: Data?
    /// The admitted member's public keys (64 bytes), for `admit`; the asking member's new ones, for `renew`.
    public var memberKeys: Data?
    public var append: AppendRequest

    public init(kind: Kind, account: String? = nil, invitation: Data? = nil, memberKeys: Data? = nil, append: AppendRequest) {
        self.kind = kind
        self.account = account
        self.invitation = invitation
        self.memberKeys = memberKeys
        self.append = append
    }
}

/// `GET /v1/journals/ID/members`: the household's members, and which is the account asking.
public struct HouseholdRoster: Codable, Sendable {
    public enum Role: String, Codable, Sendable { case owner, member }

    public struct Member: Codable, Sendable, Equatable {
        /// The member's account on the service (a UUID).
        public var account: String
        public var role: Role
        /// Their member public keys, as the owner who admitted them posted them.
        public var memberKeys: Data?
        /// Seconds since 1970.
        public var joinedAt: Int64

        public init(account: String, role: Role, memberKeys: Data?, joinedAt: Int64) {
            self.account = account
            self.role = role
            self.memberKeys = memberKeys
            self.joinedAt = joinedAt
        }
    }

    public var members: [Member]
    public var you: String

    public init(members: [Member], you: String) {
        self.members = members
        self.you = you
    }
}
