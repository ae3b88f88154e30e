import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `occasion add <name> [--date YYYY-MM-DD] [--yearly]`, `occasion list`, `occasion remove <name>`,
/// `occasion close <name> [--carry-over | --keep]`.
struct OccasionCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "occasion",
        abstract: "Occasions with dates: add, list, remove, close.",
        usage:
            "occasion add <name> [--date YYYY-MM-DD] [--yearly] | occasion list [--json] | occasion remove <name> | occasion close <name> [--carry-over | --keep]",
        discussion: "Adding a name that exists changes its date. A yearly occasion comes back every year "
            + "(for a birthday, give the date of birth). Names ignore case and accents. "
            + "'close' ends an occasion's last day: a yearly one's open ideas carry over to its next date "
            + "(asked on a terminal; --keep keeps them without an occasion), a dated-once one's are kept without one.")

    static let actions = ["add", "list", "remove", "close"]

    @Argument(help: "add, list or remove (list when omitted).") var action: String?
    @Argument(help: "The occasion's name, e.g. \"Christmas 2026\".") var name: String?
    @Option(help: ArgumentHelp("Its date, YYYY-MM-DD.", valueName: "YYYY-MM-DD")) var date: String?
    @Flag(help: "It comes back every year.") var yearly = false
    @Flag(help: "occasion close: carry a yearly occasion's open ideas over to its next date, without asking.")
    var carryOver = false
    @Flag(help: "occasion close: keep the open ideas without an occasion, without asking.") var keep = false
    @Flag(help: "occasion list: one JSON document (an array of occasions) instead of the table.") var json = false

    /// The name, for the actions that take one.
    static var prompts: [ArgumentPrompt<Self>] {
        [
            ArgumentPrompt(
                \.name, "Occasion", after: [\.action],
                neededWhen: { ["add", "remove", "rm", "close"].contains($0.action?.lowercased()) })
        ]
    }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.wordIndex == 1 { return actions }
        if request.wordIndex == 2, ["add", "remove", "rm", "close"].contains(request.precedingWords.last?.lowercased()) {
            return shell.occasionNames
        }
        return request.precedingWords.last == "--date" ? [] : ["--date", "--yearly"]
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let action = self.action?.lowercased() ?? "list"
        if json, action != "list", action != "ls" {
            throw REPLError(.unexpectedWords(command: "occasion \(action)", words: ["--json"]))
        }
        switch action {
        case "list", "ls":
            Self.list(shell, json: try StructuredOutput.format(self) == .json)
        case "add":
            let name = self.name ?? ""
            let date = try self.date.map { try CalendarDate(parsing: $0) }
            if yearly && date == nil { throw REPLError(.yearlyWithoutDate) }
            let existed = shell.service.state.occasions[TextFolding.key(name)] != nil
            let events = try shell.service.perform(.addOccasion(Occasion(name: name, date: date, isYearly: yearly))).events
            guard let event = events.first, case .occasionAdded(let occasion) = event.body else {
                shell.console.print("That occasion already has that date; nothing changed.")
                return
            }
            let when = occasion.date.map { " on \($0)\(occasion.isYearly ? ", every year" : "")" } ?? " (no date)"
            shell.console.print(
                "Saved occasion \(TerminalText.quoted(shell.service.state.occasions[occasion.key]?.name ?? occasion.name))\(when)\(existed ? " (changed)" : "")."
            )
        case "remove", "rm":
            let name = self.name ?? ""
            let events = try shell.service.perform(.removeOccasion(name: name)).events
            if case .occasionRemoved(let removed) = events.first?.body {
                shell.console.print("Removed occasion \(TerminalText.quoted(removed)).")
            }
        case "close":
            try close(shell)
        default:
            throw REPLError(.unknownAction(command: "occasion", word: action, actions: Self.actions))
        }
    }

    /// `occasion close`: its last day over; its ideas carried over or kept without it.
    private func close(_ shell: any Shell) throws {
        if carryOver && keep { throw REPLError(.conflictingChoices("--carry-over", "--keep")) }
        let state = shell.service.state
        let name = (self.name ?? "").trimmedWhitespace()
        guard let occasion = state.occasions[state.foldedName(name)], occasion.date != nil else {
            throw DomainError.unknownOccasion(name)
        }
        let today = LocalTime.date(shell.service.now)
        guard let through = state.lastDate(of: occasion, onOrBefore: today) else {
            throw REPLError(.occasionNotOver(occasion.name, next: occasion.date?.description ?? ""))
        }
        if let closed = state.closedThrough[occasion.key], closed >= through {
            shell.console.print(OccasionWords.alreadyClosed(occasion.name, through: closed))
            return
        }
        let ideas = state.ideas(closedBy: occasion, through: through).map(\.id)
        let next = occasion.isYearly ? occasion.nextDate(onOrAfter: through.adding(days: 1) ?? through) : nil
        var keeping = keep || next == nil
        if let next, !keeping, !carryOver, !ideas.isEmpty, shell.isInteractive {
            keeping = try !shell.confirm(OccasionWords.carryOver(ideas.count, to: next), defaultAnswer: true)
        }
        try shell.service.perform(.closeOccasion(name: occasion.name, through: through, keepingIdeas: keeping))
        shell.console.print(OccasionWords.closed(occasion.name, through: through, ideas: ideas, carriedTo: keeping ? nil : next))
    }

    private static func list(_ shell: any Shell, json: Bool) {
        let today = LocalTime.date(shell.service.now)
        // Soonest first (a yearly one by its next date), then past and undated ones.
        let state = shell.service.state
        let entries = state.occasionEntries.enumerated().sorted { a, b in
            switch (state.nextDate(of: a.element.occasion, onOrAfter: today), state.nextDate(of: b.element.occasion, onOrAfter: today)) {
            case (let x?, let y?) where x != y: x < y
            case (_?, nil): true
            case (nil, _?): false
            default: a.offset < b.offset
            }
        }.map(\.element)
        if json {
            shell.console.write(
                JSONWriter.document(
                    .array(
                        entries.map { entry in
                            let next = state.nextDate(of: entry.occasion, onOrAfter: today)
                            return .object([
                                ("name", .string(entry.occasion.name)), ("date", .text(entry.occasion.date?.description)),
                                ("yearly", .bool(entry.occasion.isYearly)), ("next", .text(next?.description)),
                                ("daysAway", next.map { .number(Int64(today.days(until: $0))) } ?? .null),
                                ("presents", .number(Int64(entry.presentCount))), ("open", .number(Int64(entry.openCount))),
                            ])
                        })))
            return
        }
        guard !entries.isEmpty else {
            shell.console.print("No occasions yet. Add one with: occasion add \"Christmas 2026\" --date 2026-12-24")
            return
        }
        let table = TableRenderer(
            columns: [
                .init("OCCASION", shrinks: true), .init("DATE"), .init("NEXT"), .init("PRESENTS", alignment: .right),
                .init("OPEN", alignment: .right),
            ],
            maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                entries.map { entry in
                    let occasion = entry.occasion
                    let date = occasion.date.map { $0.description + (occasion.isYearly ? " yearly" : "") } ?? "-"
                    let next =
                        state.nextDate(of: occasion, onOrAfter: today).map { Countdown.words(today.days(until: $0)) }
                        ?? (occasion.date == nil ? "-" : "past")
                    return [occasion.name, date, next, String(entry.presentCount), String(entry.openCount)]
                }))
    }
}

/// "today", "tomorrow", "in 12 days".
enum Countdown {
    static func words(_ days: Int) -> String {
        switch days {
        case 0: "today"
        case 1: "tomorrow"
        default: "in \(days) days"
        }
    }
}
