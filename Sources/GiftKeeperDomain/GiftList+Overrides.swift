/// A change this device made and shared that another device's change, later in the shared
/// journal, undid (SPEC §12: every device whose change lost is told what it was and what
/// won), found when this device takes the other's in.
public struct OverriddenChange: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// This device set a field (or the status); another device set it to something else.
        case replaced(yours: PresentChangeValue, winning: PresentChangeValue)
        /// This device changed the present; another device removed it.
        case removed(yours: PresentChangeValue)
        /// This device removed the present; another device's change brought it back.
        case broughtBack
    }

    /// Whose change won: another device (a person's journal), or in a household the member
    /// who signed it (read from the signature), or another device of this member's.
    public enum Winner: Hashable, Sendable {
        case anotherDevice
        case yourOtherDevice
        case member(String)
    }

    public let id: PresentID
    /// The present's title as the winning change left it (as it was, for a removal).
    public let title: String
    public let kind: Kind
    public var winner: Winner = .anotherDevice
}

/// One field's (or the status's) value, as a change set it.
public enum PresentChangeValue: Hashable, Sendable {
    case field(PresentChange)
    case status(PresentStatus)
}

extension GiftList {
    /// Of `own` (this device's changes, already shared, in order), those that `incoming`
    /// (other devices' changes after them in the shared journal, in order) undid: the same
    /// field or the status of a present set to another value, a present changed here
    /// removed, or a present removed here brought back. `state` is the list just before
    /// `incoming`. Each field of a present is told once, with the value that won last.
    /// Pure: no I/O.
    public static func overridden(own: [Event], by incoming: [Event], state: GiftList) -> [OverriddenChange] {
        var yours: [PresentID: [PresentChangeValue]] = [:]
        var removedHere: Set<PresentID> = []
        for event in own {
            switch event.body {
            case .presentEdited(let id, let changes):
                yours[id, default: []].removeAll { value in changes.contains { value.sameField(as: .field($0)) } }
                yours[id, default: []] += changes.map(PresentChangeValue.field)
                removedHere.remove(id)
            case .presentStatusChanged(let id, let status):
                yours[id, default: []].removeAll { $0.sameField(as: .status(status)) }
                yours[id, default: []].append(.status(status))
                removedHere.remove(id)
            case .presentRemoved(let id):
                removedHere.insert(id)
            case .presentRestored(let id):
                removedHere.remove(id)
            default:
                break
            }
        }
        guard !yours.isEmpty || !removedHere.isEmpty else { return [] }
        var state = state
        var found: [OverriddenChange] = []
        func tell(_ change: OverriddenChange) {
            found.removeAll { $0.id == change.id && $0.kind.sameField(as: change.kind) }
            found.append(change)
        }
        for event in incoming {
            let title = event.body.presentID.flatMap { state.present($0)?.present.title }
            state.apply(event)
            guard let id = event.body.presentID, let title else { continue }
            switch event.body {
            case .presentEdited(_, let changes):
                for change in changes {
                    if let mine = yours[id]?.first(where: { $0.sameField(as: .field(change)) }), mine != .field(change) {
                        let now = state.present(id)?.present.title ?? title
                        tell(OverriddenChange(id: id, title: now, kind: .replaced(yours: mine, winning: .field(change))))
                    }
                }
            case .presentStatusChanged(_, let status):
                if let mine = yours[id]?.first(where: { $0.sameField(as: .status(status)) }), mine != .status(status) {
                    tell(OverriddenChange(id: id, title: title, kind: .replaced(yours: mine, winning: .status(status))))
                }
            case .presentRemoved:
                for mine in yours[id] ?? [] { tell(OverriddenChange(id: id, title: title, kind: .removed(yours: mine))) }
            case .presentRestored:
                if removedHere.contains(id) { tell(OverriddenChange(id: id, title: title, kind: .broughtBack)) }
            default:
                break
            }
        }
        return found
    }
}

extension PresentChangeValue {
    /// Whether both set the same field (or both the status).
    func sameField(as other: PresentChangeValue) -> Bool {
        switch (self, other) {
        case (.field(let mine), .field(let theirs)): mine.field == theirs.field
        case (.status, .status): true
        default: false
        }
    }
}

extension OverriddenChange.Kind {
    /// Whether both are about the same field of a present (a later one replaces the earlier).
    public func sameField(as other: OverriddenChange.Kind) -> Bool {
        switch (self, other) {
        case (.replaced(let mine, _), .replaced(let theirs, _)): mine.sameField(as: theirs)
        case (.removed(let mine), .removed(let theirs)): mine.sameField(as: theirs)
        case (.broughtBack, .broughtBack): true
        default: false
        }
    }
}
