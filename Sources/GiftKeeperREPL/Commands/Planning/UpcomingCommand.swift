import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `upcoming [--days N] [--check] [--ics FILE]`: dated occasions in the next N days (60),
/// soonest first, each with a table of what is still to buy, to wrap and to give, and what
/// is still to spend; for cron, exit 10 when one is due; for calendars, an iCalendar file.
struct UpcomingCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "upcoming",
        abstract: "Occasions coming up, with what is still to buy and to wrap.",
        usage: "upcoming [--days N] [--check] [--ics FILE] [--json]",
        discussion: "--check exits 10 when an occasion falls in the window and 0 when none does, for cron and systemd timers. "
            + "--ics writes every dated occasion still to come (a yearly one as a yearly event) to FILE (mode 0600) "
            + "for a calendar app, with a reminder a week before; it names no present.")

    /// Exit status of `--check` when an occasion is due.
    static let dueExitCode: Int32 = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("How many days ahead (60 when omitted).", valueName: "N"))
    var days: String?
    @Flag(help: "Exit 10 when an occasion falls in the window, 0 when none does.") var check = false
    @Option(help: ArgumentHelp("Write the dated occasions to this iCalendar file (mode 0600).", valueName: "FILE"))
    var ics: String?
    @Flag(help: "One JSON document (an array of occasions) instead of the text.") var json = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.precedingWords.last == "--days" || request.precedingWords.last == "--ics" ? [] : ["--days", "--check", "--ics"]
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let text = self.days ?? "60"
        guard let days = Int(text.trimmedWhitespace()), days >= 0, days <= 36_600 else { throw REPLError(.invalidDays(text)) }
        let state = shell.service.state
        let today = LocalTime.date(shell.service.now)
        let upcoming = state.upcoming(today: today, days: days)
        // Said last, whatever the output: nothing due is 0, something due 10.
        defer { if check && !upcoming.isEmpty { shell.exitStatus(Self.dueExitCode) } }
        if let ics {
            let path = expandingTilde(ics)
            let entries = state.upcoming(today: today, days: 36_600).map { item in
                CalendarDocument.Entry(
                    occasion: item.occasion, date: item.occasion.isYearly ? item.occasion.date ?? item.date : item.date,
                    description: UpcomingWords.calendar(item, toSpend: shell.amount(Self.toSpend(item))))
            }
            try PrivateFile.write(CalendarDocument.ics(entries, stamp: shell.service.now), to: path)
            shell.console.print(UpcomingWords.wroteCalendar(entries.count, to: path))
            return
        }
        if try StructuredOutput.format(self) == .json {
            let documents = { (presents: [Present]) in JSONValue.array(presents.map { StructuredOutput.present($0, in: shell.service.state) }) }
            shell.console.write(
                JSONWriter.document(
                    .array(
                        upcoming.map { item in
                            .object([
                                ("occasion", .string(item.occasion.name)), ("date", .string(item.date.description)),
                                ("daysAway", .number(Int64(item.daysAway))), ("yearly", .bool(item.occasion.isYearly)),
                                ("toBuy", documents(item.toBuy)), ("toWrap", documents(item.toWrap)),
                                ("ready", documents(item.ready)),
                                ("toSpend", .string(Self.toSpend(item).description)),
                                ("budget", Self.budget(of: item, in: state).map(BudgetCommand.document) ?? .null),
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
        // Indented under the occasion's line; titles give way first on a narrow terminal.
        let table = TableRenderer(
            columns: [
                .init("ID"), .init("RECIPIENT", shrinks: true), .init("TITLE", shrinks: true),
                .init(state.currency.map { "PRICE \($0)" } ?? "PRICE", alignment: .right), .init("TO DO"),
            ], maxWidth: TerminalSession.outputColumns.map { $0 - 2 })
        for item in upcoming {
            lines.append("\(TerminalText.sanitized(item.occasion.name)): \(item.date), \(Countdown.words(item.daysAway))")
            let rows = [(item.toBuy, "buy"), (item.toWrap, "wrap"), (item.ready, "give")].flatMap { presents, task in
                presents.map { [$0.id.description, $0.recipient, $0.title, $0.price?.description ?? "-", task] }
            }
            guard !rows.isEmpty else {
                lines.append("  nothing planned yet")
                continue
            }
            lines += table.render(rows).split(separator: "\n").map { "  " + $0 }
            lines.append("  " + UpcomingWords.tally(item, toSpend: shell.amount(Self.toSpend(item))))
            if let standing = Self.budget(of: item, in: state) {
                lines.append("  " + BudgetWords.overall(standing, amount: shell.amount))
            }
        }
        shell.console.print(lines.joined(separator: "\n"))
    }

    /// How the occasion's own budget stands for the year it falls in next (or its budget for
    /// every year); nil when it has none.
    static func budget(of item: UpcomingOccasion, in state: GiftList) -> BudgetStanding? {
        let key = BudgetScope.Key(recipient: "", occasion: item.occasion.key, year: item.date.year)
        var everyYear = key
        everyYear.year = nil
        return (state.budgets[key] ?? state.budgets[everyYear]).map(state.standing)
    }

    /// The prices of what is still to buy for `item`.
    static func toSpend(_ item: UpcomingOccasion) -> MoneyTotal {
        var total = MoneyTotal()
        for present in item.toBuy { if let price = present.price { total.add(price) } }
        return total
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
                    .array(gifts.map { StructuredOutput.present($0, in: state, isRemoved: state.presents[$0.id] == nil) })))
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
