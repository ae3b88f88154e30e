import OrderedCollections

extension GiftList {
    /// The events that carry out `command` at time `at` in `state`, or why it cannot be done.
    ///
    /// Returns `[]` when the command is already satisfied: `signIn` while signed in,
    /// `signOut` while signed out, `markPresent` with the present's status, `editPresent`
    /// to the values it already has, `endUncleanSession` with no open session.
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
            return state.isSignedIn ? [] : [event(.loginSucceeded)]
        case .recordFailedSignIn:
            return [event(.loginFailed)]
        case .signOut:
            return state.isSignedIn ? [event(.signedOut(clean: true))] : []
        case .endUncleanSession:
            return state.isSignedIn ? [event(.signedOut(clean: false))] : []
        default:
            break
        }
        guard state.isSignedIn else { throw .notSignedIn }

        switch command {
        case .createAccount, .signIn, .recordFailedSignIn, .signOut, .endUncleanSession:
            return []  // handled above
        case .addPresent(let recipient, let title, let notes, let price, let occasion):
            let recipient = try checked(recipient, .recipient, allowEmpty: false)
            let title = try checked(title, .title, allowEmpty: false)
            let notes = try checked(notes, .notes, allowEmpty: true, trim: false)
            let occasion = try checked(occasion, .occasion, allowEmpty: true)
            guard let id = PresentID(number: state.nextPresentNumber),
                state.present(id) == nil
            else { throw .presentIDsExhausted }
            return [
                event(
                    .presentAdded(
                        id: id, recipient: recipient, title: title, notes: notes, price: price, occasion: occasion))
            ]
        case .importPresent(let present):
            let recipient = try checked(present.recipient, .recipient, allowEmpty: false)
            let title = try checked(present.title, .title, allowEmpty: false)
            let notes = try checked(present.notes, .notes, allowEmpty: true, trim: false)
            let occasion = try checked(present.occasion, .occasion, allowEmpty: true)
            guard present.id.number <= PresentID.maximumImported else { throw .importedIDTooLarge(present.id) }
            guard state.present(present.id) == nil else { throw .presentAlreadyExists(present.id) }
            var imported = present
            imported.recipient = recipient
            imported.title = title
            imported.notes = notes
            imported.occasion = occasion
            return [event(.presentImported(imported))]
        case .editPresent(let id, let changes):
            let present = try current(id, in: state)
            guard !changes.isEmpty else { throw .noChanges(id) }
            // One change per field, the last given wins, in the order fields were first named.
            var byField: [PresentField: PresentChange] = [:]
            var order: [PresentField] = []
            for change in changes {
                let change = try checked(change)
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
        case .changePassword:
            return [event(.passwordChanged)]
        case .recordExport(let presentCount):
            return [event(.stateExported(presentCount: max(0, presentCount)))]
        }
    }

    private static func current(_ id: PresentID, in state: GiftList) throws(DomainError) -> Present {
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
        case .price: change
        }
    }

    private static func checked(
        _ text: String, _ field: DomainError.InputField, allowEmpty: Bool, trim: Bool = true
    ) throws(DomainError) -> String {
        let allowsLineBreaks = field == .notes
        var value = trim ? text.trimmedWhitespace() : text
        // Printable ASCII (most text) holds no control character, no CR and is one
        // character a byte: the scalar and character walks below are for the rest.
        let printableASCII = value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
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
        if !allowEmpty && !value.unicodeScalars.contains(where: TextRules.isVisible) { throw .emptyValue(field) }
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
