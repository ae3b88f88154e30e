import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import Glibc
import OrderedCollections

/// `summary [--occasion NAME] [--year YYYY] [--as-of DATE]`: per recipient the count,
/// planned, spent and budget, with a bar chart.
struct SummaryCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Per recipient: presents, planned, spent, budget, and a bar chart.",
        usage: "summary [--occasion NAME] [--year YYYY] [--as-of DATE] [--json]",
        discussion: "In the chart, full blocks are spent and light ones planned (# and - when the terminal is not UTF-8). "
            + "It speaks of one year, this one unless --year says another (--year all: every year). "
            + "A present's year is the year it was given, else its occasion's (a yearly one's next date when it was added), "
            + "else the year it was added.")

    @Option(help: "Only presents for this occasion.") var occasion: String?
    @Option(help: ArgumentHelp("The presents of this year (this year when omitted; all: every year).", valueName: "YYYY"))
    var year: String?
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("As it stood then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?
    @Flag(help: "One JSON document (a row per recipient) instead of the table and chart.") var json = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.precedingWords.last {
        case "--occasion": return shell.occasionNames
        case "--year": return ["all"]
        case "--as-of": return []
        default: return ["--occasion", "--year", "--as-of"]
        }
    }

    /// The chart's width in cells.
    static let barWidth = 20

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let named = try self.year.map { text -> Int? in
            if text.trimmedWhitespace().lowercased() == "all" { return nil }
            guard let year = Int(text.trimmedWhitespace()), (1...9999).contains(year) else { throw REPLError(.invalidYear(text)) }
            return year
        }
        let state = try shell.state(asOf: asOf)
        // This year, or the year of the --as-of time.
        let then = try asOf.map { try LocalTime.parseAsOf($0, now: shell.service.now) } ?? shell.service.now
        let year = named ?? LocalTime.date(then).year
        let rows = state.summary(occasion: occasion, year: year, day: LocalTime.date)
        // The budgets not for one person: the whole list's, and the occasions' (only the one
        // asked for, with --occasion).
        let overall = state.budgetStandings.filter { standing in
            guard standing.budget.scope.recipient == nil else { return false }
            if let budgetYear = standing.budget.scope.year, budgetYear != year { return false }
            guard let occasion else { return true }
            return standing.budget.scope.occasion.map { state.foldedName($0) == state.foldedName(occasion) } ?? false
        }
        if try StructuredOutput.format(self) == .json {
            shell.console.write(
                JSONWriter.document(
                    .object([
                        ("currency", .text(state.currency)),
                        ("year", year.map { .number(Int64($0)) } ?? .null),
                        (
                            "recipients",
                            .array(
                                rows.map { row in
                                    .object([
                                        ("recipient", .string(row.recipient)), ("presents", .number(Int64(row.count))),
                                        ("planned", .string(row.planned.description)), ("spent", .string(row.spent.description)),
                                        ("budget", .text(row.budget?.description)),
                                    ])
                                })
                        ),
                        ("budgets", .array(overall.map(BudgetCommand.document))),
                    ])))
            return
        }
        guard !rows.isEmpty else {
            shell.console.print("No presents match.")
            for standing in overall { shell.console.print(BudgetWords.overall(standing, amount: shell.amount)) }
            return
        }
        let largest = rows.map { ($0.planned + $0.spent).minorUnits }.max() ?? 0
        let blocks = Self.usesUnicodeBlocks ? ("█", "░") : ("#", "-")
        let table = TableRenderer(
            columns: [
                .init("RECIPIENT", shrinks: true), .init("PRESENTS", alignment: .right), .init("PLANNED", alignment: .right),
                .init("SPENT", alignment: .right), .init("BUDGET", alignment: .right), .init("CHART"),
            ], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                rows.map { row in
                    let total = (row.planned + row.spent).minorUnits
                    let cells = Self.cellsFor(total, of: largest)
                    let spentCells = min(cells, Self.cellsFor(row.spent.minorUnits, of: largest))
                    var budget = row.budget?.description ?? "-"
                    if let amount = row.budget, MoneyTotal(amount) < row.planned + row.spent { budget += " OVER" }
                    return [
                        row.recipient, String(row.count), row.planned.description, row.spent.description, budget,
                        String(repeating: blocks.0, count: spentCells) + String(repeating: blocks.1, count: cells - spentCells),
                    ]
                }))
        var planned = MoneyTotal()
        var spent = MoneyTotal()
        for row in rows {
            planned = planned + row.planned
            spent = spent + row.spent
        }
        let count = rows.reduce(0) { $0 + $1.count }
        shell.console.print(
            "\(count) present\(count == 1 ? "" : "s") for \(rows.count) \(rows.count == 1 ? "person" : "people")"
                + (year.map { " in \($0)" } ?? "") + ": "
                + "planned \(shell.amount(planned)), spent \(shell.amount(spent)).")
        for standing in overall { shell.console.print(BudgetWords.overall(standing, amount: shell.amount)) }
    }

    /// Cells of the bar for `value` when `largest` fills it; at least one for anything above zero.
    static func cellsFor(_ value: Int128, of largest: Int128) -> Int {
        guard value > 0, largest > 0 else { return 0 }
        return max(1, Int((value * Int128(barWidth) + largest / 2) / largest))
    }

    /// Whether the terminal's character set is UTF-8 (LC_ALL, LC_CTYPE, LANG, the first set).
    static var usesUnicodeBlocks: Bool {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { continue }
            let lowered = value.lowercased()
            return lowered.contains("utf-8") || lowered.contains("utf8")
        }
        return false
    }
}
