import ArgumentParser

/// The REPL's command tree. Each line a user types is split like a shell would split it
/// and parsed by swift-argument-parser against these commands, so usage errors and help
/// read the same in the REPL and on the command line.
///
/// Arguments a command needs but did not get are optional here: the session asks for them
/// (on a terminal, with a prompt; in a script, from the next line).
struct REPLCommands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "",
        abstract: "GiftKeeper commands.",
        subcommands: [
            Setup.self, Login.self, SignOut.self, Add.self, List.self, Show.self, Edit.self, Mark.self,
            Remove.self, History.self, Export.self, Import.self, Passwd.self, Help.self, Quit.self,
        ])

    /// Every command name and alias, for completion and help.
    static var commandNames: [String] {
        configuration.subcommands.flatMap { command in
            [command._commandName] + command.configuration.aliases
        }
    }

    enum KDFCost: String, ExpressibleByArgument, CaseIterable {
        case interactive, moderate, sensitive
    }

    struct Setup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the journal's account (asks for a password twice).",
            usage: "setup <name> [--kdf interactive|moderate|sensitive]")
        @Argument(help: "Your name (encrypted in the journal).") var name: String?
        @Option(help: "Password-hashing cost: interactive (~0.1 s), moderate (~0.7 s, default), sensitive (several seconds).")
        var kdf: KDFCost = .moderate
    }

    struct Login: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unlock the journal (asks for the password).", usage: "login")
    }

    struct SignOut: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signout", abstract: "Lock the journal and wipe every key from memory.",
            usage: "signout", discussion: "'logout' does the same.", aliases: ["logout"])
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a present (status 'idea').",
            usage: "add <recipient> <title> [--price 25.00] [--notes TEXT] [--occasion TEXT]")
        @Argument(help: "Who the present is for.") var recipient: String?
        @Argument(help: "What it is.") var title: String?
        // Unconditional, so `--price -5` reaches the price check ("it is negative") and
        // `--notes "-- fragile"` is a note, instead of being taken for options.
        @Option(parsing: .unconditional, help: "Price, a non-negative decimal such as 25 or 25.00.")
        var price: String?
        @Option(parsing: .unconditional, help: "Free-form notes.") var notes: String?
        @Option(parsing: .unconditional, help: "The occasion, e.g. Christmas.") var occasion: String?
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List presents: id, recipient, title, price, status.",
            usage: "list [recipient] [--status idea|bought|wrapped|given]")
        @Argument(help: "Only this recipient's presents.") var recipient: String?
        @Option(help: "Only presents with this status.") var status: String?
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every field of a present.", usage: "show <id>")
        @Argument(help: "A present id such as p3.") var id: String?
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a present: title, recipient, notes, price, occasion.",
            usage: "edit <id> <field>=<value> ...")
        @Argument(help: "A present id such as p3.") var id: String?
        @Argument(help: ArgumentHelp("Changes such as title=\"Red scarf\" price=30 (price= clears the price).", valueName: "field=value"))
        var changes: [String] = []
    }

    struct Mark: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a present's status: idea, bought, wrapped, given.",
            usage: "mark <id> idea|bought|wrapped|given")
        @Argument(help: "A present id such as p3.") var id: String?
        @Argument(help: "idea, bought, wrapped or given.") var status: String?
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a present (the history keeps it).", usage: "remove <id>")
        @Argument(help: "A present id such as p3.") var id: String?
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The audit trail: sequence number, time, event, summary.", usage: "history [--last N]")
        // Unconditional: '--last -1' reaches the "1 or more" check instead of "missing value".
        @Option(parsing: .unconditional, help: ArgumentHelp("Only the last N entries.", valueName: "N")) var last: Int?
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The decrypted list as JSON, to FILE (mode 0600) or screen.",
            usage: "export [FILE] [--force]",
            discussion: "The document is giftkeeper.export.v1 (docs/export-format.md). An existing FILE is replaced only with --force.")
        @Argument(help: "Where to write; the screen when omitted.") var file: String?
        @Flag(help: "Replace FILE if it exists.") var force = false
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore an export document's presents, ids and all.",
            usage: "import FILE",
            discussion: "For a journal that has none of those ids, e.g. a new one. The document is checked whole first: nothing is added if any of it is wrong.")
        @Argument(help: "A giftkeeper.export.v1 JSON file.") var file: String?
    }

    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the password (current one, then the new one twice).", usage: "passwd")
    }

    struct Help: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the commands, or how to use one.", usage: "help [command]")
        @Argument(help: "A command name.") var command: String?
    }

    struct Quit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign out and leave (also Ctrl-D).", usage: "quit",
            discussion: "'exit' does the same.", aliases: ["exit"])
    }
}
