import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import Glibc
import OrderedCollections

/// `export [FILE] [--force]`: the decrypted list as JSON, to a file (0600) or the screen.
struct ExportCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "The decrypted list as JSON, to FILE (mode 0600) or screen.",
        usage: "export [FILE | --output FILE] [--force] [--as-of DATE]",
        discussion: "The document is giftkeeper.export.v2 (docs/export-format.md). An existing FILE is replaced only with --force. "
            + "FILE and --output FILE are the same, as on the command line; - is the screen.")

    @Argument(help: "Where to write; the screen when omitted.") var file: String?
    @Option(help: ArgumentHelp("Where to write (the same as FILE).", valueName: "FILE")) var output: String?
    @Flag(help: "Replace FILE if it exists.") var force = false
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("The list as it was then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?

    /// `giftkeeper export` is a subcommand of its own.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let service = shell.service
        // The state to export: today's, or the one `--as-of` names.
        let asOf = try shell.state(asOf: self.asOf)
        let count = asOf.presents.count
        let force = self.force
        let target = try exportDestination(file: file, output: output)
        if let path = target.map(expandingTilde) {
            try PrivateFile.checkWritable(path, replacing: force)
            var file = PrivateFile.Writer(path: path, replacing: force)
            try service.export(to: &file, asOf: asOf)
            shell.console.print(PrivateFile.exportedSentence(presents: count, to: file))
        } else {
            var output = shell.console
            try service.export(to: &output, asOf: asOf)
        }
    }
}

/// Where `export` writes: FILE or `--output FILE` (one of them), nil for the screen (`-` too).
/// Shared by the shell and the command line, which spell it either way.
public func exportDestination(file: String?, output: String?) throws -> String? {
    if let file, let output, file != output {
        throw REPLError(.unexpectedWords(command: "export", words: [file, "--output", output]))
    }
    guard let path = file ?? output else { return nil }
    if path.isEmpty { throw REPLError(.emptyOutput) }
    return path == "-" ? nil : path
}

/// `~/gifts.json` as the shell would read it (the REPL's words are not shell words).
func expandingTilde(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty
    else { return path }
    return home + path.dropFirst()
}
