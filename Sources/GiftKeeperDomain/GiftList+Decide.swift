import OrderedCollections

extension GiftList {
    /// The events that carry out `command` at time `at` in `state`, or why it cannot be done.
    ///
    /// Returns `[]` when the command is already satisfied: `signOut` while signed out,
    /// `markPresent` with the present's status, `editPresent` to the values it already has,
    /// `endUncleanSession` with no open session. (`signIn` never is: another process or
    /// device may be signed in too.)
    /// `removePresent` of a removed present is an error (``DomainError/presentRemoved(_:)``),
    /// not a no-op: the id was most likely mistyped, and the user should hear about it.
    ///
    /// Names, titles, recipients and occasions are trimmed of surrounding whitespace; notes
    /// are kept as typed. Unicode normalisation is left to the service.
    public static func decide(_ command: Command, at: Timestamp, state: GiftList) throws(DomainError) -> [Event] {
        func event(_ body: EventBody) -> Event { Event(at: at, body) }

        if case .createAccount(let name) = command {
            guard !state.hasAccount else { throw .accountAlreadyExists }
            let name = try checked(name, .name, allowEmpty: false)
            return [event(.accountCreated(name: name)), event(.loginSucceeded)]
        }
        guard state.hasAccount else { throw .noAccount }

        switch command {
        case .createAccount:
            return []  // handled above
        case .signIn:
            // Another process or device may be signed in too: each sign-in is its own session.
            return [event(.loginSucceeded)]
        case .recordFailedSignIn:
            return [event(.loginFailed)]
        case .signOut:
            return state.isSignedIn ? [event(.signedOut(clean: true))] : []
        case .endUncleanSession:
            return state.isSignedIn ? [event(.signedOut(clean: false))] : []
        case .changePassword, .recordExport, .undo, .change:
            break
        }
        guard state.isSignedIn else { throw .notSignedIn }

        switch command {
        case .createAccount, .signIn, .recordFailedSignIn, .signOut, .endUncleanSession:
            return []  // handled above
        case .changePassword:
            return [event(.passwordChanged)]
        case .recordExport(let presentCount):
            return [event(.stateExported(presentCount: max(0, presentCount)))]
        case .undo(let change, let before):
            let events = compensation(for: change, before: before, at: at, state: state)
            guard !events.isEmpty else { throw .nothingLeftToUndo }
            return events
        case .change(let change):
            return try decided(change, at: at, state: state)
        }
    }

    /// ``decide(_:at:state:)`` of a change.
    public static func decide(_ change: Change, at: Timestamp, state: GiftList) throws(DomainError) -> [Event] {
        try decide(.change(change), at: at, state: state)
    }

    /// ``decide(_:at:state:)`` of `commands` in turn, each on the state the ones before it
    /// leave: all their events, in order.
    public static func decide(_ commands: [Command], at: Timestamp, state: GiftList) throws(DomainError) -> [Event] {
        // One command is decided on the state itself: a copy of it would be a copy of the
        // whole list as soon as the caller applies the events.
        guard commands.count > 1 else {
            return try commands.first.map { command throws(DomainError) in try decide(command, at: at, state: state) } ?? []
        }
        var decided = state
        var events: [Event] = []
        for command in commands {
            let more = try decide(command, at: at, state: decided)
            for event in more { decided.apply(event) }
            events += more
        }
        return events
    }

    /// The events of `change`, in a state with a signed-in account.
    private static func decided(_ change: Change, at: Timestamp, state: GiftList) throws(DomainError) -> [Event] {
        func event(_ body: EventBody) -> Event { Event(at: at, body) }
        switch change {
        case .addPresent(let recipient, let title, let notes, let price, let occasion, let url, let store, let givers):
            let recipient = state.recipientSpelling(try checked(recipient, .recipient, allowEmpty: false))
            let title = try checked(title, .title, allowEmpty: false)
            let notes = try checked(notes, .notes, allowEmpty: true, trim: false)
            let occasion = state.occasionSpelling(try checked(occasion, .occasion, allowEmpty: true))
            let url = try checked(url, .url, allowEmpty: true)
            let store = try checked(store, .store, allowEmpty: true)
            guard let id = PresentID(number: state.nextPresentNumber),
                state.present(id) == nil
            else { throw .presentIDsExhausted }
            let added = event(
                .presentAdded(
                    id: id, recipient: recipient, title: title, notes: notes, price: price, occasion: occasion,
                    url: url, store: store))
            // The givers of a present not yet in `state` (no copy of the state to add it to
            // first: that copied every present, each `add`).
            let kept = try state.checkedGivers(givers)
            return [added] + (kept.isEmpty ? [] : [event(.giversSet(id: id, givers: kept))])
        case .importPresent(let present):
            let imported = try checkedImport(present)
            guard state.present(present.id) == nil else { throw .presentAlreadyExists(present.id) }
            return [event(.presentImported(imported))]
        case .editPresent(let id, let changes):
            let present = try current(id, in: state)
            guard !changes.isEmpty else { throw .noChanges(id) }
            // One change per field, the last given wins, in the order fields were first named.
            var byField: [PresentField: PresentChange] = [:]
            var order: [PresentField] = []
            for change in changes {
                var change = try checked(change)
                switch change {
                case .recipient(let name): change = .recipient(state.recipientSpelling(name))
                case .occasion(let name): change = .occasion(state.occasionSpelling(name))
                default: break
                }
                if byField.updateValue(change, forKey: change.field) == nil { order.append(change.field) }
            }
            let effective = order.compactMap { field -> PresentChange? in
                guard let change = byField[field], change != present.value(of: field) else { return nil }
                return change
            }
            return effective.isEmpty ? [] : [event(.presentEdited(id: id, changes: effective))]
        case .markPresent(let id, let status):
            let present = try current(id, in: state)
            return present.status == status ? [] : [event(.presentStatusChanged(id: id, status: status))]
        case .removePresent(let id):
            _ = try current(id, in: state)
            return [event(.presentRemoved(id: id))]
        case .addOccasion(let occasion):
            var occasion = occasion
            occasion.name = state.occasionSpelling(try checked(occasion.name, .occasion, allowEmpty: false))
            if let existing = state.occasions[occasion.key], existing.date == occasion.date,
                existing.isYearly == occasion.isYearly
            {
                return []
            }
            return [event(.occasionAdded(occasion))]
        case .removeOccasion(let name):
            let key = TextFolding.key(name)
            let users = state.presents.values.filter { TextFolding.matches($0.occasion, key: key) }.map(\.id)
            guard users.isEmpty else { throw .occasionInUse(state.occasionSpelling(name.trimmedWhitespace()), presents: users) }
            guard let occasion = state.occasions[key] else { throw .unknownOccasion(name.trimmedWhitespace()) }
            return [event(.occasionRemoved(name: occasion.name))]
        case .setBudget(let budget):
            let scope = try checked(budget.scope, in: state)
            if let existing = state.budgets[scope.key], existing.amount == budget.amount { return [] }
            return [event(.budgetSet(Budget(scope: scope, amount: budget.amount)))]
        case .clearBudget(let scope):
            let scope = try checked(scope, in: state)
            guard let existing = state.budgets[scope.key] else { throw .noBudget(scope) }
            return [event(.budgetCleared(existing.scope))]
        case .restorePresent(let id):
            if state.presents[id] != nil { throw .presentNotRemoved(id) }
            guard state.removedPresents[id] != nil else { throw .unknownPresent(id) }
            return [event(.presentRestored(id: id))]
        case .setCurrency(let code):
            let code = try currencyCode(code)
            return state.currency == code ? [] : [event(.currencySet(code: code))]
        case .closeOccasion(let name, let through, let keepingIdeas):
            guard let occasion = state.occasions[state.foldedName(name.trimmedWhitespace())], occasion.date != nil else {
                throw .unknownOccasion(name.trimmedWhitespace())
            }
            if let closed = state.closedThrough[occasion.key], closed >= through { return [] }
            let ideas = state.ideas(closedBy: occasion, through: through)
            var events = [event(.occasionClosed(name: occasion.name, through: through))]
            if keepingIdeas || !occasion.isYearly {
                events += ideas.map { event(.presentEdited(id: $0.id, changes: [.occasion("")])) }
            }
            return events
        case .setProfile(let recipient, let changes):
            return try profileEvents(recipient: recipient, changes: changes, at: at, state: state)
        case .addWish, .removeWish, .claimWish, .unclaimWish, .setGivers:
            return try decidedHousehold(change, at: at, state: state).map(event)
        }
    }

    /// A currency code as typed (`eur`) checked and upper-cased (`EUR`): three letters A–Z.
    public static func currencyCode(_ text: String) throws(DomainError) -> String {
        let code = text.trimmedWhitespace().uppercased()
        guard code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            throw .invalidCurrency(text)
        }
        return code
    }

    /// A budget scope with its names checked and spelled as first typed.
    private static func checked(_ scope: BudgetScope, in state: GiftList) throws(DomainError) -> BudgetScope {
        let recipient = try scope.recipient.map { name throws(DomainError) in
            state.recipientSpelling(try checked(name, .recipient, allowEmpty: false))
        }
        let occasion = try scope.occasion.map { name throws(DomainError) in
            state.occasionSpelling(try checked(name, .occasion, allowEmpty: false))
        }
        if let year = scope.year, !BudgetScope.years.contains(year) { throw .invalidYear(year) }
        return BudgetScope(recipient: recipient, occasion: occasion, year: scope.year)
    }

    static func current(_ id: PresentID, in state: GiftList) throws(DomainError) -> Present {
        if let present = state.presents[id] { return present }
        if state.removedPresents[id] != nil { throw .presentRemoved(id) }
        throw .unknownPresent(id)
    }

    private static func checked(_ change: PresentChange) throws(DomainError) -> PresentChange {
        switch change {
        case .title(let value): .title(try checked(value, .title, allowEmpty: false))
        case .recipient(let value): .recipient(try checked(value, .recipient, allowEmpty: false))
        case .notes(let value): .notes(try checked(value, .notes, allowEmpty: true, trim: false))
        case .occasion(let value): .occasion(try checked(value, .occasion, allowEmpty: true))
        case .url(let value): .url(try checked(value, .url, allowEmpty: true))
        case .store(let value): .store(try checked(value, .store, allowEmpty: true))
        case .price: change
        }
    }

    /// `text` as `field` may hold it (trimmed unless `trim` is false), or the rule it breaks.
    static func checked(
        _ text: String, _ field: DomainError.InputField, allowEmpty: Bool, trim: Bool = true
    ) throws(DomainError) -> String {
        let allowsLineBreaks = field == .notes || field == .address
        var value = trim ? text.trimmedWhitespace() : text
        // Printable ASCII (most text) holds no control character, no CR and is one
        // character a byte: the scalar and character walks below are for the rest.
        let printableASCII = value.allUTF8Bytes { $0 >= 0x20 && $0 < 0x7F }
        // Notes written on Windows end their lines with CR LF: kept as LF.
        if allowsLineBreaks && !printableASCII && value.contains("\r\n") {
            value = String(value.map { $0 == "\r\n" ? "\n" : $0 })
        }
        if !printableASCII,
            let scalar = value.unicodeScalars.first(where: { TextRules.isDisallowed($0, allowingLineBreaks: allowsLineBreaks) })
        {
            throw .controlCharacter(field, scalar: scalar.value)
        }
        // Only invisible characters (zero-width spaces, joiners, fillers) is empty too.
        // Printable ASCII that is not all spaces puts ink on the screen: no Unicode lookup.
        let visible =
            printableASCII ? value.utf8.contains { $0 != 0x20 } : value.unicodeScalars.contains(where: TextRules.isVisible)
        if !allowEmpty && !visible { throw .emptyValue(field) }
        // No more bytes than the limit: no more characters either.
        guard value.utf8.count > field.limit else { return value }
        // Counting stops just past the limit, so a huge paste costs no more than the limit.
        var length = 0
        for _ in value {
            length += 1
            if length > field.limit { throw .tooLong(field, limit: field.limit, length: value.count) }
        }
        return value
    }
}

extension GiftList {
    /// The first rule of typed input that text stored in `event` breaks: a control
    /// character (a tab or CR around a one-line field included, which typed input would
    /// have trimmed), an empty or over-long name, recipient, title or other field. Such
    /// text was written by a program holding the key that did not obey this one's rules
    /// (another device of the user's, compromised or buggy); nil when it obeys them.
    public static func ruleBroken(by event: Event) -> DomainError? {
        var fields: [(String, DomainError.InputField)] = []
        switch event.body {
        case .accountCreated(let name):
            fields = [(name, .name)]
        case .presentAdded(_, let recipient, let title, let notes, _, let occasion, let url, let store):
            fields = [(recipient, .recipient), (title, .title), (notes, .notes), (occasion, .occasion), (url, .url), (store, .store)]
        case .presentImported(let present):
            fields = [
                (present.recipient, .recipient), (present.title, .title), (present.notes, .notes),
                (present.occasion, .occasion), (present.url, .url), (present.store, .store),
            ]
        case .presentEdited(_, let changes):
            for change in changes {
                switch change {
                case .title(let value): fields.append((value, .title))
                case .recipient(let value): fields.append((value, .recipient))
                case .notes(let value): fields.append((value, .notes))
                case .occasion(let value): fields.append((value, .occasion))
                case .url(let value): fields.append((value, .url))
                case .store(let value): fields.append((value, .store))
                case .price: break
                }
            }
        case .occasionAdded(let occasion):
            fields = [(occasion.name, .occasion)]
        case .profileFieldSet(let recipient, let field, let value):
            fields = [(recipient, .recipient), (value, field.inputField)]
        default:
            break
        }
        do throws(DomainError) {
            for (text, field) in fields {
                let mayBeEmpty = field != .name && field != .recipient && field != .title
                _ = try checked(text, field, allowEmpty: mayBeEmpty, trim: false)
            }
        } catch {
            return error
        }
        return nil
    }
}
