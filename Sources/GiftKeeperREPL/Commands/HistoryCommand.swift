import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService

/// `history [--last N]`: the trail, one row per frame.
struct HistoryCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The audit trail: sequence number, time, event, summary.", usage: "history [--last N]")

    // Unconditional: '--last -1' reaches the "1 or more" check instead of "missing value".
    @Option(parsing: .unconditional, help: ArgumentHelp("Only the last N entries.", valueName: "N")) var last: Int?

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let last = line.text("last").flatMap { Int($0) }
        if let last, last < 1 {
            throw REPLError(.invalidCount(last))
        }
        var records = try shell.service.history()
        shell.progress.clear()  // the replay's progress line, if it was long enough to show one
        if let last, records.count > last {
            records = Array(records.suffix(last))
        }
        let table = TableRenderer(
            columns: [
                .init("SEQ", alignment: .right), .init("TIME (UTC)"), .init("EVENT"), .init("SUMMARY", shrinks: true),
            ], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                records.map { record in
                    [
                        String(record.sequence), record.at.map(Self.shortTime) ?? "-", record.type,
                        record.summary + (record.isReported ? " (reported)" : ""),
                    ]
                }))
    }

    /// `2026-11-22 14:03:07` from `2026-11-22T14:03:07.123Z`.
    static func shortTime(_ time: Timestamp) -> String {
        let text = time.iso8601
        guard text.count == 24 else { return text }
        return String(text.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }
}
