import GiftKeeperDomain
import GiftKeeperService

/// Amounts as the shell shows them: with the journal's currency when it has one.
extension Shell {
    /// `25.00 EUR`, or `25.00` without a currency.
    func amount(_ text: some CustomStringConvertible) -> String {
        guard let currency = service.state.currency else { return text.description }
        return "\(text) \(currency)"
    }

    /// The state `--as-of` asks for (announced), or the current one.
    func state(asOf text: String?) throws -> GiftList {
        guard let text else { return service.state }
        let time = try LocalTime.parseAsOf(text, now: service.now)
        let state = try service.state(asOf: time)
        progress.clear()
        console.note("As of \(LocalTime.dateAndMinute(time)):")
        return state
    }

    /// The occasion a present is given: `typed` as it is, unless it is a new name that looks
    /// like a typo of a known one (within two edits, or the start of one; the same
    /// numbers, so next year's `Christmas 2027` is no typo of `Christmas 2026`). On a
    /// terminal the user chooses; in a script the new name is kept, and `suggestion` is
    /// what it may have meant, for the command to say.
    func occasion(forPresent typed: String) throws -> (name: String, suggestion: String?) {
        let state = service.state
        let key = state.foldedName(typed)
        guard !key.isEmpty, state.occasionSpellings[key] == nil else { return (typed, nil) }
        let known = state.occasionEntries.map(\.occasion.name)
        let keys = known.map(state.foldedName)
        func digits(_ text: String) -> String { String(text.filter(\.isNumber)) }
        guard let closest = ShellCommands.closestName(to: key, among: keys.filter { digits($0) == digits(key) }),
            let index = keys.firstIndex(of: closest)
        else { return (typed, nil) }
        let suggestion = known[index]
        guard isInteractive else { return (typed, suggestion) }
        console.print(OccasionWords.newOccasion(typed.trimmedWhitespace(), suggestion: suggestion))
        return (try confirm(OccasionWords.useInstead(suggestion), defaultAnswer: true) ? suggestion : typed, nil)
    }

    /// Occasions (their first spellings) for completion.
    var occasionNames: [String] { service.state.occasionEntries.map(\.occasion.name) }

    /// One line per budget a change took over, said when it is saved.
    func warnOverBudget(_ crossed: [BudgetStanding]) {
        for standing in crossed {
            console.print(
                "Over budget: \(standing.budget.scope.words) has \(amount(standing.budget.amount)), "
                    + "planned and spent \(amount(standing.committed)) (\(amount(standing.remaining.magnitude)) over).")
        }
    }
}
