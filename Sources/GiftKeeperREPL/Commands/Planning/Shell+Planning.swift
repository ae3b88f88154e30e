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
