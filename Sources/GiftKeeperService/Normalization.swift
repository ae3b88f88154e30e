import Foundation
import GiftKeeperDomain

/// NFC normalisation of the text users type, so "é" typed as one code point or two is the
/// same name, title or recipient (SPEC §4).
func normalized(_ text: String) -> String {
    // ASCII is already NFC: skip Foundation's normaliser (most of an import's text).
    if text.allUTF8Bytes({ $0 < 0x80 }) { return text }
    // So is text of scalars below U+0300 (Latin-1 and Latin Extended: "Léa", "Tomás"): the
    // first scalars that NFC changes or composes (NFC_Quick_Check No or Maybe) are the
    // combining marks from U+0300 on.
    if text.unicodeScalars.allSatisfy({ $0.value < 0x300 }) { return text }
    return text.precomposedStringWithCanonicalMapping
}

func normalized(_ command: Command) -> Command {
    switch command {
    case .createAccount(let name):
        return .createAccount(name: normalized(name))
    case .addPresent(let recipient, let title, let notes, let price, let occasion, let url, let store):
        return .addPresent(
            recipient: normalized(recipient), title: normalized(title), notes: normalized(notes),
            price: price, occasion: normalized(occasion), url: normalized(url), store: normalized(store))
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
    case .setBudget(var budget):
        budget.scope = normalized(budget.scope)
        return .setBudget(budget)
    case .clearBudget(let scope):
        return .clearBudget(normalized(scope))
    case .signIn, .recordFailedSignIn, .signOut, .endUncleanSession, .markPresent, .removePresent, .importPresent,
        .changePassword, .recordExport, .restorePresent, .setCurrency, .undo:
        // No free text to normalise here (an import's is normalised as it is read; a
        // currency is three letters).
        return command
    }
}

func normalized(_ scope: BudgetScope) -> BudgetScope {
    BudgetScope(recipient: scope.recipient.map(normalized), occasion: scope.occasion.map(normalized))
}
