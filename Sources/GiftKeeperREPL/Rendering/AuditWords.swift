public import GiftKeeperDomain
public import GiftKeeperService

/// `audit`'s exact, machine-oriented form of each record (SPEC §6): one short line an
/// event, its user text cut and stripped of control characters.
public enum AuditWords {
    /// The one-line summary of an audit record (a key wrap has no event).
    public static func summary(_ record: AuditRecord) -> String {
        guard let event = record.event else { return "data key wrapped under the password key" }
        return summary(event.body)
    }

    /// A household's audit line (SPEC §13): who did what, among the events this member may
    /// read, tab-separated: sequence, time, author, summary.
    public static func householdLine(sequence: UInt64, at: Timestamp, author: String?, _ body: EventBody) -> String {
        "\(sequence)\t\(at.iso8601)\t\(short(author ?? "a member"))\t\(summary(body))"
    }

    /// A household audit's verdict: every frame's chain and author's signature verified.
    public static func householdVerdict(frames: UInt64, readable: Int) -> String {
        "OK: \(frames) frame\(frames == 1 ? "" : "s") verified, each signed by its author; "
            + "\(readable) of them event\(readable == 1 ? "" : "s") you may read"
    }

    /// One short line for an audit record, e.g. `added p3 "Blue scarf" for Mum (25.00)`.
    public static func summary(_ body: EventBody) -> String {
        switch body {
        case .accountCreated(let name):
            return "account created for \(short(name))"
        case .loginSucceeded:
            return "signed in"
        case .loginFailed:
            return "failed sign-in"
        case .signedOut(let clean):
            return clean ? "signed out" : "signed out (session ended without sign-out)"
        case .presentAdded(let id, let recipient, let title, _, let price, _, _, _):
            let priceText = price.map { " (\($0))" } ?? ""
            return "added \(id) \"\(short(title))\" for \(short(recipient))\(priceText)"
        case .presentEdited(let id, let changes):
            let fields = changes.map(\.field.rawValue).joined(separator: ", ")
            return "edited \(id): \(fields.isEmpty ? "nothing" : fields)"
        case .presentStatusChanged(let id, let status):
            return "marked \(id) \(status)"
        case .presentRemoved(let id):
            return "removed \(id)"
        case .passwordChanged:
            return "password changed"
        case .stateExported(let count):
            return "exported \(count) present\(count == 1 ? "" : "s")"
        case .presentImported(let present):
            let priceText = present.price.map { ", \($0)" } ?? ""
            return "imported \(present.id) \"\(short(present.title))\" for \(short(present.recipient)) (\(present.status)\(priceText))"
        case .occasionAdded(let occasion):
            let dateText = occasion.date.map { " on \($0)\(occasion.isYearly ? ", yearly" : "")" } ?? ""
            return "occasion \"\(short(occasion.name))\"\(dateText)"
        case .occasionRemoved(let name):
            return "removed occasion \"\(short(name))\""
        case .occasionClosed(let name, let through):
            return through.map { "closed occasion \"\(short(name))\" through \($0)" } ?? "reopened occasion \"\(short(name))\""
        case .budgetSet(let budget):
            return "budget \(budget.amount) for \(scopeText(budget.scope))"
        case .budgetCleared(let scope):
            return "cleared budget for \(scopeText(scope))"
        case .presentRestored(let id):
            return "restored \(id)"
        case .currencySet(let code):
            return "currency \(short(code))"
        case .profileFieldSet(let recipient, let field, let value):
            return value.isEmpty ? "cleared \(field.name) of \(short(recipient))" : "set \(field.name) of \(short(recipient))"
        case .wishAdded(let wish):
            let by = wish.isSuggestion ? " suggested by \(short(wish.suggestedBy))" : ""
            return "wish \(wish.id) \"\(short(wish.title))\" of \(short(wish.wisher))\(by)"
        case .wishRemoved(let id):
            return "removed wish \(id)"
        case .wishClaimed(let id, let claimer, let present):
            return "\(short(claimer)) claimed wish \(id) as \(present)"
        case .wishUnclaimed(let id, let claimer):
            return "\(short(claimer)) unclaimed wish \(id)"
        case .giversSet(let id, let givers):
            return givers.isEmpty ? "\(id) given by its planner alone" : "\(id) given by \(givers.map { short($0) }.joined(separator: ", "))"
        }
    }

    private static func scopeText(_ scope: BudgetScope) -> String {
        let what =
            switch (scope.recipient, scope.occasion) {
            case (nil, nil): "everything"
            case (let recipient?, nil): short(recipient)
            case (nil, let occasion?): "\"\(short(occasion))\""
            case (let recipient?, let occasion?): "\(short(recipient)), \"\(short(occasion))\""
            }
        return what + (scope.year.map { " in \($0)" } ?? "")
    }

    /// User text for a one-line summary: control characters become spaces and long text is cut.
    private static func short(_ text: String, limit: Int = 60) -> String {
        // Printable ASCII within the limit (most text) is itself: one character per byte, none
        // a control character, nothing cut.
        if text.utf8.count <= limit, text.allUTF8Bytes({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var out = ""
        var count = 0
        for character in text {
            if count == limit {
                out.append("…")
                break
            }
            let isControl = character.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }
            out.append(isControl ? " " : character)
            count += 1
        }
        return out
    }
}

extension AuditWords {
    /// The warning `audit` gives for an event whose stored text breaks a rule typed input
    /// obeys: `Event 12 (presentAdded) holds text typed input could not: the title contains
    /// the control character U+001B.`
    public static func warning(_ broken: StoredTextRuleBreak) -> String {
        "Event \(broken.sequence) (\(broken.type)) holds text typed input could not: \(clause(broken.rule)) "
            + "(written by another program holding the key; every output shows it sanitised)."
    }

    static func clause(_ rule: DomainError) -> String {
        switch rule {
        case .controlCharacter(let field, let scalar):
            let code = String(scalar, radix: 16, uppercase: true)
            return "the \(field.rawValue) \(field == .notes ? "contain" : "contains") the control character U+"
                + String(repeating: "0", count: max(0, 4 - code.count)) + code
        case .emptyValue(let field):
            return "the \(field.rawValue) is empty"
        case .tooLong(let field, let limit, let length):
            return "the \(field.rawValue) \(field == .notes ? "are" : "is") \(length) characters long, over the limit of \(limit)"
        default:
            return rule.sentence
        }
    }
}
