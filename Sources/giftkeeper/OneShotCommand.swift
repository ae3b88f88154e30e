import ArgumentParser
import GiftKeeperREPL
import GiftKeeperService
import Glibc

/// `giftkeeper <shell command> [--journal P] [--password-file F] ...` (SPEC §11): the
/// shell's own declarations parse the command's words; this only takes the two options
/// every one-shot shares off the line, then signs in, runs it and signs out.
enum OneShotCommand {
    static func run(_ name: String, _ arguments: [String], console: Console) -> Never {
        var words = [name]
        var journalFlag: String?
        var passwordFile: String?
        var remote: String?
        var index = arguments.startIndex
        var literal = false
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            if literal || !word.hasPrefix("--") && word != "-h" {
                words.append(word)
                continue
            }
            switch word {
            case "--":
                literal = true
                words.append(word)
            case "--help", "-h":
                console.print(OneShot.helpMessage(for: name) ?? "")
                exitUnlessOutputWasLost(0, console: console)
            case "--journal", "--password-file", "--remote":
                guard index < arguments.endIndex, !arguments[index].isEmpty else {
                    usageError("\(word) needs a value, e.g. \(word) \(example(word))", console)
                }
                switch word {
                case "--journal": journalFlag = arguments[index]
                case "--remote": remote = arguments[index]
                default: passwordFile = arguments[index]
                }
                index += 1
            case let option where option.hasPrefix("--remote="):
                remote = String(option.dropFirst("--remote=".count))
                if remote?.isEmpty == true { usageError("--remote needs a URL, e.g. --remote \(example("--remote"))", console) }
            case let option where option.hasPrefix("--journal="):
                journalFlag = String(option.dropFirst("--journal=".count))
                if journalFlag?.isEmpty == true { usageError("--journal needs a path, e.g. --journal ~/gifts.journal", console) }
            case let option where option.hasPrefix("--password-file="):
                passwordFile = String(option.dropFirst("--password-file=".count))
                if passwordFile?.isEmpty == true { usageError("--password-file needs a file", console) }
            default:
                words.append(word)
            }
        }

        let session: REPLSession
        do {
            session = try oneShotSession(
                journalPath: journalPath(flag: journalFlag), environment: productionEnvironment(remote: remote),
                passwordFile: passwordFile, console: console)
        } catch {
            Glibc.exit(failure(error, console: console).rawValue)
        }
        exitUnlessOutputWasLost(session.runOneShot(words), console: console)
    }

    private static func example(_ option: String) -> String {
        switch option {
        case "--journal": "~/gifts.journal"
        case "--remote": "https://gifts.example.org"
        default: "~/.giftkeeper-password"
        }
    }

    private static func usageError(_ message: String, _ console: Console) -> Never {
        console.error(message + " (see 'giftkeeper \(CommandLine.arguments.dropFirst().first ?? "") --help')")
        Glibc.exit(2)
    }
}

/// The one-shot commands as argument-parser sees them (the shared options and the shell
/// command's own), for `--help`, the man page and the completion scripts only: `main` runs a one-shot before argument-parser parses anything,
/// with the shell's own declarations (`giftkeeper list --help` shows them).
struct OneShotEntry<Command: ParsableCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Command._commandName, abstract: Command.configuration.abstract,
            discussion: "The shell's '\(Command._commandName)', one-shot: signs in, runs it, signs out. "
                + "'giftkeeper \(Command._commandName) --help' shows its arguments and options.")
    }

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption
    /// The shell command's own arguments and options, so that help, the man page and the
    /// completion scripts show and complete them.
    @OptionGroup var command: Command
}

enum OneShotEntries {
    /// One entry for each of ``OneShot/commands``, in their order.
    static let all: [any ParsableCommand.Type] = OneShot.commands.map { entry(for: $0) }

    private static func entry<Command: ParsableCommand>(for _: Command.Type) -> any ParsableCommand.Type {
        OneShotEntry<Command>.self
    }
}

/// The shell session a one-shot runs in: the journal at `journalPath`, the password from
/// `passwordFile` (else the terminal, else standard input's next line), prompts on the
/// terminal when there is one.
func oneShotSession(
    journalPath: String, environment: ServiceEnvironment, passwordFile: String?, console: Console = Console()
) throws -> REPLSession {
    let input = TerminalSession.makeREPLInput()
    let passwords = try passwordFile.map { try PasswordFile.open($0) } ?? input.passwords
    return REPLSession(
        service: try shellService(journalPath: journalPath, environment: environment, listening: false), editor: input.editor,
        passwords: passwords, isInteractive: TerminalSession.isStandardInputTerminal, console: console)
}
