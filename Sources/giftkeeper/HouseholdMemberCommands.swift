import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperWire

/// A member's own keys and the household's owners (SPEC §13): `recover` (a forgotten
/// password, with the recovery code) and `owner` (an owner makes another member one).
struct HouseholdRecover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Forgot your password? Sign in with your recovery code and choose a new one (a new recovery code is shown once).")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try reportingFailures {
            // The code from the terminal (or standard input's first line), never from argv; once
            // it opened the keys, the new password, twice (the next lines), or from --password-file.
            let typed = try TerminalSession.makePasswordSource(passwordFile: nil)
            let code = try typed.readPassword(prompt: HouseholdWords.recoveryCodePrompt)
            guard let secret = RecoveryCode.parse(code) else { throw usageError(HouseholdWords.notARecoveryCode) }
            let file = path.password.passwordFile
            try withHousehold(path.journal, password: path.password, recoveryCode: secret) { session, record, _ in
                let password = try readNewPassword(from: file == nil ? typed : try TerminalSession.makePasswordSource(passwordFile: file))
                let recovery = try RecoveryCode.make()
                try session.setPassword(password, recoveryCode: recovery.secret, parameters: record.parameters)
                // This device's key for the service opens with the new password and code from now on.
                _ = try record.service(password: secret, sealingAlso: [password, recovery.secret])
                Console().print(HouseholdWords.recovered)
                Console().print(HouseholdWords.recoveryCode(recovery.text))
            }
        }
    }
}

/// A membership one-shot on one name (`owner MEMBER`, `unlink PERSON`): signed in as
/// ``withMembership(_:_:)`` does, the change made, its line said.
protocol OneNameMembershipCommand: ParsableCommand {
    var name: String { get }
    var path: HouseholdPath { get }
    /// Makes the change about `name`; the line that says it.
    static func change(_ name: String, _ session: HouseholdSession, _ desk: ServiceDesk) throws -> String
}

extension OneNameMembershipCommand {
    func run() throws {
        try withMembership(path) { session, desk in Console().print(try Self.change(name, session, desk)) }
    }
}

struct HouseholdOwner: OneNameMembershipCommand {
    static let configuration = CommandConfiguration(
        commandName: "owner", abstract: "Make another member an owner too (an owner): they may invite, admit, remove and name owners.")

    @Argument(help: "The member's name.") var name: String
    @OptionGroup var path: HouseholdPath

    static func change(_ name: String, _ session: HouseholdSession, _ desk: ServiceDesk) throws -> String {
        try HouseholdMembership.makeOwner(name, session, desk: desk)
        return HouseholdWords.madeOwner(name)
    }
}

/// `household link PERSON MEMBER` (an owner): what is written about PERSON from now on goes
/// to everyone but MEMBER; what was written before keeps its audience (docs/households.md).
struct HouseholdLink: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract:
            "Link someone your list plans for to the member they are (an owner): what is written about them from now on is kept from them.")

    @Argument(help: "The person, as your list names them.") var person: String
    @Argument(help: "The member's name.") var member: String
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withMembership(path) { session, _ in
            try HouseholdMembership.link(person, to: member, session)
            Console().print(HouseholdWords.linked(person, to: member))
        }
    }
}

/// `household unlink PERSON` (an owner): what is written about PERSON from now on goes to everyone.
struct HouseholdUnlink: OneNameMembershipCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink", abstract: "Undo a link (an owner): what is written about the person from now on goes to everyone.")

    @Argument(help: ArgumentHelp("The person, as your list names them.", valueName: "person")) var name: String
    @OptionGroup var path: HouseholdPath

    static func change(_ name: String, _ session: HouseholdSession, _ desk: ServiceDesk) throws -> String {
        HouseholdWords.unlinked(name, from: try HouseholdMembership.unlink(name, session))
    }
}

/// A usage error (exit 2, SPEC §2), said in one line.
func usageError(_ sentence: String) -> ExitCode {
    Console().error(sentence)
    return ExitCode(2)
}

extension ServiceRemote {
    /// The service's account of member `id` of household `journalID`: the one whose public keys are theirs.
    func account(of id: MemberID, journalID: [UInt8]) throws -> String? {
        try roster(journalID: journalID).members.first { member in
            member.memberKeys.flatMap { MemberKeys(signing: Array($0.prefix(32)), sealing: Array($0.suffix(32))) }?.id == id
        }?.account
    }
}

/// The sync service's side of a household's membership (``HouseholdDesk``), as this
/// device's account there, and the codes of the invitations this device made, kept in its
/// record at `path` (written at each change, so a burned code is forgotten even when the
/// command then fails). `remote` is set once the member signed in.
final class ServiceDesk: HouseholdDesk {
    var remote: ServiceRemote?
    private(set) var record: HouseholdRecord
    private let path: String

    init(_ remote: ServiceRemote?, record: HouseholdRecord, path: String) {
        self.remote = remote
        self.record = record
        self.path = path
    }

    var invitationCodes: [String] { record.invitations }

    func file(code: String, invitationID: [UInt8], publicKey: [UInt8], ownerKeys: [UInt8]) throws {
        try service().invite(
            journalID: record.id, invitationID: invitationID, publicKey: publicKey, ownerKeys: ownerKeys,
            expiresInSeconds: HouseholdMembership.invitationLifetime)
        try keep { $0.invitations.append(code) }
    }

    func waitingRequests() throws -> [JoinRequest] {
        try service().invitations(journalID: record.id).filter(\.isPending).compactMap { invitation in
            invitation.request.map {
                JoinRequest(invitationID: Array(invitation.id), sealedKeys: Array($0.sealedKeys), signature: Array($0.signature))
            }
        }
    }

    func spend(code: String, invitationID: [UInt8], burning: Bool) throws {
        if burning { try service().burnInvitation(invitationID, journalID: record.id) }
        try keep { $0.invitations.removeAll { $0 == code } }
    }

    func append(_ step: MembershipStep, batch: FrameBatch, to store: any FrameStore) throws -> AppendOutcome {
        guard let shared = store as? ServiceFrameStore else { return try store.append(batch) }
        switch step {
        case .admit(let invitation, let keys):
            return try shared.changeMembers(.admit, invitation: invitation, memberKeys: keys.signing + keys.sealing, frames: batch)
        case .remove(let id), .promote(let id):
            guard let account = try service().account(of: id, journalID: record.id) else { return try store.append(batch) }
            let kind: MembershipChange.Kind = if case .remove = step { .remove } else { .promote }
            return try shared.changeMembers(kind, account: account, frames: batch)
        case .leave:
            return try shared.changeMembers(.leave, frames: batch)
        }
    }

    private func service() throws -> ServiceRemote {
        guard let remote else { throw ServiceError(.noRemote) }
        return remote
    }

    /// `change` made to the record as it is on disk now, and written.
    private func keep(_ change: (inout HouseholdRecord) -> Void) throws {
        var fresh = (try? HouseholdRecord.read(path)) ?? record
        change(&fresh)
        try fresh.write(to: path)
        record = fresh
    }
}

/// A membership one-shot's work (`giftkeeper household invite|admit|…`): signed in as
/// ``withHousehold(_:password:recoveryCode:_:)`` does, `body` on the member's session and
/// the service's desk; the invitations it kept or spent go into the record.
func withMembership(_ path: HouseholdPath, _ body: (HouseholdSession, ServiceDesk) throws -> Void) throws {
    try withHousehold(path.journal, password: path.password) { session, record, remote in
        let desk = ServiceDesk(remote, record: record, path: path.journal)
        defer { record.invitations = desk.record.invitations }
        try body(session, desk)
    }
}
