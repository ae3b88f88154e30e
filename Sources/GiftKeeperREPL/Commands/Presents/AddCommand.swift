import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `add <recipient> <title> [--price …] [--notes …] [--occasion …] [--url …] [--store …]
/// [--with NAMES]`: a new present, status idea. Says when the person already got or has
/// planned something like it, and when it takes a budget over. With `--with`, it is given
/// together, and budgets count this list's owner's share (SPEC §13). In a household,
/// `--private` keeps it to its author.
struct AddCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a present (status 'idea').",
        usage:
            "add <recipient> <title> [--price 25.00] [--notes TEXT] [--occasion NAME] [--url URL] [--store TEXT] [--with NAMES] [--private]")

    @Argument(help: "Who the present is for.") var recipient: String?
    @Argument(help: "What it is.") var title: String?
    // Unconditional, so `--price -5` reaches the price check ("it is negative") and
    // `--notes "-- fragile"` is a note, instead of being taken for options.
    @Option(parsing: .unconditional, help: "Price, a non-negative decimal such as 25, 25.00 or 25,00.")
    var price: String?
    @Option(parsing: .unconditional, help: "Free-form notes.") var notes: String?
    @Option(parsing: .unconditional, help: "The occasion, e.g. \"Christmas 2026\" (a new name is added undated).")
    var occasion: String?
    @Option(parsing: .unconditional, help: "Where to find it online.") var url: String?
    @Option(parsing: .unconditional, help: "The shop.") var store: String?
    @Option(parsing: .unconditional, help: "Who gives it with you, names separated by commas; each pays an even share.")
    var with: String?
    @Flag(name: .customLong("private"), help: "In a household: only you see it.") var isPrivate = false

    /// `add` alone is a wizard: who and what, then (on a terminal) the optional fields.
    static var prompts: [ArgumentPrompt<Self>] {
        let arguments: [KeyPath<Self, String?>] = [\.recipient, \.title]
        return [
            ArgumentPrompt(\.recipient, "Recipient"), ArgumentPrompt(\.title, "Title", after: [\.recipient]),
            ArgumentPrompt(
                \.price, "Price (Enter skips)", option: "--price", after: arguments, isOptional: true,
                check: { text, _ in _ = try Money.parsePrice(text) }),
            ArgumentPrompt(\.occasion, "Occasion (Enter skips)", option: "--occasion", after: arguments, isOptional: true),
            ArgumentPrompt(\.notes, "Notes (Enter skips)", option: "--notes", after: arguments, isOptional: true),
            ArgumentPrompt(\.url, "URL (Enter skips)", option: "--url", after: arguments, isOptional: true),
            ArgumentPrompt(\.store, "Store (Enter skips)", option: "--store", after: arguments, isOptional: true),
        ]
    }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.precedingWords.last == "--occasion" { return shell.occasionNames }
        return request.wordIndex == 1 ? shell.recipients : []
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let recipient = self.recipient ?? ""
        let title = self.title ?? ""
        let price = try self.price.map { try Money.parsePrice($0) }
        let occasion = try shell.occasion(forPresent: self.occasion ?? "")
        let others = Self.names(with)
        let givers = others.isEmpty ? [] : [shell.service.state.accountName ?? ""] + others
        let change = Change.addPresent(
            recipient: recipient, title: title, notes: notes ?? "", price: price, occasion: occasion.name, url: url ?? "",
            store: store ?? "", givers: givers)
        let result = try isPrivate ? shell.performPrivately(change) : shell.service.perform(change)
        for event in result.events {
            guard case .presentAdded(let id, let recipient, let title, _, _, _, _, _) = event.body else { continue }
            let memory = GiftMemory(result.similar, of: result.similar.count, for: recipient, in: shell.service.state)
            // The line and its notes, in one write.
            shell.console.print(lines: [GiftMemory.saved(id, title: title, for: recipient)] + memory.notes)
            if let present = shell.service.state.presents[id], let line = GiftMemory.givenWith(present, in: shell.service.state) {
                shell.console.print(line)
            }
            if let suggestion = occasion.suggestion {
                shell.console.print(OccasionWords.newOccasion(occasion.name, suggestion: suggestion, movedBy: id))
            }
        }
        shell.warnOverBudget(result.budgetsCrossed)
    }

    /// The names in `--with Bob, Carol` (empty ones left out).
    static func names(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmedWhitespace() }.filter { !$0.isEmpty }
    }
}

/// What gift memory (SPEC §10) tells of the list before an `add`: the first few of the
/// similar presents, most alike first, and how many more there are. Messages.swift words it.
struct GiftMemory {
    /// How many similar presents `add` names; the rest are counted in one more line.
    static let shown = 3

    let named: [(present: Present, isRemoved: Bool)]
    let more: Int
    /// The person, as first spelled.
    let recipient: String

    init(_ mostAlike: [PresentID], of count: Int, for recipient: String, in state: GiftList) {
        var named: [(present: Present, isRemoved: Bool)] = []
        for id in mostAlike.prefix(Self.shown) {
            if let found = state.present(id) { named.append(found) }
        }
        self.named = named
        more = max(0, count - Self.shown)
        self.recipient = recipient
    }
}
