import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// One shell command: its syntax (the argument-parser declarations), the answers it may
/// prompt for, its completion and its run, in one type.
///
/// Every command is registered once, in ``ShellCommands/all``. The shell finds a line's
/// command by its first word and parses only that command; prompts, script answers, help
/// and completion all read the same declarations; argument-parser parses the line into
/// the command's own properties. Adding a command is one new file and one line in
/// ``ShellCommands/all``.
protocol ShellCommand: ParsableCommand {
    /// The arguments it asks for when its line leaves them out, in the order it asks.
    static var prompts: [ArgumentPrompt<Self>] { get }

    /// How many passwords it always asks for (after its arguments).
    static var passwordsAsked: Int { get }

    /// A usage message that repeats none of the words: for an account command given words
    /// it does not take, which may be a password typed on its line. Nil for the rest.
    static func secretSafeUsage(positional: Int) -> String?

    /// Candidates for the word at `request.wordIndex` (1 = the first argument).
    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String]

    /// Whether the line that ran it may go into the shell's history afterwards.
    static var keepsLineInHistory: Bool { get }

    /// Whether it also runs one-shot from the command line (``OneShot``): true for every
    /// command that reads or changes the list.
    static var runsOneShot: Bool { get }

    /// Runs the command, its properties parsed from its line. Errors are reported by the
    /// shell, one line each.
    mutating func run(in shell: any Shell) throws
}

extension ShellCommand {
    static var prompts: [ArgumentPrompt<Self>] { [] }

    static var passwordsAsked: Int { 0 }

    /// What the command asks for at most in a script: the arguments it always asks for when
    /// its line leaves them out, and its passwords.
    static var prompted: ScriptAnswers {
        ScriptAnswers(arguments: prompts.filter { !$0.isOptional && $0.neededWhen == nil }.count, passwords: passwordsAsked)
    }

    /// The lines this command reads after its line, in a script: each argument it will ask
    /// for because the line left it out, then its passwords.
    var answers: ScriptAnswers {
        ScriptAnswers(arguments: Self.prompts.filter { !$0.isOptional && $0.isAsked(by: self) }.count, passwords: Self.passwordsAsked)
    }

    /// What the command would have asked for when its line did not parse, judged from
    /// `positional`, the words that look like arguments: so its answer lines (a password
    /// above all) are skipped, never run as commands.
    static func answers(unparsedPositional positional: Int) -> ScriptAnswers {
        ScriptAnswers(arguments: max(0, prompted.arguments - positional), passwords: prompted.passwords)
    }

    static func secretSafeUsage(positional: Int) -> String? { nil }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] { [] }

    static var keepsLineInHistory: Bool { true }

    static var runsOneShot: Bool { true }

    /// The name and aliases the command answers to.
    static var names: [String] { [_commandName] + configuration.aliases }

    /// The long options that take a value (`--price 25`): those argument-parser's help
    /// shows with one (`--price <price>`). Read only for a line it could not parse.
    static var valueOptions: Set<String> {
        Set(helpOptions.filter(\.takesValue).map(\.name))
    }

    /// The command's long options, as its help lists them (not `--help`): what Tab offers
    /// after `-` in the shell.
    static var optionNames: [String] {
        helpOptions.map(\.name).filter { $0 != "--help" }
    }

    /// The long options argument-parser's help shows, in order, each with whether it takes
    /// a value (`--price <price>`).
    private static var helpOptions: [(name: String, takesValue: Bool)] {
        helpMessage(columns: 10_000).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let first = words.first, first.hasPrefix("--") else { return nil }
            let name = first.hasSuffix(",") ? String(first.dropLast()) : String(first)
            return (name, words.count > 1 && words[1].hasPrefix("<"))
        }
    }
}

/// A command whose first argument is a present id (`show`, `remove`, `edit`, `mark`):
/// it completes ids there, and asks for the id when the line leaves it out.
protocol PresentIDCommand: ShellCommand {
    /// The present id as typed (asked for when left out).
    var id: String? { get set }

    /// Throws when `id`, answered at the prompt, is not one the command can act on in `state`.
    static func checkAnswered(_ id: PresentID, in state: GiftList) throws
}

extension PresentIDCommand {
    static var prompts: [ArgumentPrompt<Self>] { [idPrompt] }

    /// "Present id", checked on a terminal as it is typed: an id the list does not hold
    /// (or, for `restore`, no removed present has) is said and asked again.
    static var idPrompt: ArgumentPrompt<Self> {
        ArgumentPrompt(\.id, "Present id", check: { text, state in try checkAnswered(PresentID.parse(text.trimmedWhitespace()), in: state) })
    }

    /// A current present's id: one that was removed, or never used, is refused.
    static func checkAnswered(_ id: PresentID, in state: GiftList) throws {
        guard state[id: id] == nil else { return }
        throw state.removedPresent(id) == nil ? DomainError.unknownPresent(id) : DomainError.presentRemoved(id)
    }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? shell.presentIDs : []
    }

    /// The present id, once the shell completed the command (``Shell/completing(_:)``).
    func presentID() throws -> PresentID {
        try PresentID.parse((id ?? "").trimmedWhitespace())
    }
}

/// Every shell command, in the order `help` lists them.
enum ShellCommands {
    static let all: [any ShellCommand.Type] = [
        SetupCommand.self, LoginCommand.self, SignOutCommand.self, AddCommand.self, ListCommand.self,
        ShowCommand.self, EditCommand.self, MarkCommand.self, RemoveCommand.self, RestoreCommand.self, UndoCommand.self,
        RedoCommand.self, OccasionCommand.self, BudgetCommand.self, UpcomingCommand.self, SummaryCommand.self, GiftsCommand.self,
        PersonCommand.self,
        HistoryCommand.self, ExportCommand.self, ImportCommand.self, PasswdCommand.self, SyncCommand.self,
        WishCommand.self, WishesCommand.self, ClaimCommand.self, UnclaimCommand.self, MembersCommand.self, HouseholdCommand.self,
        HelpCommand.self,
        QuitCommand.self,
    ]

    /// Every name and alias, for completion and help.
    static let names: [String] = all.flatMap { $0.names }

    /// The command name `typed` most likely meant, for "Did you mean 'list'?": one it
    /// starts, else the nearest within two edits (a letter left out, added, changed or two
    /// swapped: `lst`, `lsit`, `histroy`); nil when none is that close.
    static func closestName(to typed: String, among names: [String] = names) -> String? {
        let word = typed.lowercased()
        guard !word.isEmpty else { return nil }
        if let started = names.first(where: { $0.hasPrefix(word) }) { return started }
        let scored = names.map { (name: $0, distance: editDistance(Array(word), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= min(2, word.count - 1) else {
            return nil
        }
        return best.name
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each cost one.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// The command a line's first word names.
    static func named(_ name: String) -> (any ShellCommand.Type)? {
        byName[name]
    }

    /// Each name and alias with its command (made once: a command's names are read from its
    /// configuration, which is not free, and every line looks its command up).
    private static let byName: [String: any ShellCommand.Type] = Dictionary(
        all.flatMap { command in command.names.map { ($0, command) } }, uniquingKeysWith: { first, _ in first })

    /// The words after the command name that are neither options nor an option's value.
    static func positionalWords(_ words: [String], of command: any ShellCommand.Type) -> [String] {
        let valueOptions = command.valueOptions
        var positional: [String] = []
        var skipNext = false
        for word in words.dropFirst() {
            if skipNext {
                skipNext = false
            } else if valueOptions.contains(word) {
                skipNext = true
            } else if !word.hasPrefix("-") {
                positional.append(word)
            }
        }
        return positional
    }
}

/// The command tree as argument-parser sees it, for `help` only: the usage and option
/// lines read the same in the shell and on the command line.
struct ShellCommandTree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "",
        abstract: "GiftKeeper commands.",
        subcommands: ShellCommands.all.map { $0 as any ParsableCommand.Type })
}

/// What a command may use of the shell while it runs.
protocol Shell: AnyObject {
    var service: any ShellService { get }
    var console: Console { get }
    var progress: Progress { get }
    /// On a terminal (prompts, waits shown) rather than a script.
    var isInteractive: Bool { get }

    /// `command` with the arguments its line left out asked for (``ShellCommand/prompts``,
    /// in order): on a terminal prompts that complete as the command line does there, a
    /// wrong answer asked again where the prompt checks it, and, once one was asked, the
    /// optional ones (Enter skips); in a script the next lines. Ctrl-C throws a cancellation.
    func completing<Command: ShellCommand>(_ command: Command) throws -> Command
    /// Sets the exit status of a script or one-shot that has not failed (`upcoming --check`).
    func exitStatus(_ code: Int32)
    /// Asks a yes-or-no `question` on a terminal until it is answered (Enter gives
    /// `defaultAnswer`, shown as `[Y/n]` or `[y/N]`); Ctrl-C throws a cancellation. Never
    /// asked in a script.
    func confirm(_ question: String, defaultAnswer: Bool) throws -> Bool
    /// Reads a password (the terminal with echo off, a password file, or the script's next line).
    func readPassword(_ prompt: String) throws -> SecureBytes
    /// Runs a password check; on a terminal, keys typed meanwhile are hidden and dropped.
    func checking(_ body: () throws -> Void) throws
    /// Forgets the line history (at sign-out).
    func clearHistory()
    /// Ends the session after this command.
    func stop()
    /// Reports an error without ending the command's line of work (the first one sets a
    /// script's exit code).
    func fail(_ message: String, code: Int32)
}

extension Shell {
    /// Throws unless signed in: the signed-out prompt says `login`, a new journal `setup`.
    func requireSignedIn() throws {
        switch service.phase {
        case .signedIn: return
        case .locked: throw ServiceError(.notSignedIn)
        case .noAccount: throw REPLError(.noAccountYet)
        }
    }

    /// The present ids, in the order they were given (p2 before p10).
    var presentIDs: [String] { service.state.presents.keys.map(\.description) }

    /// Recipients A to Z, each once (however it was typed), as first spelled.
    var recipients: [String] { service.state.recipientNames }
}
