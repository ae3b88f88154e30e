import OrderedCollections

/// Recipients' profiles (SPEC §10.1, `person NAME`, `person set NAME field=value`).
extension GiftList {
    /// The events of `person set`: one per field whose text changes, then the birthday's
    /// yearly occasion added, re-dated or removed. A recipient need not have presents yet.
    static func profileEvents(
        recipient: String, changes: [ProfileChange], at: Timestamp, state: GiftList
    ) throws(DomainError) -> [Event] {
        let name = state.recipientSpelling(try checked(recipient, .recipient, allowEmpty: false))
        let profile = state.profiles[state.foldedName(name)] ?? Profile()
        // The last value given for a field wins, in the order fields were first named.
        var values: [ProfileField: String] = [:]
        var order: [ProfileField] = []
        var birthday: CalendarDate??
        for change in changes {
            switch change {
            case .field(let field, let value):
                let value = try checked(value, field.inputField, allowEmpty: true)
                if values.updateValue(value, forKey: field) == nil { order.append(field) }
            case .birthday(let date):
                birthday = .some(date)
            }
        }
        var events = order.compactMap { field -> Event? in
            guard let value = values[field], value != profile[field] else { return nil }
            return Event(at: at, .profileFieldSet(recipient: name, field: field, value: value))
        }
        if let birthday {
            let occasion = Profile.birthdayOccasionName(of: name)
            if let date = birthday {
                events += try decide(.addOccasion(Occasion(name: occasion, date: date, isYearly: true)), at: at, state: state)
            } else if state.occasions[state.foldedName(occasion)] != nil {
                events += try decide(.removeOccasion(name: occasion), at: at, state: state)
            }
        }
        return events
    }

    /// The yearly occasion that is `recipient`'s birthday, if one is named so.
    public func birthday(of recipient: String) -> Occasion? {
        occasions[foldedName(Profile.birthdayOccasionName(of: recipientSpelling(recipient)))]
    }

    /// Whether `name` is someone this list knows: a recipient of a present (current or
    /// removed), or someone with a profile or a budget.
    public func knowsPerson(_ name: String) -> Bool {
        let key = foldedName(name)
        return presentIDsByRecipient[key] != nil || profiles[key] != nil
            || budgets.keys.contains { $0.recipient == key }
    }

    /// Everyone the list knows (``knowsPerson(_:)``), A to Z, each in their first spelling.
    public var people: [String] {
        var names: [String: String] = [:]
        for budget in budgets.values {
            if let name = budget.scope.recipient { names[foldedName(name)] = name }
        }
        for key in Array(presentIDsByRecipient.keys) + Array(profiles.keys) { names[key] = recipientSpellings[key] ?? key }
        return names.sorted { $0.key < $1.key }.map(\.value)
    }
}
