import ArgumentParser
import GiftKeeperService

/// `import FILE`: append the events that recreate an export document's presents.
struct ImportCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore an export document's presents, ids and all.",
        usage: "import FILE",
        discussion:
            "For a journal that has none of those ids, e.g. a new one. The document is checked whole first: nothing is added if any of it is wrong.")

    @Argument(help: "A giftkeeper.export.v2 (or v1) JSON file.") var file: String?

    static var prompts: [ArgumentPrompt<Self>] { [ArgumentPrompt(\.file, "File to import")] }
    /// `giftkeeper import` is a subcommand of its own.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let path = expandingTilde(file ?? "")
        let bytes = try PrivateFile.read(path)
        let summary = try shell.service.importDocument(bytes)
        shell.console.print(summary.sentence)
    }
}
