import ArgumentParser

/// The answer lines a REPL command reads after its own line: its prompted arguments first,
/// then its passwords. In a script these are the lines that follow the command.
struct ScriptAnswers: Equatable {
    var arguments = 0
    var passwords = 0

    init(arguments: Int = 0, passwords: Int = 0) {
        self.arguments = arguments
        self.passwords = passwords
    }

    /// Exactly what the parsed `command` asks for: each missing argument, and its passwords.
    init(_ command: any ParsableCommand) {
        switch command {
        case let setup as REPLCommands.Setup:
            self.init(arguments: Self.missing(setup.name), passwords: 2)
        case is REPLCommands.Login:
            self.init(passwords: 1)
        case is REPLCommands.Passwd:
            self.init(passwords: 3)
        case let add as REPLCommands.Add:
            self.init(arguments: Self.missing(add.recipient) + Self.missing(add.title))
        case let show as REPLCommands.Show:
            self.init(arguments: Self.missing(show.id))
        case let edit as REPLCommands.Edit:
            self.init(arguments: Self.missing(edit.id) + (edit.changes.isEmpty ? 1 : 0))
        case let mark as REPLCommands.Mark:
            self.init(arguments: Self.missing(mark.id) + Self.missing(mark.status))
        case let remove as REPLCommands.Remove:
            self.init(arguments: Self.missing(remove.id))
        case let importing as REPLCommands.Import:
            self.init(arguments: Self.missing(importing.file))
        default:
            self.init()
        }
    }

    /// For a line that did not parse (an unknown option, a missing option value): what
    /// the command would have asked for, judged from the words that look like arguments,
    /// so that its answer lines are skipped, not run.
    init(unparsed words: [String]) {
        let given = Self.positionalWords(words).count
        let missing = { (wanted: Int) in max(0, wanted - given) }
        switch words.first {
        case "setup": self.init(arguments: missing(1), passwords: 2)
        case "login": self.init(passwords: 1)
        case "passwd": self.init(passwords: 3)
        case "add", "mark": self.init(arguments: missing(2))
        case "show", "remove", "import": self.init(arguments: missing(1))
        case "edit": self.init(arguments: given == 0 ? 2 : given == 1 ? 1 : 0)
        default: self.init()
        }
    }

    /// A usage message for an account command given words it does not take, which may be
    /// a password typed on the command line: argument-parser's message would repeat them.
    static func secretSafeUsage(_ words: [String]) -> String? {
        switch words.first {
        case "login":
            return "'login' takes no arguments: the password is asked for after it "
                + "(in a script, on the next line), never typed on the command line."
        case "passwd":
            return "'passwd' takes no arguments: the current password and the new one twice are asked for after it "
                + "(in a script, on the next three lines), never typed on the command line."
        case "setup" where positionalWords(words).count > 1:
            return "'setup' takes one name (quote it if it has spaces): the password is asked for after it "
                + "(in a script, on the next lines), never typed on the command line."
        default:
            return nil
        }
    }

    private static func missing(_ argument: String?) -> Int {
        argument == nil ? 1 : 0
    }

    /// Options that take the next word as their value.
    private static let valueOptions: Set<String> = ["--kdf", "--price", "--notes", "--occasion", "--status", "--last"]

    /// The words after the command name that are neither options nor an option's value.
    private static func positionalWords(_ words: [String]) -> [String] {
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
