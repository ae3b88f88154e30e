import GiftKeeperDomain
public import GiftKeeperService

/// The history in words (SPEC §10): one sentence per event, with old and new values
/// (`p2 price 25.00 → 22.50`). `audit` keeps the machine-oriented summaries.
public enum HistoryWords {
    /// What the shell says of a change another process or device made (SPEC §12), as it is
    /// taken in: `↓ p12 "Lego set" for Dad was added elsewhere`. Nil for facts about that
    /// session (its sign-in and sign-out), which change nothing here.
    public static func elsewhere(_ entry: HistoryEntry) -> String? {
        guard let event = entry.event else { return "↓ The password was changed elsewhere" }
        switch event.body {
        case .loginSucceeded, .signedOut, .stateExported:
            return nil
        case _ where entry.author != nil:
            // In a household: who did it, by the name they signed.
            return "↓ \(short(entry.author ?? "")): " + sentence(entry)
        case .presentAdded(let id, let recipient, let title, _, _, _, _, _):
            return "↓ \(id) \(quoted(title)) for \(short(recipient)) was added elsewhere"
        default:
            return "↓ Elsewhere: " + sentence(entry)
        }
    }

    /// The sentence for `entry`.
    static func sentence(_ entry: HistoryEntry) -> String {
        guard let event = entry.event else { return "Keys wrapped under the password" }
        let before = entry.presentBefore
        switch event.body {
        case .accountCreated(let name):
            return "Account created for \(short(name))"
        case .loginSucceeded:
            return "Signed in"
        case .loginFailed:
            return "Failed sign-in (reported)"
        case .signedOut(let clean):
            return clean ? "Signed out" : "Session ended without signing out"
        case .presentAdded(let id, let recipient, let title, _, let price, let occasion, _, _):
            let details = [price?.description, occasion.isEmpty ? nil : short(occasion)].compactMap { $0 }
            return "Added \(id) \(quoted(title)) for \(short(recipient))" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
        case .presentImported(let present):
            return "Imported \(present.id) \(quoted(present.title)) for \(short(present.recipient)) (\(present.status))"
        case .presentEdited(let id, let changes):
            let parts = changes.map { change -> String in
                let old = before.map { value($0.value(of: change.field)) } ?? "?"
                return "\(change.field) \(old) → \(value(change))"
            }
            return "\(id) " + parts.joined(separator: ", ")
        case .presentStatusChanged(let id, let status):
            let title = before.map { " " + quoted($0.title) } ?? ""
            return "\(id)\(title) \(before?.status.rawValue ?? "?") → \(status)"
        case .presentRemoved(let id):
            return "Removed \(id)" + (before.map { " " + quoted($0.title) } ?? "")
        case .presentRestored(let id):
            return "Restored \(id)" + (before.map { " " + quoted($0.title) } ?? "")
        case .passwordChanged:
            return "Password changed"
        case .stateExported(let count):
            return "Exported \(count) present\(count == 1 ? "" : "s")"
        case .occasionAdded(let occasion):
            let date = dateText(occasion)
            guard let old = entry.occasionBefore else { return "Occasion \(quoted(occasion.name)) added\(date.isEmpty ? "" : " (\(date))")" }
            return "Occasion \(quoted(old.name)) date \(dateText(old).isEmpty ? "none" : dateText(old)) → \(date.isEmpty ? "none" : date)"
        case .occasionRemoved(let name):
            return "Occasion \(quoted(name)) removed"
        case .occasionClosed(let name, let through):
            return through.map { "Occasion \(quoted(name)) closed (\($0) is over)" } ?? "Occasion \(quoted(name)) reopened"
        case .budgetSet(let budget):
            guard let old = entry.budgetBefore else { return "Budget for \(budget.scope.words) set to \(budget.amount)" }
            return "Budget for \(budget.scope.words) \(old.amount) → \(budget.amount)"
        case .budgetCleared(let scope):
            return "Budget for \(scope.words) cleared" + (entry.budgetBefore.map { " (was \($0.amount))" } ?? "")
        case .currencySet(let code):
            return code.isEmpty ? "Currency cleared" : "Currency set to \(code)"
        case .profileFieldSet(let recipient, let field, let new):
            let old = entry.profileValueBefore ?? ""
            let what = "\(short(recipient))'s \(field.name)"
            if new.isEmpty { return "\(what) cleared" + (old.isEmpty ? "" : " (was \(quoted(old)))") }
            return old.isEmpty ? "\(what) set to \(quoted(new))" : "\(what) \(quoted(old)) → \(quoted(new))"
        case .wishAdded(let wish):
            let by = wish.isSuggestion ? " (suggested by \(short(wish.suggestedBy)))" : ""
            return "Wish \(wish.id) \(quoted(wish.title)) added to \(short(wish.wisher))'s list\(by)"
        case .wishRemoved(let id):
            return "Wish \(id) taken off its list"
        case .wishClaimed(let id, let claimer, let present):
            return "\(short(claimer)) claimed wish \(id) (\(present))"
        case .wishUnclaimed(let id, let claimer):
            return "\(short(claimer)) gave up wish \(id)"
        case .giversSet(let id, let givers):
            let title = before.map { " " + quoted($0.title) } ?? ""
            return givers.isEmpty
                ? "\(id)\(title) given by its planner alone" : "\(id)\(title) given by \(givers.map(short).joined(separator: " & "))"
        }
    }

    /// The sentence for `event` applied to `state` (what `undo` reversed).
    static func sentence(for event: Event, before state: GiftList) -> String {
        sentence(HistoryEntry(sequence: 0, event: event, isReported: false, before: state))
    }

    private static func dateText(_ occasion: Occasion) -> String {
        guard let date = occasion.date else { return "" }
        return date.description + (occasion.isYearly ? ", yearly" : "")
    }

    static func value(_ change: PresentChange) -> String {
        switch change {
        case .title(let text), .recipient(let text), .notes(let text), .occasion(let text), .url(let text), .store(let text):
            text.isEmpty ? "(none)" : quoted(text)
        case .price(let price):
            price?.description ?? "(none)"
        }
    }

    static func quoted(_ text: String) -> String { TerminalText.quoted(short(text)) }

    /// One line of at most 40 characters.
    private static func short(_ text: String) -> String {
        let line = String(text.map { $0.isNewline ? " " : $0 })
        return TerminalText.truncated(TerminalText.sanitized(line), toWidth: 40)
    }
}
