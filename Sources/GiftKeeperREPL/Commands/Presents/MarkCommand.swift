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
    @Argument(help: "idea, bought, wrapped or given.", completion: .list(PresentStatus.allCases.map(\.rawValue)))
    var status: String?

    static var prompts: [ArgumentPrompt<Self>] {
        [
            idPrompt,
            ArgumentPrompt(
                \.status, "Status (idea, bought, wrapped, given)", after: [\.id], check: { text, _ in _ = try PresentStatus(parsing: text) }),
        ]
    }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.wordIndex {
        case 1: shell.presentIDs
        case 2: PresentStatus.allCases.map(\.rawValue)
        default: []
        }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        let status = try PresentStatus(parsing: self.status ?? "")
        let events = try shell.service.perform(.markPresent(id: id, status: status)).events
        shell.console.print(events.isEmpty ? "\(id) is already \(status)." : "Saved \(id): marked \(status).")
    }
}
