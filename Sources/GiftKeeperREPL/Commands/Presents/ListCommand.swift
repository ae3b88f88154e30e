import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `list [recipient...] [--status S[,S…]] [--occasion NAME] [--search TEXT] [--sort FIELD]
/// [--all] [--as-of DATE]`: the presents as a table, with a totals line.
struct ListCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List presents: id, recipient, title, occasion, price, status.",
        usage:
            "list [recipient...] [--status S[,S...]] [--occasion NAME] [--search TEXT] [--sort FIELD] [--all] [--as-of DATE] [--json | --csv]",
        discussion: "Open presents (idea, bought, wrapped) by default; --all adds given and removed ones. "
            + "Names and --search ignore case and accents. --sort: price, recipient, occasion, status, created, title.")

    @Argument(help: "Only these recipients' presents.") var recipients: [String] = []
    @Option(
        help: ArgumentHelp("Only these statuses, e.g. idea,bought.", valueName: "S[,S...]"),
        completion: .list(PresentStatus.allCases.map(\.rawValue)))
    var status: String?
    @Option(help: "Only presents for this occasion.") var occasion: String?
    @Option(parsing: .unconditional, help: "Only presents whose title, notes, recipient, occasion or store hold TEXT.")
    var search: String?
    @Option(
        help: "Order by price, recipient, occasion, status, created or title.",
        completion: .list(PresentSort.allCases.map(\.rawValue)))
    var sort: String?
    @Flag(help: "Given and removed presents too.") var all = false
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("The list as it was then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?
    @Flag(help: "One JSON document (an array of presents) instead of the table.") var json = false
    @Flag(help: "CSV (RFC 4180) instead of the table, for spreadsheets.") var csv = false

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        switch request.precedingWords.last {
        case "--status": return PresentStatus.allCases.map(\.rawValue)
        case "--occasion": return shell.occasionNames
        case "--sort": return PresentSort.allCases.map(\.rawValue)
        case "--search", "--as-of": return []
        default: return shell.recipients
        }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let query = PresentQuery(
            statuses: try status.map { try PresentStatus.parseList($0) } ?? [], recipients: recipients, occasion: occasion,
            search: search, sort: try sort.map { try PresentSort(parsing: $0) } ?? .created, includesAll: all)
        let format = try StructuredOutput.format(self)
        let state = try shell.state(asOf: asOf)
        let listed = state.presents(matching: query)
        switch format {
        case .json:
            shell.console.write(
                JSONWriter.document(.array(listed.map { StructuredOutput.present($0.present, in: state, isRemoved: $0.isRemoved) })))
            return
        case .csv:
            shell.console.write(
                StructuredOutput.csv(
                    header: StructuredOutput.presentColumns,
                    rows: listed.map { StructuredOutput.presentRow($0.present, givers: state.givers[$0.present.id], isRemoved: $0.isRemoved) }))
            return
        case .text:
            break
        }
        guard !listed.isEmpty else {
            if state.presents.isEmpty && state.removedPresents.isEmpty {
                shell.console.print("No presents yet. Add one with: add <recipient> <title> [--price 25]")
            } else {
                shell.console.print("No presents match." + (query.includesAll ? "" : " ('list --all' shows given and removed ones too.)"))
            }
            return
        }
        // On a terminal, long titles (then occasions, then recipients) are cut with … so
        // rows never wrap at 80 columns; `show` has every field whole.
        let priceHeader = state.currency.map { "PRICE \($0)" } ?? "PRICE"
        // A dated occasion whose day is over (and will not come back) says so.
        let today = LocalTime.date(shell.service.now)
        func occasionCell(_ name: String) -> String {
            guard !name.isEmpty else { return "-" }
            guard let occasion = state.occasions[state.foldedName(name)], occasion.date != nil,
                state.nextDate(of: occasion, onOrAfter: today) == nil
            else { return name }
            return OccasionWords.past(name)
        }
        // In a household, a present that stands for a claimed wish says so after its title.
        let claimed = Set(state.claims.values.map(\.present))
        let table = TableRenderer(
            columns: [
                .init("ID"), .init("RECIPIENT", shrinks: true), .init("TITLE", shrinks: true),
                .init("OCCASION", shrinks: true), .init(priceHeader, alignment: .right), .init("STATUS"),
            ], maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                listed.map { item in
                    let present = item.present
                    return [
                        present.id.description, present.recipient,
                        claimed.contains(present.id) ? HouseholdWords.claimedTitle(present.title) : present.title,
                        occasionCell(present.occasion), present.price?.description ?? "-",
                        item.isRemoved ? "removed" : present.status.rawValue,
                    ]
                }))
        let totals = PresentTotals(listed.filter { !$0.isRemoved }.map(\.present))
        // The totals line: how many, what they cost, and how far along they are.
        var stages = PresentStatus.allCases.compactMap { status -> String? in
            let count = totals.countsByStatus[status, default: 0]
            return count == 0 ? nil : "\(count) \(status)"
        }
        let removed = listed.count - totals.count
        if removed > 0 { stages.append("\(removed) removed") }
        shell.console.print(
            "\(listed.count) present\(listed.count == 1 ? "" : "s"), total \(shell.amount(totals.total)) (\(stages.joined(separator: ", ")))")
    }
}
