import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `add <recipient> <title> [--price …] [--notes …] [--occasion …]`: a new present, status idea.
struct AddCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
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

    static let prompted = ScriptAnswers(arguments: 2)
    static func answers(for line: BoundLine) -> ScriptAnswers { ScriptAnswers(arguments: line.missing("recipient") + line.missing("title")) }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? shell.recipients : []
    }

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let recipient = try shell.value(line.text("recipient"), ask: "Recipient")
        let title = try shell.value(line.text("title"), ask: "Title")
        let price = try line.text("price").map { try Money.parsePrice($0) }
        let events = try shell.service.perform(
            .addPresent(
                recipient: recipient, title: title, notes: line.text("notes") ?? "", price: price,
                occasion: line.text("occasion") ?? ""))
        for event in events {
            if case .presentAdded(let id, let recipient, let title, _, _, _) = event.body {
                shell.console.print("Saved \(id): \"\(title)\" for \(recipient).")
            }
        }
    }
}
