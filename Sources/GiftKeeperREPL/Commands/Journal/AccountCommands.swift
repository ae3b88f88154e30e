import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperService

/// `setup <name> [--kdf …]`: create the account of a new journal (password twice).
struct SetupCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: "Create the journal's account (asks for a password twice).",
        usage: "setup <name> [--kdf interactive|moderate|sensitive] [--currency EUR]")

    enum KDFCost: String, ExpressibleByArgument, CaseIterable, Decodable {
        case interactive, moderate, sensitive

        var parameters: KDFParameters {
            switch self {
            case .interactive: .interactive
            case .moderate: .moderate
            case .sensitive: .sensitive
            }
        }
    }

    @Argument(help: "Your name (encrypted in the journal).") var name: String?
    @Option(help: "Password-hashing cost: interactive (~0.1 s), moderate (~0.7 s, default), sensitive (several seconds).")
    var kdf: KDFCost = .moderate
    @Option(help: ArgumentHelp("The currency amounts are in, shown with them: EUR, USD, GBP…", valueName: "CODE"))
    var currency: String?

    static var prompts: [ArgumentPrompt<Self>] { [ArgumentPrompt(\.name, "Your name")] }
    static let passwordsAsked = 2
    /// An account command: never one-shot.
    static var runsOneShot: Bool { false }

    static func secretSafeUsage(positional: Int) -> String? {
        guard positional > 1 else { return nil }
        return "'setup' takes one name (quote it if it has spaces): the password is asked for after it "
            + "(in a script, on the next lines), never typed on the command line."
    }

    /// The costs after `--kdf`, the options where one is begun; nothing for the name (its
    /// prompt offers no options).
    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.precedingWords.last == "--kdf" { return KDFCost.allCases.map(\.rawValue) }
        return request.word.hasPrefix("-") ? ["--kdf", "--currency"] : []
    }

    mutating func run(in shell: any Shell) throws {
        let service = shell.service
        guard service.phase == .noAccount else {
            if service.phase == .signedIn { throw REPLError(.setupWhileSignedIn) }
            throw ServiceError(.journalExists(path: service.journalPath))
        }
        self = try shell.completing(self)
        let name = self.name ?? ""
        try service.checkSetup(name: name)
        let currency = try self.currency.map { try GiftList.currencyCode($0) }
        let first = try shell.readPassword("New password: ")
        defer { first.wipe() }
        try NewPassword.check(first)
        let second = try shell.readPassword("Repeat the password: ")
        defer { second.wipe() }
        guard first.constantTimeEquals(second) else { throw ServiceError(.passwordsDoNotMatch) }
        let parameters = kdf.parameters
        try shell.checking { try service.setup(name: name, password: first, parameters: parameters, currency: currency) }
        shell.console.print(
            "Journal created at \(service.journalPath) (mode 0600). Type 'add <recipient> <title>' to add a present.")
    }
}

/// `login`: unlock (the password on the next line in a script).
struct LoginCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Unlock the journal (asks for the password).", usage: "login")

    static let passwordsAsked = 1
    static var runsOneShot: Bool { false }

    static func secretSafeUsage(positional: Int) -> String? {
        "'login' takes no arguments: the password is asked for after it "
            + "(in a script, on the next line), never typed on the command line."
    }

    /// Changes nothing of itself: the shell runs it as it starts, with no line parsed.
    func run(in shell: any Shell) throws {
        let service = shell.service
        switch service.phase {
        case .noAccount: throw REPLError(.noAccountYet)
        case .signedIn: throw ServiceError(.alreadySignedIn)
        case .locked: break
        }
        let password = try shell.readPassword("Password: ")
        defer { password.wipe() }
        // A household's device asks again after its member's `passwd` elsewhere (the new password).
        let household = service as? HouseholdShellService
        household?.askPassword = { prompt in try shell.readPassword(prompt) }
        defer { household?.askPassword = nil }
        try shell.checking { try service.login(password: password) }
    }
}

/// `signout` (`logout`): lock and wipe every key.
struct SignOutCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "signout", abstract: "Lock the journal and wipe every key from memory.",
        usage: "signout", discussion: "'logout' does the same.", aliases: ["logout"])

    /// `signout` emptied the history; it does not start the next one either.
    static var keepsLineInHistory: Bool { false }
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        guard shell.service.phase == .signedIn else {
            shell.console.print("Already signed out.")
            return
        }
        try shell.service.signOut()
        // The locked prompt must not give back (Up, Ctrl-R) what was typed signed in.
        shell.clearHistory()
    }
}

/// `passwd`: the current password, then the new one twice.
struct PasswdCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the password (current one, then the new one twice).", usage: "passwd")

    static let passwordsAsked = 3
    static var runsOneShot: Bool { false }

    static func secretSafeUsage(positional: Int) -> String? {
        "'passwd' takes no arguments: the current password and the new one twice are asked for after it "
            + "(in a script, on the next three lines), never typed on the command line."
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let service = shell.service
        let old = try shell.readPassword("Current password: ")
        defer { old.wipe() }
        guard old.count > 0 else { throw ServiceError(.emptyPassword) }
        // The new password is asked for once the current one is checked.
        var new: SecureBytes?
        defer { new?.wipe() }
        try shell.checking {
            try service.changePassword(old: old) {
                let first = try shell.readPassword("New password: ")
                new = first
                try NewPassword.check(first)
                let repeated = try shell.readPassword("Repeat the new password: ")
                defer { repeated.wipe() }
                guard first.constantTimeEquals(repeated) else { throw ServiceError(.passwordsDoNotMatch) }
                return first
            }
        }
        shell.console.print("Password changed. New events use a new key; only the new password opens the journal from now on.")
    }
}

/// `quit` (`exit`, Ctrl-D): sign out and leave.
struct QuitCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "quit", abstract: "Sign out and leave (also Ctrl-D).", usage: "quit",
        discussion: "'exit' does the same.", aliases: ["exit"])

    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        shell.stop()
    }
}
