import GiftKeeperDomain
import GiftKeeperService

/// What `undo` and `redo` say: the change in history's words, and what the next one would do.
enum UndoWords {
    /// `Undone: Removed p1 "Scarf".`
    static func undone(_ events: [Event], before: GiftList) -> String {
        "Undone: \(sentences(events, before: before))."
    }

    /// `Next 'undo' would reverse: p1 "Scarf" idea → bought (2026-11-24 09:00). 'redo' …`
    static func next(_ change: (events: [Event], stateBefore: GiftList)?) -> String {
        let redo = "'redo' makes the undone change again."
        guard let change, let first = change.events.first else { return "Nothing more to undo in this session. \(redo)" }
        return "Next 'undo' would reverse: \(sentences(change.events, before: change.stateBefore)) "
            + "(\(LocalTime.dateAndMinute(first.at))). \(redo)"
    }

    /// `Redone: Added p1 "Blue scarf" for Mum (25.00).`
    static func redone(_ events: [Event], before: GiftList) -> String {
        "Redone: \(sentences(events, before: before))."
    }

    /// `Next 'redo' would make again: …`
    static func nextRedo(_ events: [Event], before: GiftList) -> String {
        "Next 'redo' would make again: \(sentences(events, before: before))."
    }

    /// Each event's sentence, in order, each worded on the state the ones before it left.
    private static func sentences(_ events: [Event], before: GiftList) -> String {
        var state = before
        var said: [String] = []
        for event in events {
            said.append(HistoryWords.sentence(for: event, before: state))
            state.apply(event)
        }
        return said.joined(separator: "; ")
    }
}

/// What is said of a present's new occasion that looks like a typo of a known one.
enum OccasionWords {
    /// `'Chrismas 2026' is a new occasion. Did you mean 'Christmas 2026'?`: on a terminal,
    /// before the question.
    static func newOccasion(_ typed: String, suggestion: String) -> String {
        "'\(typed.trimmedWhitespace())' is a new occasion. Did you mean '\(suggestion)'?"
    }

    /// The same, as a note after a script's present was saved with the new name, and how
    /// to move it.
    static func newOccasion(_ typed: String, suggestion: String, movedBy id: PresentID) -> String {
        "Note: \(newOccasion(typed, suggestion: suggestion)) "
            + "To move it there: edit \(id) occasion=\(CommandLineTokenizer.quoted(suggestion))"
    }

    /// `Use 'Christmas 2026' instead?` (the shell adds `[Y/n]`).
    static func useInstead(_ suggestion: String) -> String {
        "Use '\(suggestion)' instead?"
    }
}

/// How a budget stands, in a sentence.
enum BudgetWords {
    /// `Budget for 'Christmas 2026': 100.00; planned and spent 117.50, 17.50 over.` (what
    /// `summary` says under its table of a budget not for one person).
    static func overall(_ standing: BudgetStanding, amount: (String) -> String) -> String {
        let left =
            standing.isOver
            ? "\(amount(standing.remaining.magnitude.description)) over" : "\(amount(standing.remaining.description)) left"
        return "Budget for \(standing.budget.scope.words): \(amount(standing.budget.amount.description)); "
            + "planned and spent \(amount(standing.committed.description)), \(left)."
    }
}

/// What `upcoming` says under an occasion's table.
enum UpcomingWords {
    /// `1 to buy (25.00 still to spend), 1 to wrap, 1 ready to give.`
    static func tally(_ item: UpcomingOccasion, toSpend: String) -> String {
        var parts: [String] = []
        if !item.toBuy.isEmpty { parts.append("\(item.toBuy.count) to buy (\(toSpend) still to spend)") }
        if !item.toWrap.isEmpty { parts.append("\(item.toWrap.count) to wrap") }
        if !item.ready.isEmpty { parts.append("\(item.ready.count) ready to give") }
        return parts.joined(separator: ", ") + "."
    }
}
