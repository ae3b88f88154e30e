import ArgumentParser
import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperWire

/// `giftkeeper household …`: a household's journal on a sync service, members, invitations
/// and the list's commands in it (SPEC §13). Online: every command signs in at the service.
struct Household: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "Plan together: a household's shared journal, its members, wishes and claims (through a sync service).",
        subcommands: [
            HouseholdCreate.self, HouseholdInvite.self, HouseholdJoin.self, HouseholdAdmit.self, HouseholdMembers.self,
            HouseholdRemove.self, HouseholdLeave.self, HouseholdOwner.self, HouseholdRecover.self, HouseholdPasswd.self,
            HouseholdAdd.self, HouseholdList.self, HouseholdShow.self, HouseholdHistory.self, HouseholdWish.self, HouseholdWishes.self,
            HouseholdClaim.self,
            HouseholdUnclaim.self,
        ])
}

/// `--journal PATH`: this device's record of the household.
struct HouseholdPath: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("This device's record of the household (mode 0600).", valueName: "path"))
    var journal: String
    @OptionGroup var password: PasswordOption
}

struct HouseholdCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Make a household on a sync service, with you its owner (password twice).")

    @Argument(help: "The household's name.") var household: String
    @OptionGroup var signUp: HouseholdSignUp

    func run() throws {
        var record = try signUp.newRecord(household: household)
        let path = signUp.path
        try reportingFailures {
            let password = try readNewPassword(path.password)
            let recovery = try RecoveryCode.make()
            // This device's key for the service: sealed under the password and the recovery code.
            let remote = try record.service(password: password, sealingAlso: [recovery.secret])
            let journalID = try randomBytes(count: 16)
            let header = try VerifiedFrames.newHeader(journalID: journalID, path: path.journal, household: true).header
            let secrets = try MemberSecrets.generate()
            let store = try remote.createHousehold(header: header, ownerKeys: secrets.identity.keys.signing + secrets.identity.keys.sealing)
            let session = try HouseholdSession.signUp(
                .creating, in: store, name: signUp.name, password: password, recoveryCode: recovery.secret, parameters: record.parameters,
                secrets: secrets, now: productionEnvironment().now)
            record.journalID = hexString(journalID)
            record.member = hexString(session.id.bytes)
            try record.write(to: path.journal)
            Console().print(HouseholdWords.created(household, member: signUp.name))
            Console().print(HouseholdWords.recoveryCode(recovery.text))
        }
    }
}

struct HouseholdInvite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite", abstract: "A one-time code for someone to join (an owner; alone on standard output).")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            let (code, id, publicKey) = try session.invite()
            try remote.invite(
                journalID: record.id, invitationID: id, publicKey: publicKey, ownerKeys: session.keys.signing + session.keys.sealing,
                expiresInSeconds: 24 * 3_600)
            record.invitations.append(code.text)
            printAlone(code.text, note: HouseholdWords.invited)
        }
    }
}

struct HouseholdJoin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Ask to join a household with an owner's code (password twice); shows the safety number to read out.")

    @Argument(help: "The code the owner gave you.") var code: String
    @OptionGroup var signUp: HouseholdSignUp

    func run() throws {
        var record = try signUp.newRecord(household: "")
        let path = signUp.path
        try reportingFailures {
            let invitation = try InvitationCode(parsing: code)
            let password = try readNewPassword(path.password)
            let remote = try record.service(password: password)
            let (invitationID, _) = try invitation.invitationKeys()
            let info = try remote.invitation(invitationID)
            guard let owner = MemberKeys(signing: Array(info.ownerKeys.prefix(32)), sealing: Array(info.ownerKeys.suffix(32))) else {
                throw HouseholdSessionError.invitation(.ownerKeysDoNotMatch)
            }
            let journalID = Array(info.journalID)
            let (pending, secrets) = try HouseholdSession.prepareJoin(household: journalID, password: password, parameters: record.parameters)
            let (request, number) = try HouseholdSession.answer(invitation, owner: owner, joiner: secrets, household: journalID)
            try remote.requestJoin(invitationID: invitationID, sealedKeys: request.sealedKeys, signature: request.signature)
            record.journalID = hexString(journalID)
            record.pending = hexString(pending.wrap)
            try record.write(to: path.journal)
            printAlone(number, note: HouseholdWords.joined)
        }
    }
}

struct HouseholdAdmit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admit",
        abstract: "Admit who asked to join once their safety number matches yours (an owner); a mismatch burns the invitation.")

    @Argument(help: "Who you are admitting.") var name: String
    @Option(name: .customLong("safety-number"), help: "The number the joiner reads out (asked for when left out).")
    var safetyNumber: String?
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            let codes = record.invitations.compactMap { try? InvitationCode(parsing: $0) }
            let waiting = try remote.invitations(journalID: record.id).filter(\.isPending)
            let requests = try codes.compactMap { code -> (InvitationCode, JoinRequest)? in
                let (id, _) = try code.invitationKeys()
                guard let body = waiting.first(where: { $0.id == Data(id) })?.request else { return nil }
                return (code, JoinRequest(invitationID: id, sealedKeys: Array(body.sealedKeys), signature: Array(body.signature)))
            }
            guard !requests.isEmpty else {
                Console().error(HouseholdWords.noInvitation)
                throw ExitCode(1)
            }
            let typed = safetyNumber ?? askSafetyNumber()
            let store = session.member.store as? ServiceFrameStore
            for (code, request) in requests {
                guard (try? session.joiner(of: request, code: code).safetyNumber.filter(\.isNumber)) == typed.filter(\.isNumber) else {
                    continue
                }
                try session.admit(request, code: code, safetyNumber: typed) { batch, keys in
                    guard let store else { return try session.member.store.append(batch) }
                    return try store.changeMembers(
                        .admit, invitation: request.invitationID, memberKeys: keys.signing + keys.sealing, frames: batch)
                }
                record.invitations.removeAll { $0 == code.text }
                Console().print(HouseholdWords.admitted(name))
                return
            }
            // No request's number matches: one waiting alone is burned (its code is spent).
            if requests.count == 1, let (code, request) = requests.first {
                try remote.burnInvitation(request.invitationID, journalID: record.id)
                record.invitations.removeAll { $0 == code.text }
            }
            try record.write(to: path.journal)
            Console().error(HouseholdWords.mismatch(burned: requests.count == 1))
            throw ExitCode(1)
        }
    }
}

struct HouseholdMembers: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "members", abstract: "List the household's members and owners.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            for member in session.members {
                Console().print(HouseholdWords.member(member.name, isOwner: member.isOwner, isYou: member.id == session.id))
            }
            if session.members.contains(where: { $0.id == session.id && $0.isOwner }) {
                let waiting = try remote.invitations(journalID: record.id).filter(\.isPending).count
                if waiting > 0 { Console().print(HouseholdWords.pending(waiting)) }
            }
        }
    }
}

/// The safety number, asked for on standard error and read from standard input.
private func askSafetyNumber() -> String {
    FileHandle.standardError.write(Data(HouseholdWords.safetyNumberPrompt.utf8))
    return readLine() ?? ""
}

/// What `create` and `join` take: the member's name, this device's record, the service and
/// the password-hashing cost.
struct HouseholdSignUp: ParsableArguments {
    @Option(help: "Your name in the household.") var name: String
    @OptionGroup var path: HouseholdPath
    @Option(help: "The sync service (https://HOST[:PORT]). Default: $GIFTKEEPER_REMOTE.") var remote: String?
    @Option(help: "Password-hashing cost: interactive, moderate (default) or sensitive.") var kdf = "moderate"

    /// A new record for this device (refused when the path exists).
    func newRecord(household: String) throws -> HouseholdRecord {
        guard let url = remote ?? environment("GIFTKEEPER_REMOTE"), !url.isEmpty else { throw failure(ServiceError(.noRemote)) }
        guard !FileManager.default.fileExists(atPath: path.journal) else { throw failure(JournalError(.alreadyExists, path: path.journal)) }
        return HouseholdRecord(household: household, remote: url, journalID: "", name: name, kdf: kdf)
    }
}

/// `result` alone on standard output (for scripts), `note` on standard error.
func printAlone(_ result: String, note: String) {
    Console().print(result)
    Console().note(note)
}

struct HouseholdRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a member (an owner): nothing written afterwards opens for them; what they read before, they keep.")

    @OptionGroup var path: HouseholdPath
    @Argument(help: "The member's name.") var name: String

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            guard let id = session.memberID(named: name), id != session.id else { throw usageError(HouseholdWords.noSuchMember(name)) }
            let account = try remote.account(of: id, journalID: record.id)
            let store = session.member.store as? ServiceFrameStore
            try session.remove(id) { batch in
                guard let store, let account else { return try session.member.store.append(batch) }
                return try store.changeMembers(.remove, account: account, frames: batch)
            }
            Console().print(HouseholdWords.removed(name))
        }
    }
}

struct HouseholdLeave: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave the household: nothing after opens for you.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            let store = session.member.store as? ServiceFrameStore
            try session.leave { batch in try store?.changeMembers(.leave, frames: batch) ?? session.member.store.append(batch) }
            Console().print(HouseholdWords.left)
        }
    }
}
