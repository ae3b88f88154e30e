/// Why ``GiftList/decide(_:at:state:)`` or a parsing helper refused: data only;
/// ``message`` words it.
public enum DomainError: Error, Hashable, Sendable {
    /// `setup` on a journal that already has an account.
    case accountAlreadyExists
    /// A command other than `setup` before the account exists.
    case noAccount
    /// A command that needs a signed-in session while locked.
    case notSignedIn
    /// A name, title or recipient that is empty or only whitespace.
    case emptyValue(InputField)
    /// Text longer than the field allows, counted in characters.
    case tooLong(InputField, limit: Int, length: Int)
    /// Text holding a control character (ESC, CR, TAB…) or a bidirectional override,
    /// which a terminal would act on instead of showing: the scalar's value.
    case controlCharacter(InputField, scalar: UInt32)
    case unknownPresent(PresentID)
    /// The id belonged to a present that has been removed.
    case presentRemoved(PresentID)
    /// An imported present whose id this journal already used.
    case presentAlreadyExists(PresentID)
    /// An imported present whose id is beyond ``PresentID/maximumImported``.
    case importedIDTooLarge(PresentID)
    /// `edit` without any change.
    case noChanges(PresentID)
    case invalidPrice(String, reason: MoneyParsingError)
    case unknownStatus(String)
    case unknownField(String)
    /// Text that is not a present id such as `p3`.
    case invalidPresentID(String)
    /// Every present number has been used (only a doctored journal gets here).
    case presentIDsExhausted

    /// A field of user text that ``decide`` checks.
    public enum InputField: String, Hashable, Sendable, CaseIterable {
        case name, recipient, title, notes, occasion

        /// "notes" takes a plural verb.
        var isPlural: Bool { self == .notes }

        /// The most characters the field may hold.
        public var limit: Int {
            switch self {
            case .name, .recipient, .occasion: 200
            case .title: 1000
            case .notes: 10_000
            }
        }
    }

    /// One line for the user, quoting their input in '…' and saying what to do next.
    public var message: String {
        switch self {
        case .accountAlreadyExists:
            return "This journal already has an account. Type 'login' to unlock it, or use another --journal for a new one."
        case .noAccount:
            return "There is no account in this journal yet. Type 'setup <name>' to create one."
        case .notSignedIn:
            return "You are not signed in. Type 'login' first."
        case .emptyValue(let field):
            return "The \(field.rawValue) cannot be empty. Type a \(field.rawValue) with at least one visible character."
        case .tooLong(let field, let limit, let length):
            return "The \(field.rawValue) \(field.isPlural ? "are" : "is") \(length) characters long; the limit is \(limit). "
                + "Shorten \(field.isPlural ? "them" : "it") and try again."
        case .controlCharacter(let field, let scalar):
            let code = String(scalar, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return "The \(field.rawValue) \(field.isPlural ? "contain" : "contains") the control character U+\(padded), "
                + "which a terminal would act on "
                + "instead of showing. Remove it and try again."
        case .unknownPresent(let id):
            return "No present '\(id)'. Type 'list' to see ids."
        case .presentRemoved(let id):
            return "Present '\(id)' was removed. Type 'list' to see current ids, or 'history' to see what happened."
        case .importedIDTooLarge(let id):
            return "Present id '\(id)' is too large to import: the largest is '\(PresentID(number: PresentID.maximumImported)!)'. "
                + "Number the presents from p1."
        case .presentAlreadyExists(let id):
            return "The id '\(id)' is already used in this journal (ids are never reused, even after 'remove'). "
                + "Import into a new journal instead (--journal PATH)."
        case .noChanges(let id):
            return "Nothing to change for '\(id)'. Type 'edit \(id) <field>=<value>', e.g. 'edit \(id) price=25.00'."
        case .invalidPrice(let input, let reason):
            let why = switch reason {
            case .empty: "it is empty"
            case .negative: "it is negative"
            case .invalidCharacter(let character): "'\(character)' is not allowed"
            case .tooManyFractionDigits: "it has more than two decimals"
            case .missingDigits: "it needs digits on both sides of the dot"
            case .tooLarge: "it is too large"
            }
            return "'\(input)' is not a price: \(why). Type an amount such as 25 or 25.50."
        case .unknownStatus(let input):
            let words = PresentStatus.allCases.map(\.rawValue).joined(separator: ", ")
            return "Unknown status '\(input)'. Type one of: \(words)."
        case .unknownField(let input):
            let words = PresentField.allCases.map(\.rawValue).joined(separator: ", ")
            if input.lowercased() == "status" {
                return "The status is changed with 'mark <id> <status>', e.g. 'mark p3 bought'. The fields 'edit' changes are: \(words)."
            }
            return "Unknown field '\(input)'. Type one of: \(words)."
        case .invalidPresentID(let input):
            return "'\(input)' is not a present id. Ids look like 'p3'; type 'list' to see them."
        case .presentIDsExhausted:
            return "No present ids are left in this journal. Export it and import into a new journal."
        }
    }
}
