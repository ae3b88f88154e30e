import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `mark <id> <status>`: move a present through idea, bought, wrapped, given.
struct MarkCommand: PresentIDCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Set a present's status: idea, bought, wrapped, given.",
        usage: "mark <id> idea|bought|wrapped|given")

    @Argument(help: "A present id such as p3.") var id: String?
    @Argument(help: "idea, bought, wrapped or given.") var status: String?

    static let prompted = ScriptAnswers(arguments: 2)
    static func answers(for line: BoundLine) -> ScriptAnswers { ScriptAnswers(arguments: line.missing("id") + line.missing("status")) }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.wordIndex {
        case 1: shell.presentIDs
        case 2: PresentStatus.allCases.map(\.rawValue)
        default: []
        }
    }

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let id = try presentID(line, in: shell)
        let status = try PresentStatus(parsing: try shell.value(line.text("status"), ask: "Status (idea, bought, wrapped, given)"))
        let events = try shell.service.perform(.markPresent(id: id, status: status))
        shell.console.print(events.isEmpty ? "\(id) is already \(status)." : "Saved \(id): marked \(status).")
    }
}
