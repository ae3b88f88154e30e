import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `add <recipient> <title> [--price …] [--notes …] [--occasion …] [--url …] [--store …]`:
/// a new present, status idea. Says when the person already got or has planned something
/// like it, and when it takes a budget over.
struct AddCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a present (status 'idea').",
        usage: "add <recipient> <title> [--price 25.00] [--notes TEXT] [--occasion NAME] [--url URL] [--store TEXT]")

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

    /// `add` alone is a wizard: who and what, then (on a terminal) the optional fields.
    static let prompts = [
        ArgumentPrompt("recipient", "Recipient"), ArgumentPrompt("title", "Title"),
        ArgumentPrompt("price", "Price (Enter skips)", isOptional: true, check: { _ = try Money.parsePrice($0) }),
        ArgumentPrompt("occasion", "Occasion (Enter skips)", isOptional: true),
        ArgumentPrompt("notes", "Notes (Enter skips)", isOptional: true),
        ArgumentPrompt("url", "URL (Enter skips)", isOptional: true),
        ArgumentPrompt("store", "Store (Enter skips)", isOptional: true),
    ]

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.precedingWords.last == "--occasion" { return shell.occasionNames }
        return request.wordIndex == 1 ? shell.recipients : []
    }

    static func run(_ line: BoundLine, in shell: any Shell) throws {
        try shell.requireSignedIn()
        let line = try shell.completing(line)
        let recipient = line.text("recipient") ?? ""
        let title = line.text("title") ?? ""
        let price = try line.text("price").map { try Money.parsePrice($0) }
        // What the list says before the change, read in place (no copy of the list is kept
        // across the change: the service would copy all of it to apply the new event).
        let titleTerms = shell.titleTerms
        let (budgets, notes) = shell.service.readingState { state in
            let similar = state.similarPresents(to: title, for: recipient, keeping: GiftMemory.shown, remembering: titleTerms)
            return (
                state.budgetStandings,
                GiftMemory.notes(similar.mostAlike, of: similar.count, for: state.recipientSpelling(recipient), in: state)
            )
        }
        let events = try shell.service.perform(
            .addPresent(
                recipient: recipient, title: title, notes: line.text("notes") ?? "", price: price,
                occasion: line.text("occasion") ?? "", url: line.text("url") ?? "", store: line.text("store") ?? ""))
        for event in events {
            guard case .presentAdded(let id, let recipient, let title, _, _, _, _, _) = event.body else { continue }
            // One write for the line and its notes.
            shell.console.print(lines: [GiftMemory.saved(id, title: title, for: recipient)] + notes)
        }
        shell.warnOverBudget(since: budgets)
    }
}

/// The gift-memory sentences (SPEC §10).
enum GiftMemory {
    /// How many similar presents `add` names; the rest are counted in one more line.
    static let shown = 3

    /// `Saved p12: "Kite" for Sam.`, written once into a string with room for it.
    static func saved(_ id: PresentID, title: String, for recipient: String) -> String {
        // The fixed words take 17 bytes, the number at most 20.
        String(room: 37 + title.utf8.count + recipient.utf8.count) { line in
            line.put("Saved p")
            line.put(decimal: id.number)
            line.put(": \"")
            line.put(title)
            line.put("\" for ")
            line.put(recipient)
            line.put(".")
        }
    }

    /// The notes for the `count` similar presents, `mostAlike` first: the first few, then
    /// how many more.
    static func notes(_ mostAlike: [PresentID], of count: Int, for recipient: String, in state: GiftList) -> [String] {
        let named = mostAlike.prefix(shown).compactMap { id in
            state.present(id).map { note($0.present, isRemoved: $0.isRemoved) }
        }
        guard count > shown else { return named }
        let more = count - shown
        let quoted = CommandLineTokenizer.quoted(recipient)
        // The fixed words take 80 bytes, the number at most 20.
        let countLine = String(room: 100 + recipient.utf8.count + quoted.utf8.count) { line in
            line.put("Note: ")
            line.put(decimal: UInt64(more))
            line.put(" more of ")
            line.put(recipient)
            line.put(more == 1 ? "'s present has" : "'s presents have")
            line.put(" a similar title ('gifts ")
            line.put(quoted)
            line.put("' lists what was given).")
        }
        return named + [countLine]
    }

    /// `Note: Mum got "Blue scarf" for Christmas 2025 (p3).`, or what is planned: its
    /// pieces copied once into a string with room for them (``PieceWriter``), up to three
    /// times an `add`.
    static func note(_ present: Present, isRemoved: Bool) -> String {
        let given = present.status == .given
        let date = given ? present.givenAt.map { "\(LocalTime.date($0))" } : nil
        // The fixed words take at most 64 bytes together, the number at most 20.
        let room =
            84 + present.recipient.utf8.count + present.title.utf8.count + present.occasion.utf8.count
            + (date?.utf8.count ?? 0) + present.status.rawValue.utf8.count
        return String(room: room) { note in
            note.put("Note: ")
            note.put(present.recipient)
            note.put(given ? #" got ""# : #" already has ""#)
            note.put(present.title)
            note.put(#"""#)
            if !present.occasion.isEmpty {
                note.put(" for ")
                note.put(present.occasion)
            }
            if given {
                if let date {
                    note.put(" on ")
                    note.put(date)
                }
                note.put(" (p")
                note.put(decimal: present.id.number)
            } else {
                note.put(" planned (p")
                note.put(decimal: present.id.number)
                note.put(", ")
                note.put(present.status.rawValue)
                if isRemoved { note.put(", removed") }
            }
            note.put(").")
        }
    }
}
