import OrderedCollections

/// Undo (SPEC §10): what reversing a command needs of the state before it, and the events
/// that reverse it on the state now.
extension GiftList {
    /// What undoing `events` needs of this state (the state just before them): the presents
    /// (current or removed), occasions and budgets they touch, and the currency. Not the
    /// whole list: a session keeps one per change, and a script of a thousand changes must
    /// not keep a thousand copies of the list.
    public func undoSnapshot(for events: [Event]) -> GiftList {
        var slice = GiftList()
        slice.currency = currency
        for event in events {
            // Only what the list holds: a new present (an `add`) is in neither, and setting
            // nothing for it would still look its id up in both.
            if let id = event.body.presentID {
                if let present = presents[id] { slice.presents[id] = present }
                if let removed = removedPresents[id] { slice.removedPresents[id] = removed }
            }
            snapshotHousehold(of: event.body, into: &slice)
            switch event.body {
            case .occasionAdded(let occasion):
                slice.occasions[occasion.key] = occasions[occasion.key]
            case .occasionRemoved(let name):
                slice.occasions[TextFolding.key(name)] = occasions[TextFolding.key(name)]
            case .budgetSet(let budget):
                slice.budgets[budget.scope.key] = budgets[budget.scope.key]
            case .budgetCleared(let scope):
                slice.budgets[scope.key] = budgets[scope.key]
            case .occasionClosed(let name, _):
                slice.closedThrough[TextFolding.key(name)] = closedThrough[TextFolding.key(name)]
            case .profileFieldSet(let recipient, _, _):
                slice.profiles[foldedName(recipient)] = profiles[foldedName(recipient)]
            default:
                break
            }
        }
        return slice
    }

    /// The events that reverse `change` (what one command appended, in order), `before`
    /// being the state just before it (or its ``undoSnapshot(for:)``) and `state` the state now: the reverse of each event,
    /// last first, as far as the current state still shows it. Facts about sessions,
    /// passwords and exports are not reversed.
    public static func compensation(for change: [Event], before: GiftList, at: Timestamp, state: GiftList) -> [Event] {
        var current = state
        var events: [Event] = []
        func emit(_ body: EventBody) {
            let event = Event(at: at, body)
            current.apply(event)
            events.append(event)
        }
        for original in change.reversed() {
            switch original.body {
            case .presentAdded(let id, _, _, _, _, _, _, _):
                if current.presents[id] != nil { emit(.presentRemoved(id: id)) }
            case .presentImported(let present):
                if current.presents[present.id] != nil { emit(.presentRemoved(id: present.id)) }
            case .presentEdited(let id, let changes):
                guard let old = before.presents[id], let now = current.presents[id] else { continue }
                let back = changes.map { old.value(of: $0.field) }.filter { $0 != now.value(of: $0.field) }
                if !back.isEmpty { emit(.presentEdited(id: id, changes: back)) }
            case .presentStatusChanged(let id, _):
                guard let old = before.presents[id], let now = current.presents[id], now.status != old.status else { continue }
                emit(.presentStatusChanged(id: id, status: old.status))
            case .presentRemoved(let id):
                if current.removedPresents[id] != nil, current.presents[id] == nil { emit(.presentRestored(id: id)) }
            case .presentRestored(let id):
                if current.presents[id] != nil { emit(.presentRemoved(id: id)) }
            case .occasionAdded(let occasion):
                if let old = before.occasions[occasion.key] {
                    if current.occasions[occasion.key] != old { emit(.occasionAdded(old)) }
                } else if let now = current.occasions[occasion.key] {
                    emit(.occasionRemoved(name: now.name))
                }
            case .occasionRemoved(let name):
                let key = TextFolding.key(name)
                if let old = before.occasions[key], current.occasions[key] == nil { emit(.occasionAdded(old)) }
            case .budgetSet(let budget):
                let key = budget.scope.key
                if let old = before.budgets[key] {
                    if current.budgets[key] != old { emit(.budgetSet(old)) }
                } else if let now = current.budgets[key] {
                    emit(.budgetCleared(now.scope))
                }
            case .budgetCleared(let scope):
                if let old = before.budgets[scope.key], current.budgets[scope.key] == nil { emit(.budgetSet(old)) }
            case .currencySet:
                if current.currency != before.currency { emit(.currencySet(code: before.currency ?? "")) }
            case .occasionClosed(let name, _):
                let key = TextFolding.key(name)
                if current.closedThrough[key] != before.closedThrough[key] {
                    emit(.occasionClosed(name: name, through: before.closedThrough[key]))
                }
            case .profileFieldSet(let recipient, let field, _):
                let old = before.profiles[before.foldedName(recipient)]?[field] ?? ""
                if current.profiles[current.foldedName(recipient)]?[field] ?? "" != old {
                    emit(.profileFieldSet(recipient: recipient, field: field, value: old))
                }
            case .wishAdded, .wishRemoved, .wishClaimed, .wishUnclaimed, .giversSet:
                if let body = current.householdCompensation(for: original.body, before: before) { emit(body) }
            case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported:
                continue
            }
        }
        return events
    }
}
