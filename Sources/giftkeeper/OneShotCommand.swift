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
            case "--journal", "--password-file":
                guard index < arguments.endIndex, !arguments[index].isEmpty else {
                    usageError("\(word) needs a value, e.g. \(word) \(word == "--journal" ? "~/gifts.journal" : "~/.giftkeeper-password")", console)
                }
                if word == "--journal" { journalFlag = arguments[index] } else { passwordFile = arguments[index] }
                index += 1
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

        let input = TerminalSession.makeREPLInput()
        let passwords: any PasswordSource
        do {
            passwords = try passwordFile.map { try PasswordFile.open($0) } ?? input.passwords
        } catch {
            Glibc.exit(failure(error, console: console).rawValue)
        }
        let service = GiftKeeperService(journalPath: journalPath(flag: journalFlag), environment: productionEnvironment())
        let session = REPLSession(
            service: service, editor: input.editor, passwords: passwords,
            isInteractive: TerminalSession.isStandardInputTerminal, console: console)
        exitUnlessOutputWasLost(session.runOneShot(words), console: console)
    }

    private static func usageError(_ message: String, _ console: Console) -> Never {
        console.error(message + " (see 'giftkeeper \(CommandLine.arguments.dropFirst().first ?? "") --help')")
        Glibc.exit(2)
    }
}
