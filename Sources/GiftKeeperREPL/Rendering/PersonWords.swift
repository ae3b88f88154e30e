import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// What `person` says (SPEC §10.1): everyone, one profile with their presents and
/// budgets, and what `person set` saved.
enum PersonWords {
    /// `person`: everyone the list knows, with their presents and next birthday.
    static func everyone(_ shell: any Shell) {
        let state = shell.service.state
        let people = state.people
        guard !people.isEmpty else {
            shell.console.print("No one yet. Add a present ('add Mum \"Scarf\"') or a profile ('person set Mum likes=tea').")
            return
        }
        let today = LocalTime.date(shell.service.now)
        let table = TableRenderer(
            columns: [
                .init("PERSON", shrinks: true), .init("OPEN", alignment: .right), .init("GIVEN", alignment: .right),
                .init("BIRTHDAY"), .init("PROFILE", shrinks: true),
            ],
            maxWidth: TerminalSession.outputColumns)
        shell.console.print(
            table.render(
                people.map { name in
                    let presents = presents(of: name, in: state)
                    let birthday = state.birthday(of: name).flatMap { state.nextDate(of: $0, onOrAfter: today) }
                    let fields = state.profiles[state.foldedName(name)]?.fields.keys.sorted().map(\.name) ?? []
                    return [
                        TerminalText.sanitized(name), String(presents.filter { $0.status != .given }.count),
                        String(state.gifts(for: name).count), birthday.map { Countdown.words(today.days(until: $0)) } ?? "-",
                        fields.isEmpty ? "-" : fields.joined(separator: ", "),
                    ]
                }))
    }

    /// `person <name>`: the profile, the birthday, the presents not given yet, what was
    /// given, and the budgets for them.
    static func profile(_ typed: String, shell: any Shell) -> String {
        let state = shell.service.state
        let name = state.recipientSpelling(typed)
        let today = LocalTime.date(shell.service.now)
        let profile = state.profiles[state.foldedName(name)] ?? Profile()
        var lines = [TerminalText.sanitized(name)]
        if let birthday = state.birthday(of: name), let date = birthday.date {
            let next = state.nextDate(of: birthday, onOrAfter: today).map { ", next \(Countdown.words(today.days(until: $0)))" } ?? ""
            lines.append("  birthday  \(date)\(birthday.isYearly ? ", every year" : "")\(next)")
        }
        for field in ProfileField.allCases where !profile[field].isEmpty {
            let label = field.name + String(repeating: " ", count: max(0, 9 - field.name.count))
            // An address or notes over several lines: each line under the first.
            let text = profile[field].split(separator: "\n", omittingEmptySubsequences: false)
                .map { TerminalText.sanitized(String($0)) }.joined(separator: "\n            ")
            lines.append("  \(label) \(text)")
        }
        if profile.isEmpty {
            lines.append("  No profile yet: person set \(CommandLineTokenizer.posixShellQuoted(name)) sizes=… likes=… dislikes=… address=…")
        }
        let open = presents(of: name, in: state).filter { $0.status != .given }
        if !open.isEmpty {
            lines.append("Presents not given yet:")
            for present in open {
                let details = [present.status.rawValue, present.price.map { shell.amount($0) }, present.occasion.isEmpty ? nil : present.occasion]
                    .compactMap { $0 }.map { TerminalText.sanitized($0) }
                lines.append("  \(present.id) \(TerminalText.sanitized(present.title)) (\(details.joined(separator: ", ")))")
            }
        }
        let gifts = state.gifts(for: name)
        if let last = gifts.last {
            let given = last.givenAt.map(LocalTime.date) ?? LocalTime.date(last.updatedAt)
            lines.append(
                "Given: \(counted(gifts.count, "present")), last \(TerminalText.quoted(last.title)) on \(given). "
                    + "('gifts \(name)' shows them all.)")
        }
        for standing in budgets(of: name, in: state) {
            let left =
                standing.isOver
                ? "\(shell.amount(standing.remaining.magnitude)) over" : "\(shell.amount(standing.remaining)) left"
            lines.append("Budget for \(standing.budget.scope.words): \(shell.amount(standing.budget.amount)), \(left).")
        }
        return lines.joined(separator: "\n")
    }

    /// `person <name> --json`.
    static func document(_ typed: String, in state: GiftList, today: CalendarDate) -> JSONValue {
        let name = state.recipientSpelling(typed)
        let profile = state.profiles[state.foldedName(name)] ?? Profile()
        let birthday = state.birthday(of: name)
        let next = birthday.flatMap { state.nextDate(of: $0, onOrAfter: today) }
        return .object(
            [("name", .string(name)), ("birthday", .text(birthday?.date?.description)), ("nextBirthday", .text(next?.description))]
                + ProfileField.allCases.map { ($0.name, .text(profile[$0].isEmpty ? nil : profile[$0])) }
                + [
                    ("presents", .array(presents(of: name, in: state).map { StructuredOutput.present($0, in: state) })),
                    ("budgets", .array(budgets(of: name, in: state).map(BudgetCommand.document))),
                ])
    }

    /// What `person set` saved, in one line.
    static func saved(_ events: [Event], name: String) -> String {
        var set: [String] = []
        var cleared: [String] = []
        var birthday: String?
        for event in events {
            switch event.body {
            case .profileFieldSet(_, let field, let value):
                if value.isEmpty { cleared.append(field.name) } else { set.append(field.name) }
            case .occasionAdded(let occasion):
                birthday = occasion.date.map { "birthday \($0), every year" }
            case .occasionRemoved:
                birthday = "birthday removed"
            default:
                break
            }
        }
        let parts =
            (set.isEmpty ? [] : [set.joined(separator: ", ") + " set"])
            + (cleared.isEmpty ? [] : [cleared.joined(separator: ", ") + " cleared"]) + (birthday.map { [$0] } ?? [])
        guard !parts.isEmpty else { return "\(TerminalText.sanitized(name))'s profile already says that; nothing changed." }
        return "Saved \(TerminalText.sanitized(name))'s profile: \(parts.joined(separator: "; "))."
    }

    /// Their current presents, in id order.
    private static func presents(of name: String, in state: GiftList) -> [Present] {
        let key = state.foldedName(name)
        return state.presents.values.filter { TextFolding.matches($0.recipient, key: key) }
    }

    /// How the budgets for them stand (for them alone or within an occasion).
    private static func budgets(of name: String, in state: GiftList) -> [BudgetStanding] {
        let key = state.foldedName(name)
        return state.budgetStandings.filter { $0.budget.scope.key.recipient == key }
    }
}
