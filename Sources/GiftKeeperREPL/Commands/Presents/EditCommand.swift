import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `edit <id> field=value ...`: change a present's fields; `with=Bob,Carol` gives it
/// together with them (`with=` alone: you alone), which budgets count as your share.
struct EditCommand: PresentIDCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a present: title, recipient, notes, price, occasion, url, store, with (who gives it with you).",
        usage: "edit <id> <field>=<value> ...")

    @Argument(help: "A present id such as p3.") var id: String?
    @Argument(help: ArgumentHelp("Changes such as title=\"Red scarf\" price=30 (price= clears the price).", valueName: "field=value"))
    var changes: [String] = []

    // The answer splits like a command line: `price=5 notes="wool, red"` is two changes.
    static var prompts: [ArgumentPrompt<Self>] { [idPrompt, ArgumentPrompt(words: \.changes, "Change (field=value)", after: [\.id])] }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.wordIndex == 1 { return shell.presentIDs }
        // After `occasion=`, the occasions; after `recipient=`, the recipients.
        if request.word.hasPrefix("occasion=") { return shell.occasionNames.map { "occasion=" + $0 } }
        if request.word.hasPrefix("recipient=") { return shell.recipients.map { "recipient=" + $0 } }
        return PresentField.allCases.map { $0.rawValue + "=" }
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        var changes: [PresentChange] = []
        var typo: (name: String, suggestion: String)?
        var with: String?
        for assignment in self.changes {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw REPLError(.expectedAssignment(assignment))
            }
            if assignment[..<equals].lowercased() == "with" {
                with = String(assignment[assignment.index(after: equals)...])
                continue
            }
            let field = try PresentField(parsing: String(assignment[..<equals]))
            var change = try PresentChange(field: field, value: String(assignment[assignment.index(after: equals)...]))
            if case .occasion(let typed) = change {
                let occasion = try shell.occasion(forPresent: typed)
                change = .occasion(occasion.name)
                typo = occasion.suggestion.map { (occasion.name, $0) }
            }
            changes.append(change)
        }
        if let with {
            let others = AddCommand.names(with)
            let givers = others.isEmpty ? [] : [shell.service.state.accountName ?? ""] + others
            let result = try shell.service.perform(.setGivers(id: id, givers: givers))
            if let present = shell.service.state.presents[id], !result.events.isEmpty {
                shell.console.print(GiftMemory.givenWith(present, in: shell.service.state) ?? GiftMemory.givenAlone(id))
                shell.warnOverBudget(result.budgetsCrossed)
            }
            if changes.isEmpty {
                if result.events.isEmpty { shell.console.print("\(id) already has those values; nothing changed.") }
                return
            }
        }
        let result = try shell.service.perform(.editPresent(id: id, changes: changes))
        if result.events.isEmpty {
            shell.console.print("\(id) already has those values; nothing changed.")
        } else {
            let fields = result.events.flatMap { event -> [String] in
                if case .presentEdited(_, let changes) = event.body { return changes.map(\.field.rawValue) }
                return []
            }
            shell.console.print("Saved \(id): \(fields.joined(separator: ", ")) changed.")
            if let typo, fields.contains(PresentField.occasion.rawValue) {
                shell.console.print(OccasionWords.newOccasion(typo.name, suggestion: typo.suggestion, movedBy: id))
            }
            shell.warnOverBudget(result.budgetsCrossed)
        }
    }
}
