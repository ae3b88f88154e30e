import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `history [<id>] [--last N]`: the trail in words, local times; with an id, one present's life.
struct HistoryCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "What happened, in words, with local times; with an id, one present's life.",
        usage: "history [<id>] [--last N] [--json]",
        discussion: "'giftkeeper audit' shows the same journal frame by frame, for machines.")

    @Argument(help: "A present id such as p3: only its history.") var id: String?
    // Unconditional: '--last -1' reaches the "1 or more" check instead of "missing value".
    @Option(parsing: .unconditional, help: ArgumentHelp("Only the last N entries.", valueName: "N")) var last: Int?
    @Flag(help: "One JSON document (an array of entries) instead of the table.") var json = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 && request.precedingWords.last != "--last"
            ? shell.presentIDs + shell.service.state.removedPresents.keys.map(\.description) : []
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        if let last, last < 1 {
            throw REPLError(.invalidCount(last))
        }
        let id = try self.id.map { try PresentID.parse($0.trimmedWhitespace()) }
        if let id, shell.service.state.present(id) == nil { throw DomainError.unknownPresent(id) }
        var entries = try shell.service.historyEntries(of: id)
        shell.progress.clear()  // the replay's progress line, if it was long enough to show one
        if let last, entries.count > last {
            entries = Array(entries.suffix(last))
        }
        if try StructuredOutput.format(self) == .json {
            shell.console.write(
                JSONWriter.document(
                    .array(
                        entries.map { entry in
                            .object([
                                ("seq", .number(Int64(entry.sequence))),
                                ("time", .text(entry.event?.at.iso8601)),
                                ("event", .string(entry.event?.typeName ?? "keyWrap")),
                                ("present", .text(entry.event?.body.presentID?.description)),
                                ("what", .string(HistoryWords.sentence(entry))),
                                ("reported", .bool(entry.isReported)),
                            ])
                        })))
            return
        }
        let table = TableRenderer(
            columns: [.init("WHEN"), .init("WHAT", shrinks: true)], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                entries.map { entry in
                    [entry.event.map { LocalTime.dateAndMinute($0.at) } ?? "-", HistoryWords.sentence(entry)]
                }))
    }
}
