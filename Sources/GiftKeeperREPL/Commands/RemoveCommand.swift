import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `remove <id>`: remove a present (recorded as an event; the history keeps it).
struct RemoveCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a present (the history keeps it).", usage: "remove <id>")

    @Argument(help: "A present id such as p3.") var id: String?

    static let prompted = ScriptAnswers(arguments: 1)
    static func answers(for line: BoundLine) -> ScriptAnswers { ScriptAnswers(arguments: line.missing("id")) }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? shell.presentIDs : []
    }

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let id = try PresentID.parse(try shell.value(line.text("id"), ask: "Present id").trimmedWhitespace())
        try shell.service.perform(.removePresent(id: id))
        shell.console.print("Saved \(id): removed (the history keeps it).")
    }
}
