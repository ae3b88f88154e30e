import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperService
import Glibc

/// `giftkeeper`: the command line of SPEC §2. Argument parsing and wiring only; the work
/// is done by GiftKeeperREPL and GiftKeeperService.
@main
struct GiftKeeperCommand: ParsableCommand {
    static let version = "1.0.0"

    static let configuration = CommandConfiguration(
        commandName: "giftkeeper",
        abstract: "A private gift-list keeper: every change is an encrypted event in an append-only journal.",
        usage: """
            giftkeeper [--journal <path>] [--lock-after <minutes>]   (the shell)
            giftkeeper <subcommand> [--journal <path>] [<options>]
            """,
        discussion: """
            The journal is --journal PATH, else $GIFTKEEPER_JOURNAL, else \
            $XDG_DATA_HOME/giftkeeper/default.journal (~/.local/share/giftkeeper/default.journal).
            Passwords are read from the terminal without echo, from --password-file F, or, when standard \
            input is not a terminal, from it (audit, export, import: its first line; the shell: the line \
            after 'login', the two after 'setup', the three after 'passwd'); never from arguments or \
            the environment.
            One-shot commands, the shell's own, signing in and out around them: \
            \(OneShot.names.joined(separator: ", ")) \
            (giftkeeper <command> --help for each; e.g. giftkeeper list --status idea).
            Shell completion: giftkeeper --generate-completion-script bash|zsh|fish.
            Exit codes: 0 ok, 1 the journal failed verification, 2 usage error, 3 wrong password, \
            4 journal missing, in use, unreadable or of an unknown version, 5 I/O failure.
            """,
        version: "giftkeeper \(version) (journal format \(JournalFormat.currentVersion), libsodium \(Sodium.libraryVersion))",
        // Each names itself (`commandName`): argument-parser would otherwise derive the name
        // with `String(describing:)`, whose dynamic casts scan every conformance record of the
        // process, at every start (docs/performance.md, "Start-up").
        subcommands: [REPL.self, Audit.self, Export.self, Import.self, Verify.self, Sync.self, Clone.self, Device.self, Household.self]
            + OneShotEntries.all,
        defaultSubcommand: REPL.self)

    /// Parses, runs, and maps every failure to one `giftkeeper: error:` line and SPEC §2's exit codes.
    static func main() {
        let console = Console()
        do {
            try ProcessHardening.apply()
        } catch {
            console.error("\(error.description). Refusing to run without process hardening.")
            Glibc.exit(5)
        }
        SecretWiping.installSignalHandlers()
        SecretWiping.register { SecureBytes.wipeAllLive() }
        // argument-parser's `help <name>` shows the top-level help for any unknown name, and
        // succeeds; an unknown name is a usage error like everywhere else.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "help", let name = arguments.dropFirst().first, OneShot.isCommand(name) {
            console.print(OneShot.helpMessage(for: name) ?? "")
            exitUnlessOutputWasLost(0, console: console)
        }
        if arguments.first == "help", let name = arguments.dropFirst().first,
            !configuration.subcommands.contains(where: { $0._commandName == name })
        {
            console.error("Unknown subcommand '\(name)'. Type 'giftkeeper --help' to see them.")
            Glibc.exit(2)
        }
        if let name = arguments.first, OneShot.isCommand(name) {
            OneShotCommand.run(name, Array(arguments.dropFirst()), console: console)
        }
        let subcommandNames = configuration.subcommands.map { $0._commandName }
        if let name = arguments.first, !name.hasPrefix("-"), name != "help", !subcommandNames.contains(name) {
            let suggestion = OneShot.closestName(to: name, among: subcommandNames)
            console.error(
                "Unknown command '\(name)'." + (suggestion.map { " Did you mean '\($0)'?" } ?? "")
                    + " Type 'giftkeeper --help' to see the commands.")
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
            exitUnlessOutputWasLost(0, console: console)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            if exitCode(for: error) == .success {  // --help, --version, completion scripts
                console.print(fullMessage(for: error))
                exitUnlessOutputWasLost(0, console: console)
            }
            let text = message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid usage"
            console.error("\(text) (see 'giftkeeper --help')")
            Glibc.exit(2)
        }
    }
}

/// Exits with `code`, or with 5 after one error line if anything written to standard
/// output was lost (a full disk behind `>`).
func exitUnlessOutputWasLost(_ code: Int32, console: Console) -> Never {
    if let failure = console.takeOutputFailure() {
        console.error(ServiceError.standardOutputFailure(errno: failure))
        Glibc.exit(5)
    }
    Glibc.exit(code)
}

/// `--journal PATH`, shared by every subcommand.
struct JournalOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The journal file.", valueName: "path"), completion: .file())
    var journal: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The sync service the journal is shared through (https://HOST[:PORT], a giftkeeper-server), "
                + "remembered for the journal once used. Default: $GIFTKEEPER_REMOTE, else the remembered one.",
            valueName: "url"))
    var remote: String?

    func validate() throws {
        if journal?.isEmpty == true {
            throw ValidationError("--journal needs a path, e.g. --journal ~/gifts.journal")
        }
        if remote?.isEmpty == true {
            throw ValidationError("--remote needs a URL, e.g. --remote https://gifts.example.org")
        }
    }

    /// The journal path: the flag, else $GIFTKEEPER_JOURNAL, else the XDG data directory.
    var path: String { journalPath(flag: journal) }

    /// The production environment with the server asked for.
    var environment: ServiceEnvironment { productionEnvironment(remote: remote) }
}

/// The journal path: `flag`, else $GIFTKEEPER_JOURNAL, else the XDG data directory.
func journalPath(flag: String?) -> String {
    if let flag { return flag }
    if let fromEnvironment = environment("GIFTKEEPER_JOURNAL"), !fromEnvironment.isEmpty { return fromEnvironment }
    return dataDirectory() + "/giftkeeper/default.journal"
}

/// `--password-file F`, for the subcommands that unlock.
struct PasswordOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read the password from the first line of this file (must not be group- or world-readable).",
            valueName: "file"), completion: .file())
    var passwordFile: String?

    /// Reads the password: the file, else the terminal, else the first line of standard input.
    func readPassword() throws -> SecureBytes {
        let source = try TerminalSession.makePasswordSource(passwordFile: passwordFile)
        return try PasswordReader.normalized(try source.readPassword(prompt: "Password: "))
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

func dataDirectory() -> String {
    if let xdg = environment("XDG_DATA_HOME"), xdg.hasPrefix("/") { return xdg }
    return homeDirectory() + "/.local/share"
}

func stateDirectory() -> String {
    if let xdg = environment("XDG_STATE_HOME"), xdg.hasPrefix("/") { return xdg + "/giftkeeper" }
    return homeDirectory() + "/.local/state/giftkeeper"
}

func homeDirectory() -> String {
    if let home = environment("HOME"), !home.isEmpty { return home }
    if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
    return "."
}

/// The production environment: real clock and sleep, the XDG state directory, and the
/// journal's server: `remote` (`--remote`), else $GIFTKEEPER_REMOTE, else the one remembered.
func productionEnvironment(remote: String? = nil) -> ServiceEnvironment {
    var made = ServiceEnvironment.system(stateDirectory: stateDirectory(), isCancelled: { CommandInterruption.isRequested })
    made.requestedRemote = remote ?? environment("GIFTKEEPER_REMOTE").flatMap { $0.isEmpty ? nil : $0 }
    let state = made.stateDirectory
    made.remoteLocation = { url throws(JournalError) in
        // Only a sync service (https://): a `postgres://` address is refused, saying so.
        return try ServiceRemote(url: url, stateDirectory: state, deviceName: deviceName())
    }
    return made
}

/// Prints `error` as one line and turns it into the exit code SPEC §2 gives it.
func failure(_ error: any Error, console: Console = Console()) -> ExitCode {
    let presented = PresentedError(error)
    if presented.isCancellation {
        console.note("Cancelled.")
    } else {
        console.error(presented.sentence)
    }
    return ExitCode(presented.exitCode)
}

/// What this device is called on a sync service: its host name.
func deviceName() -> String {
    var name = [CChar](repeating: 0, count: 256)
    guard gethostname(&name, name.count - 1) == 0 else { return "a device" }
    return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
