import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `show <id>`: every field of one present, removed ones included.
struct ShowCommand: PresentIDCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a present.", usage: "show <id> [--as-of DATE] [--json]")

    @Argument(help: "A present id such as p3.") var id: String?
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("The present as it was then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?
    @Flag(help: "One JSON document (the present) instead of the table.") var json = false

    /// Any id the list ever used: a removed present is shown too (as it is now: an
    /// `--as-of` state may not hold it yet, which the command says).
    static func checkAnswered(_ id: PresentID, in state: GiftList) throws {
        if state.present(id) == nil { throw DomainError.unknownPresent(id) }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        let state = try shell.state(asOf: asOf)
        guard let (present, isRemoved) = state.present(id) else {
            throw DomainError.unknownPresent(id)
        }
        if try StructuredOutput.format(self) == .json {
            shell.console.write(JSONWriter.document(StructuredOutput.present(present, in: state, isRemoved: isRemoved)))
            return
        }
        // Notes may hold several lines (an import): each on its own row, tabs as spaces.
        let noteLines =
            present.notes.isEmpty
            ? ["-"]
            : present.notes.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.map { $0 == "\t" ? "    " : String($0) }.joined() }
        let rows: [[String]] =
            [
                ["id", present.id.description + (isRemoved ? " (removed)" : "")],
                ["recipient", present.recipient],
                ["title", present.title],
                ["price", present.price.map { shell.amount($0) } ?? "-"],
                ["status", present.status.rawValue + (present.givenAt.map { " (given \(LocalTime.dateAndMinute($0)))" } ?? "")],
                ["occasion", Self.occasionText(present.occasion, in: state)],
                ["url", present.url.isEmpty ? "-" : present.url],
                ["store", present.store.isEmpty ? "-" : present.store],
            ] + (state.givers[present.id].map { [["givers", $0.joined(separator: ", ")]] } ?? [])
            + noteLines.enumerated().map { [$0.offset == 0 ? "notes" : "", $0.element] } + [
                ["created", LocalTime.dateAndMinute(present.createdAt)],
                ["updated", LocalTime.dateAndMinute(present.updatedAt)],
            ]
        shell.console.print(
            TableRenderer(columns: [.init(""), .init("")], showsRule: false).renderLines(rows).dropFirst()
                .joined(separator: "\n"))
    }

    /// `Christmas 2026 (2026-12-24)`, `Mum's birthday (1961-03-14, yearly)`, or `-`.
    static func occasionText(_ name: String, in state: GiftList) -> String {
        guard !name.isEmpty else { return "-" }
        guard let occasion = state.occasion(named: name), let date = occasion.date else { return name }
        return "\(name) (\(date)\(occasion.isYearly ? ", yearly" : ""))"
    }
}
