public import ArgumentParser

/// The shell commands that also run one-shot from the command line (SPEC §11): every one
/// that reads or changes the list, from the same declarations as in the shell.
/// `giftkeeper list --status idea` signs in, runs `list --status idea`, and signs out.
public enum OneShot {
    /// The commands, in the shell's order: those of ``ShellCommands/all`` that run one-shot
    /// (``ShellCommand/runsOneShot``).
    static let shellCommands: [any ShellCommand.Type] = ShellCommands.all.filter { $0.runsOneShot }

    /// The same, as argument-parser commands: the command line's help, man page and
    /// completion scripts list one subcommand for each.
    public static var commands: [any ParsableCommand.Type] { shellCommands }

    /// Their names (not aliases), for the command line's help.
    public static var names: [String] { shellCommands.map { $0._commandName } }

    /// The one-shot command `name` (or an alias) names.
    private static func command(named name: String) -> (any ShellCommand.Type)? {
        shellCommands.first { $0.names.contains(name) }
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
