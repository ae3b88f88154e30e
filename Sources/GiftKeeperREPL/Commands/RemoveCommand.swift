import ArgumentParser
import OrderedCollections
import GiftKeeperDomain
import GiftKeeperService

/// `remove <id>`: remove a present (recorded as an event; the history keeps it).
struct RemoveCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a present (the history keeps it).", usage: "remove <id>")

    @Argument(help: "A present id such as p3.") var id: String?

    static let prompted = ScriptAnswers(arguments: 1)
    var answers: ScriptAnswers { ScriptAnswers(arguments: Self.missing(id)) }

    static func completions(for request: CompletionRequest, in shell: Shell) -> [String] {
        request.wordIndex == 1 ? shell.presentIDs : []
    }

    func run(in shell: Shell) throws {
        try shell.requireSignedIn()
        let id = try PresentID.parse(try shell.value(id, ask: "Present id").trimmingWhitespace)
        try shell.service.perform(.removePresent(id: id))
        shell.console.print("Saved \(id): removed (the history keeps it).")
    }
}
