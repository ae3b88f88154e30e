import GiftKeeperDocuments
import GiftKeeperDomain

func normalized(_ command: Command) -> Command {
    switch command {
    case .createAccount(let name):
        return .createAccount(name: normalized(name))
    case .change(let change):
        return .change(normalized(change))
    case .signIn, .recordFailedSignIn, .signOut, .endUncleanSession, .changePassword, .recordExport, .undo:
        return command
    }
}

/// A change with every text it carries normalised; prices, ids and dates as they are.
func normalized(_ change: Change) -> Change {
    switch change {
    case .addPresent(let recipient, let title, let notes, let price, let occasion, let url, let store, let givers):
        return .addPresent(
            recipient: normalized(recipient), title: normalized(title), notes: normalized(notes),
            price: price, occasion: normalized(occasion), url: normalized(url), store: normalized(store),
            givers: givers.map(normalized))
    case .editPresent(let id, let changes):
        return .editPresent(
            id: id,
            changes: changes.map { change in
                switch change {
                case .title(let value): return .title(normalized(value))
                case .recipient(let value): return .recipient(normalized(value))
                case .notes(let value): return .notes(normalized(value))
                case .occasion(let value): return .occasion(normalized(value))
                case .url(let value): return .url(normalized(value))
                case .store(let value): return .store(normalized(value))
                case .price: return change
                }
            })
    case .addOccasion(var occasion):
        occasion.name = normalized(occasion.name)
        return .addOccasion(occasion)
    case .removeOccasion(let name):
        return .removeOccasion(name: normalized(name))
    case .closeOccasion(let name, let through, let keepingIdeas):
        return .closeOccasion(name: normalized(name), through: through, keepingIdeas: keepingIdeas)
    case .setBudget(var budget):
        budget.scope = normalized(budget.scope)
        return .setBudget(budget)
    case .clearBudget(let scope):
        return .clearBudget(normalized(scope))
    case .setProfile(let recipient, let changes):
        return .setProfile(
            recipient: normalized(recipient),
            changes: changes.map { change in
                guard case .field(let field, let value) = change else { return change }
                return .field(field, normalized(value))
            })
    case .addWish(let wisher, let title, let notes, let price, let url, let suggestedBy):
        return .addWish(
            wisher: normalized(wisher), title: normalized(title), notes: normalized(notes), price: price,
            url: normalized(url), suggestedBy: normalized(suggestedBy))
    case .claimWish(let id, let claimer):
        return .claimWish(id: id, claimer: normalized(claimer))
    case .unclaimWish(let id, let claimer):
        return .unclaimWish(id: id, claimer: normalized(claimer))
    case .setGivers(let id, let givers):
        return .setGivers(id: id, givers: givers.map(normalized))
    case .markPresent, .removePresent, .importPresent, .restorePresent, .setCurrency, .removeWish:
        return change
    }
}

func normalized(_ scope: BudgetScope) -> BudgetScope {
    BudgetScope(recipient: scope.recipient.map(normalized), occasion: scope.occasion.map(normalized), year: scope.year)
}
