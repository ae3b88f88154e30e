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

struct HouseholdOwner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "owner", abstract: "Make another member an owner too (an owner): they may invite, admit, remove and name owners.")

    @Argument(help: "The member's name.") var name: String
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            let owners = Set(session.members.filter(\.isOwner).map(\.id))
            guard owners.contains(session.id) else { throw HouseholdSessionError.household(.notAnOwner) }
            guard let id = session.memberID(named: name), id != session.id else { throw usageError(HouseholdWords.noSuchMember(name)) }
            guard !owners.contains(id) else { throw usageError(HouseholdWords.ownerAlready(name)) }
            let account = try remote.account(of: id, journalID: record.id)
            let store = session.member.store as? ServiceFrameStore
            try session.makeOwner(id) { batch in
                guard let store, let account else { return try session.member.store.append(batch) }
                return try store.changeMembers(.promote, account: account, frames: batch)
            }
            Console().print(HouseholdWords.madeOwner(name))
        }
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
