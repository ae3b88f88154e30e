import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `show <id>`: every field of one present, removed ones included.
struct ShowCommand: PresentIDCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a present.", usage: "show <id>")

    @Argument(help: "A present id such as p3.") var id: String?

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let id = try presentID(line, in: shell)
        guard let (present, isRemoved) = shell.service.state.present(id) else {
            throw DomainError.unknownPresent(id)
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
                ["price", present.price?.description ?? "-"],
                ["status", present.status.rawValue],
                ["occasion", present.occasion.isEmpty ? "-" : present.occasion],
            ] + noteLines.enumerated().map { [$0.offset == 0 ? "notes" : "", $0.element] } + [
                ["created", present.createdAt.iso8601],
                ["updated", present.updatedAt.iso8601],
            ]
        shell.console.print(
            TableRenderer(columns: [.init(""), .init("")], showsRule: false).renderLines(rows).dropFirst()
                .joined(separator: "\n"))
    }
}
