import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `upcoming [--days N]`: dated occasions in the next N days (60), soonest first, with what
/// is still to buy and to wrap.
struct UpcomingCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "upcoming",
        abstract: "Occasions coming up, with what is still to buy and to wrap.",
        usage: "upcoming [--days N] [--json]")

    @Option(parsing: .unconditional, help: ArgumentHelp("How many days ahead (60 when omitted).", valueName: "N"))
    var days: String?
    @Flag(help: "One JSON document (an array of occasions) instead of the text.") var json = false

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let text = self.days ?? "60"
        guard let days = Int(text.trimmedWhitespace()), days >= 0, days <= 36_600 else { throw REPLError(.invalidDays(text)) }
        let state = shell.service.state
        let today = LocalTime.date(shell.service.now)
        let upcoming = state.upcoming(today: today, days: days)
        if try StructuredOutput.format(self) == .json {
            let ids = { (presents: [Present]) in JSONValue.array(presents.map { .string($0.id.description) }) }
            shell.console.write(
                JSONWriter.document(
                    .array(
                        upcoming.map { item in
                            .object([
                                ("occasion", .string(item.occasion.name)), ("date", .string(item.date.description)),
                                ("daysAway", .number(Int64(item.daysAway))), ("yearly", .bool(item.occasion.isYearly)),
                                ("toBuy", ids(item.toBuy)), ("toWrap", ids(item.toWrap)), ("ready", ids(item.ready)),
                            ])
                        })))
            return
        }
        guard !upcoming.isEmpty else {
            let dated = state.occasions.values.contains { $0.date != nil }
            shell.console.print(
                dated
                    ? "Nothing in the next \(days) days. ('upcoming --days 365' looks further.)"
                    : "No dated occasions yet. Add one with: occasion add \"Christmas 2026\" --date 2026-12-24")
            return
        }
        var lines: [String] = []
        for item in upcoming {
            lines.append("\(TerminalText.sanitized(item.occasion.name)): \(item.date), \(Countdown.words(item.daysAway))")
            if item.toBuy.isEmpty && item.toWrap.isEmpty && item.ready.isEmpty {
                lines.append("  nothing planned yet")
            }
            if !item.toBuy.isEmpty { lines.append("  to buy (\(item.toBuy.count)): " + Self.describe(item.toBuy, shell)) }
            if !item.toWrap.isEmpty { lines.append("  to wrap (\(item.toWrap.count)): " + Self.describe(item.toWrap, shell)) }
            if !item.ready.isEmpty { lines.append("  wrapped, ready (\(item.ready.count)): " + Self.describe(item.ready, shell)) }
        }
        shell.console.print(lines.joined(separator: "\n"))
    }

    /// `p1 Blue scarf for Mum, p4 Kite for Sam`, each cut to fit.
    private static func describe(_ presents: [Present], _ shell: any Shell) -> String {
        presents.map { present in
            let title = TerminalText.truncated(TerminalText.sanitized(present.title), toWidth: 30)
            let recipient = TerminalText.truncated(TerminalText.sanitized(present.recipient), toWidth: 20)
            return "\(present.id) \(title) for \(recipient)"
        }.joined(separator: ", ")
    }
}

/// `gifts <recipient>`: everything ever given to one person, by year and occasion.
struct GiftsCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "gifts", abstract: "Everything given to one person, by year and occasion.",
        usage: "gifts <recipient> [--json]")

    @Argument(help: "Who (case and accents ignored).") var recipient: String?
    @Flag(help: "One JSON document (the presents given, oldest first) instead of the text.") var json = false

    static var prompts: [ArgumentPrompt<Self>] { [ArgumentPrompt(\.recipient, "Recipient")] }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? shell.recipients : []
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let recipient = self.recipient ?? ""
        let state = shell.service.state
        let gifts = state.gifts(for: recipient)
        if try StructuredOutput.format(self) == .json {
            shell.console.write(
                JSONWriter.document(
                    .array(gifts.map { StructuredOutput.present($0, isRemoved: state.presents[$0.id] == nil) })))
            return
        }
        let name = TerminalText.sanitized(state.recipientSpelling(recipient.trimmedWhitespace()))
        guard !gifts.isEmpty else {
            shell.console.print("Nothing given to \(name) yet. ('mark <id> given' records a present as given.)")
            return
        }
        var lines: [String] = []
        var year: Int?
        var occasion: String?
        for present in gifts {
            let given = present.givenAt.map(LocalTime.date) ?? LocalTime.date(present.updatedAt)
            if given.year != year {
                year = given.year
                occasion = nil
                lines.append("\(given.year)")
            }
            let occasionName = present.occasion.isEmpty ? "(no occasion)" : TerminalText.sanitized(present.occasion)
            if occasionName != occasion {
                occasion = occasionName
                lines.append("  \(occasionName)")
            }
            let price = present.price.map { ", \(shell.amount($0))" } ?? ""
            let removed = state.presents[present.id] == nil ? ", removed" : ""
            lines.append("    \(present.id) \(TerminalText.sanitized(present.title)) (given \(given)\(price)\(removed))")
        }
        lines.append("\(gifts.count) present\(gifts.count == 1 ? "" : "s") given to \(name).")
        shell.console.print(lines.joined(separator: "\n"))
    }
}
