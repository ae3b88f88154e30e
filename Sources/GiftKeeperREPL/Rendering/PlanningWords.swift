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

    /// `'Christmas' is already closed for 2026-12-24; nothing changed.`
    static func alreadyClosed(_ name: String, through: CalendarDate) -> String {
        "\(TerminalText.quoted(name)) is already closed for \(through); nothing changed."
    }

    /// `Christmas 2026 (past)`: a dated occasion whose day is over, in a table.
    static func past(_ name: String) -> String {
        "\(name) (past)"
    }

    /// What `occasion close` did, in one line.
    static func closed(_ name: String, through: CalendarDate, ideas: [PresentID], carriedTo next: CalendarDate?) -> String {
        let count = ideas.count == 1 ? "1 open idea" : "\(ideas.count) open ideas"
        let ids = ideas.prefix(5).map(\.description).joined(separator: ", ") + (ideas.count > 5 ? ", …" : "")
        let what =
            if ideas.isEmpty {
                "no open ideas"
            } else if let next {
                "\(count) carried over to \(next) (\(ids))"
            } else {
                "\(count) kept without an occasion (\(ids))"
            }
        return "Closed \(TerminalText.quoted(name)) for \(through): \(what)."
    }

    /// `Carry the 3 open ideas over to 2027-12-24?` (the shell adds `[Y/n]`).
    static func carryOver(_ count: Int, to next: CalendarDate) -> String {
        "Carry \(count == 1 ? "the open idea" : "the \(count) open ideas") over to \(next)? ('n' keeps \(count == 1 ? "it" : "them") without an occasion)"
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
    /// An occasion's description in a calendar: what is left, never a present's title
    /// (a calendar may be shared or synced elsewhere).
    static func calendar(_ item: UpcomingOccasion, toSpend: String) -> String {
        guard !(item.toBuy.isEmpty && item.toWrap.isEmpty && item.ready.isEmpty) else { return "GiftKeeper: nothing planned yet." }
        return "GiftKeeper: " + tally(item, toSpend: toSpend)
    }

    /// `Wrote 2 occasions to '/home/alice/gifts.ics' (mode 0600).`
    static func wroteCalendar(_ count: Int, to path: String) -> String {
        "Wrote \(count) occasion\(count == 1 ? "" : "s") to \(CommandLineTokenizer.quoted(path)) (mode 0600). "
            + "Import it into your calendar app; writing it again updates the same events."
    }

    /// `1 to buy (25.00 still to spend), 1 to wrap, 1 ready to give.`
    static func tally(_ item: UpcomingOccasion, toSpend: String) -> String {
        var parts: [String] = []
        if !item.toBuy.isEmpty { parts.append("\(item.toBuy.count) to buy (\(toSpend) still to spend)") }
        if !item.toWrap.isEmpty { parts.append("\(item.toWrap.count) to wrap") }
        if !item.ready.isEmpty { parts.append("\(item.ready.count) ready to give") }
        return parts.joined(separator: ", ") + "."
    }
}

extension BudgetScope {
    /// `Mum`, `'Christmas 2026'`, `Mum for 'Christmas 2026'`, or `everything`; then the
    /// year it holds for: `Mum (2026)`.
    var words: String {
        let what =
            switch (recipient, occasion) {
            case (nil, nil): "everything"
            case (let recipient?, nil): recipient
            case (nil, let occasion?): "'\(occasion)'"
            case (let recipient?, let occasion?): "\(recipient) for '\(occasion)'"
            }
        return what + (year.map { " (\($0))" } ?? "")
    }
}

extension GiftMemory {
    /// `Saved p12: "Kite" for Sam.`
    static func saved(_ id: PresentID, title: String, for recipient: String) -> String {
        "Saved \(id): \(TerminalText.quoted(title)) for \(recipient)."
    }

    /// `Given with Bob and Carol: your share 40.00 of 120.00.`, for a present given together.
    static func givenWith(_ present: Present, in state: GiftList) -> String? {
        guard let givers = state.givers[present.id] else { return nil }
        let me = state.foldedName(state.accountName ?? "")
        let others = givers.filter { state.foldedName($0) != me }
        let names = others.count < 2 ? others.joined() : others.dropLast().joined(separator: ", ") + " and " + (others.last ?? "")
        guard let price = present.price, let share = state.ownShare(of: present) else { return "Given with \(names)." }
        return "Given with \(names): your share \(share) of \(price)."
    }

    /// `Saved p3: given by you alone.`, after `edit p3 with=`.
    static func givenAlone(_ id: PresentID) -> String { "Saved \(id): given by you alone." }

    /// A note for each present named, then how many more.
    var notes: [String] {
        var notes = named.map { Self.note($0.present, isRemoved: $0.isRemoved) }
        if more > 0 {
            notes.append(
                "Note: \(more) more of \(recipient)'s \(more == 1 ? "present has" : "presents have") a similar title "
                    + "('gifts \(CommandLineTokenizer.quoted(recipient))' lists what was given).")
        }
        return notes
    }

    /// `Note: Mum got "Blue scarf" for Christmas 2025 on 2025-12-24 (p3).`, or what is planned.
    static func note(_ present: Present, isRemoved: Bool) -> String {
        let occasion = present.occasion.isEmpty ? "" : " for \(present.occasion)"
        guard present.status == .given else {
            let removed = isRemoved ? ", removed" : ""
            return "Note: \(present.recipient) already has \(TerminalText.quoted(present.title))\(occasion) planned "
                + "(\(present.id), \(present.status.rawValue)\(removed))."
        }
        let day = present.givenAt.map { " on \(LocalTime.date($0))" } ?? ""
        return "Note: \(present.recipient) got \(TerminalText.quoted(present.title))\(occasion)\(day) (\(present.id))."
    }
}
