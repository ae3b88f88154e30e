import ArgumentParser

/// The shell commands that also run one-shot from the command line (SPEC §11): every one
/// that reads or changes the list, from the same declarations as in the shell.
/// `giftkeeper list --status idea` signs in, runs `list --status idea`, and signs out.
public enum OneShot {
    /// The commands, in the shell's order. Not the account commands (setup, login, signout,
    /// passwd), nor `undo` (a new session has nothing to undo), `help` or `quit`; `export`,
    /// `import` and `sync` (which signs in only when it must merge) have subcommands of their own.
    static let commands: [any ShellCommand.Type] = [
        AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, MarkCommand.self, RemoveCommand.self,
        RestoreCommand.self, OccasionCommand.self, BudgetCommand.self, UpcomingCommand.self, SummaryCommand.self,
        GiftsCommand.self, HistoryCommand.self,
    ]

    /// Their names (not aliases), for the command line's help.
    public static var names: [String] { commands.map { $0._commandName } }

    /// The one-shot command `name` (or an alias) names.
    private static func command(named name: String) -> (any ShellCommand.Type)? {
        commands.first { $0.names.contains(name) }
    }

    /// The command's one-line description, as `help` shows it.
    public static func abstract(for name: String) -> String {
        command(named: name)?.configuration.abstract ?? ""
    }

    /// Whether `name` (or an alias) is a one-shot command.
    public static func isCommand(_ name: String) -> Bool {
        command(named: name) != nil
    }

    /// The command's help, as `help NAME` shows it in the shell, and how to run it one-shot.
    public static func helpMessage(for name: String) -> String? {
        guard let type = command(named: name) else { return nil }
        return ShellCommandTree.helpMessage(for: type) + """


            ONE-SHOT:
              giftkeeper \(type._commandName) [--journal <path>] [--password-file <file>] ...
              Signs in (the password from --password-file, the terminal, or the first line of
              standard input), runs the command, and signs out. Results go to standard output;
              notifications and errors to standard error.
            """
    }

    /// A known command name (shell or subcommand) `typed` most likely meant, for "Did you mean".
    public static func closestName(to typed: String, among extra: [String]) -> String? {
        ShellCommands.closestName(to: typed, among: ShellCommands.names + extra)
    }
}
