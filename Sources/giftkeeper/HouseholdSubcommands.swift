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

/// `giftkeeper household …`: a household's journal on a sync service, its members and
/// invitations (SPEC §13). Online: every command signs in at the service. The list's
/// commands (`add`, `list`, `wish add`, `claim`, …) are the plain ones, on the record.
struct Household: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household",
        abstract: "Plan together: a household's shared journal and its members (through a sync service).",
        subcommands: [
            HouseholdCreate.self, HouseholdInvite.self, HouseholdJoin.self, HouseholdAdmit.self, HouseholdMembers.self,
            HouseholdRemove.self, HouseholdLeave.self, HouseholdOwner.self, HouseholdLink.self, HouseholdUnlink.self, HouseholdRecover.self,
            HouseholdPasswd.self, HouseholdDeviceCommand.self, HouseholdClone.self,
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
        try withMembership(path) { session, desk in
            printAlone(try HouseholdMembership.invite(session, desk: desk), note: HouseholdWords.invited)
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
    @Option(help: "The name your list already plans for them under, if any (asked at a terminal when left out).")
    var recipient: String?
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withMembership(path) { session, desk in
            let linked = try HouseholdMembership.admit(
                name, recipient: recipient, safetyNumber: { safetyNumber ?? askSafetyNumber() }, session, desk: desk,
                askingRecipient: askRecipient)
            Console().print(HouseholdWords.admitted(name))
            if let linked { Console().print(HouseholdWords.linked(linked, to: name)) }
        }
    }
}

struct HouseholdMembers: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "members", abstract: "List the household's members and owners.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withMembership(path) { session, desk in Console().print(lines: try HouseholdMembership.members(session, desk: desk)) }
    }
}

/// The safety number, asked for on standard error and read from standard input.
/// SPEC §13's question at admission, asked only at a terminal (a script passes `--recipient`).
private func askRecipient() -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return nil }
    FileHandle.standardError.write(Data(HouseholdWords.recipientPrompt.utf8))
    return readLine()
}

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
        try withMembership(path) { session, desk in
            try HouseholdMembership.remove(name, session, desk: desk)
            Console().print(HouseholdWords.removed(name))
        }
    }
}

struct HouseholdLeave: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave the household: nothing after opens for you.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withMembership(path) { session, desk in
            try HouseholdMembership.leave(session, desk: desk)
            Console().print(HouseholdWords.left)
        }
    }
}
