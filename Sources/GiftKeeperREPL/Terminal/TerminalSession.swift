import Glibc

/// What the process is attached to, and the editors that fit it.
public enum TerminalSession {
    /// Standard input is a terminal (`isatty(0)`): interactive mode with readline.
    public static var isStandardInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Standard output is a terminal (`isatty(1)`).
    public static var isStandardOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The width of the terminal standard output is on, or nil when it is not one (a pipe
    /// or a file gets every line whole).
    public static var outputColumns: Int? {
        guard isStandardOutputTerminal else { return nil }
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The REPL's input: readline on a terminal, or script lines from standard input.
    /// In script mode, the same ``ScriptLineEditor`` is also the password source (answers
    /// are read from the next line, through the same buffer).
    public static func makeREPLInput() -> (editor: any LineEditor, passwords: any PasswordSource) {
        if isStandardInputTerminal {
            return (ReadlineLineEditor(), TerminalPasswordSource())
        }
        let script = ScriptLineEditor(fileDescriptor: STDIN_FILENO)
        return (script, script)
    }

    /// The password source for a one-shot subcommand (`audit`, `export`, `import`):
    /// `--password-file` if given, else the terminal if standard input is one, else the
    /// first line of standard input.
    /// - Throws: ``PasswordInputError`` from ``PasswordFile/open(_:)``.
    public static func makePasswordSource(passwordFile: String?) throws -> any PasswordSource {
        if let passwordFile {
            return try PasswordFile.open(passwordFile)
        }
        if isStandardInputTerminal {
            return TerminalPasswordSource()
        }
        return FileDescriptorPasswordSource(fileDescriptor: STDIN_FILENO)
    }
}
