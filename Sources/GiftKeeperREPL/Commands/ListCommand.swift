import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `list [recipient] [--status S]`: the presents as a table, with a totals line.
struct ListCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List presents: id, recipient, title, price, status.",
        usage: "list [recipient] [--status idea|bought|wrapped|given]")

    @Argument(help: "Only this recipient's presents.") var recipient: String?
    @Option(help: "Only presents with this status.") var status: String?

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.precedingWords.last == "--status" { return PresentStatus.allCases.map(\.rawValue) }
        return request.wordIndex == 1 ? shell.recipients : []
    }

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let state = shell.service.state
        let status = try line.text("status").map { try PresentStatus(parsing: $0) }
        let wanted = line.text("recipient").map { $0.trimmedWhitespace().lowercased() }
        let presents = state.presents.values.filter { present in
            (wanted == nil || present.recipient.lowercased() == wanted)
                && (status == nil || present.status == status)
        }
        guard !presents.isEmpty else {
            shell.console.print(
                state.presents.isEmpty ? "No presents yet. Add one with: add <recipient> <title> [--price 25]" : "No presents match.")
            return
        }
        // On a terminal, long titles (then recipients) are cut with … so rows never wrap;
        // `show` has every field whole.
        let table = TableRenderer(
            columns: [
                .init("ID"), .init("RECIPIENT", shrinks: true), .init("TITLE", shrinks: true),
                .init("PRICE", alignment: .right), .init("STATUS"),
            ], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                presents.map { present in
                    [
                        present.id.description, present.recipient, present.title, present.price?.description ?? "-",
                        present.status.rawValue,
                    ]
                }))
        let totals = PresentTotals(presents)
        // The totals line: how many, what they cost, and how far along they are.
        let stages = PresentStatus.allCases.compactMap { status -> String? in
            let count = totals.countsByStatus[status, default: 0]
            return count == 0 ? nil : "\(count) \(status)"
        }
        shell.console.print(
            "\(totals.count) present\(totals.count == 1 ? "" : "s"), total \(totals.total) (\(stages.joined(separator: ", ")))")
    }
}
