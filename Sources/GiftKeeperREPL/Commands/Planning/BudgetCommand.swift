import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `budget set <amount> [--for RECIPIENT] [--occasion NAME] [--year YYYY]`, `budget clear
/// [--for …] [--occasion …] [--year …]`, `budget [--as-of DATE]`: budgets and how they stand.
struct BudgetCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "budget",
        abstract: "Budgets per recipient and occasion: set, clear, or show how they stand.",
        usage:
            "budget set <amount> [--for RECIPIENT] [--occasion NAME] [--year YYYY] | budget clear [--for RECIPIENT] [--occasion NAME] [--year YYYY] | budget [--as-of DATE] [--json]",
        discussion: "Planned is the price of ideas; spent, of what is bought, wrapped or given. "
            + "Without --for and --occasion a budget covers the whole list. "
            + "A budget on a yearly occasion, and a recipient's, hold for one year: --year, "
            + "else the year of the occasion's next date, else this year.")

    static let actions = ["set", "clear", "show"]

    @Argument(help: "set, clear or show (show when omitted).") var action: String?
    // Every word no option takes, so that `budget set -5` reaches the amount check ("it is
    // negative") instead of being taken for an option.
    @Argument(parsing: .allUnrecognized, help: "The amount, e.g. 100 or 99.50.") var amount: [String] = []
    @Option(name: .customLong("for"), help: ArgumentHelp("Only this recipient's presents.", valueName: "RECIPIENT"))
    var recipient: String?
    @Option(help: "Only presents for this occasion.") var occasion: String?
    @Option(help: ArgumentHelp("The year it holds for (a yearly occasion's next, or this year, when omitted).", valueName: "YYYY"))
    var year: String?
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("Budgets as they stood then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?
    @Flag(help: "How the budgets stand, as one JSON document.") var json = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.precedingWords.last {
        case "--for": return shell.recipients
        case "--occasion": return shell.occasionNames
        case "--as-of", "--year": return []
        default: return request.wordIndex == 1 ? actions : ["--for", "--occasion", "--year"]
        }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let named = try year.map { text -> Int in
            guard let year = Int(text.trimmedWhitespace()), BudgetScope.years.contains(year) else {
                throw REPLError(.invalidYear(text))
            }
            return year
        }
        let state = shell.service.state
        var scope = BudgetScope(recipient: recipient, occasion: occasion)
        scope.year =
            named
            ?? state.defaultBudgetYear(recipient: recipient, occasion: occasion, today: LocalTime.date(shell.service.now))
        // A budget set before budgets had years is cleared by its own scope when no year is named.
        if named == nil, self.action?.lowercased() == "clear", state.budgets[scope.key] == nil {
            var everyYear = scope
            everyYear.year = nil
            if state.budgets[everyYear.key] != nil { scope = everyYear }
        }
        let action = self.action?.lowercased() ?? "show"
        if action != "set", let extra = amount.first {
            throw REPLError(.unexpectedWords(command: "budget \(action)", words: [extra]))
        }
        if json, action != "show" {
            throw REPLError(.unexpectedWords(command: "budget \(action)", words: ["--json"]))
        }
        switch action {
        case "show":
            try Self.show(shell, asOf: asOf, json: try StructuredOutput.format(self) == .json)
        case "set":
            let words = self.amount
            guard let text = words.first else { throw REPLError(.missingAmount) }
            guard words.count == 1 else { throw REPLError(.unexpectedWords(command: "budget set", words: Array(words.dropFirst()))) }
            let amount = try Money.parsePrice(text)
            let events = try shell.service.perform(.setBudget(Budget(scope: scope, amount: amount))).events
            guard case .budgetSet(let budget) = events.first?.body else {
                shell.console.print("That budget is already \(shell.amount(amount)); nothing changed.")
                return
            }
            let standing = shell.service.state.standing(budget)
            let left =
                standing.isOver
                ? "\(shell.amount(standing.remaining.magnitude)) over" : "\(shell.amount(standing.remaining)) left"
            shell.console.print(
                "Saved budget for \(budget.scope.words): \(shell.amount(budget.amount)), "
                    + "\(left) after \(shell.amount(standing.committed)) planned and spent.")
        case "clear":
            let events = try shell.service.perform(.clearBudget(scope)).events
            if case .budgetCleared(let cleared) = events.first?.body {
                shell.console.print("Cleared the budget for \(cleared.words).")
            }
        case let word:
            throw REPLError(.unknownAction(command: "budget", word: word, actions: Self.actions))
        }
    }

    /// One budget's standing in a JSON document (`budget --json`, `summary --json`).
    static func document(_ standing: BudgetStanding) -> JSONValue {
        .object([
            ("recipient", .text(standing.budget.scope.recipient)),
            ("occasion", .text(standing.budget.scope.occasion)),
            ("year", standing.budget.scope.year.map { .number(Int64($0)) } ?? .null),
            ("budget", .string(standing.budget.amount.description)),
            ("planned", .string(standing.planned.description)),
            ("spent", .string(standing.spent.description)),
            ("remaining", .string(standing.remaining.description)),
            ("over", .bool(standing.isOver)),
        ])
    }

    private static func show(_ shell: any Shell, asOf: String?, json: Bool) throws {
        let state = try shell.state(asOf: asOf)
        let standings = state.budgetStandings
        if json {
            shell.console.write(
                JSONWriter.document(
                    .object([
                        ("currency", .text(state.currency)),
                        (
                            "budgets",
                            .array(standings.map(Self.document))
                        ),
                    ])))
            return
        }
        guard !standings.isEmpty else {
            shell.console.print("No budgets yet. Set one with: budget set 100 --for Mum [--occasion \"Christmas 2026\"]")
            return
        }
        let currency = state.currency.map { " (\($0))" } ?? ""
        let table = TableRenderer(
            columns: [
                .init("BUDGET FOR", shrinks: true), .init("BUDGET", alignment: .right), .init("PLANNED", alignment: .right),
                .init("SPENT", alignment: .right), .init("REMAINING", alignment: .right), .init("STATUS"),
            ], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                standings.map { standing in
                    [
                        standing.budget.scope.words, standing.budget.amount.description, standing.planned.description,
                        standing.spent.description, standing.remaining.description, standing.isOver ? "OVER" : "ok",
                    ]
                }))
        let over = standings.filter(\.isOver).count
        shell.console.print(
            "\(standings.count) budget\(standings.count == 1 ? "" : "s")\(currency), "
                + (over == 0 ? "none over." : "\(over) over."))
    }
}
