package import GiftKeeperDomain
package import GiftKeeperSealing
import OrderedCollections

/// Which audience a household member's events are sealed for (SPEC §13), decided from the
/// events themselves and the member's state before them: the rule the commands follow.
///
/// - A present, a claim, an unclaim, givers, a budget or a profile *about* a member (their
///   name, folded, is a recipient's, a wisher's or a scope's, or a person's linked to them
///   at admission: ``ProfileField/member``) goes to everyone but them.
/// - A wish of my own, an occasion, the currency, or anything about someone outside the
///   household goes to everyone; a wish suggested for another member to everyone but them.
/// - `--private`, sign-ins and sign-outs, exports and password changes go to me alone.
/// - Where the events are about me (a present I plan for myself), about two members at
///   once (a present moved from Bob to Carol) or about a present or wish this state does
///   not hold, they go to me alone too: no narrower audience keeps every surprise, and a
///   wider one would spoil one. Presents for two members at once come later (SPEC §13).
package enum HouseholdAudiences {
    /// The audience of `events`, decided by `me` on `state`, where `members` names each
    /// member as the household knows them and `unnamed` are the members who have not signed
    /// a name this member can read yet (a newcomer): a name no named member goes by may be
    /// theirs, so what is about it is kept from them too.
    package static func audience(
        of events: [Event], privately: Bool, me: MemberID, members: [MemberID: String], unnamed: Set<MemberID> = [],
        state: GiftList
    ) -> Audience {
        guard !privately else { return .only(me) }
        var byName: [String: MemberID] = [:]
        for (id, name) in members { byName[state.foldedName(name)] = id }
        var about: Set<MemberID> = []
        // Each event read on the state the ones before it made: a present added and given
        // together in one change is about its recipient in both events.
        var running = state
        for event in events {
            guard let names = concerned(event.body, me: me, members: members, state: running) else { return .only(me) }
            for name in names {
                let key = state.foldedName(name)
                // A person linked to a member at admission (`--recipient`) is that member;
                // linked to a name no member goes by now, only a newcomer may be them, and
                // with none, what is about them stays with its author.
                let linked = running.profiles[key]?[.member] ?? ""
                if let id = byName[key] ?? byName[state.foldedName(linked)] {
                    about.insert(id)
                } else if linked.isEmpty || !unnamed.isEmpty {
                    about.formUnion(unnamed)
                } else {
                    return .only(me)
                }
            }
            running.apply(event)
        }
        guard let first = about.first else { return .everyone }
        return about.count == 1 && first != me ? .everyoneBut(first) : .only(me)
    }

    /// The names `body` is about (recipients, wishers, scopes), or nil when it is for its
    /// author alone (sign-ins, exports) or names a present or wish `state` does not hold.
    static func concerned(_ body: EventBody, me: MemberID, members: [MemberID: String], state: GiftList) -> [String]? {
        func recipient(_ id: PresentID) -> [String]? { state.present(id).map { [$0.present.recipient] } }
        func wisher(_ id: WishID) -> [String]? { state.wishes[id].map { [$0.wisher] } }
        switch body {
        case .presentAdded(_, let recipient, _, _, _, _, _, _):
            return [recipient]
        case .presentImported(let present):
            return [present.recipient]
        case .presentEdited(let id, let changes):
            let moved = changes.compactMap { change -> String? in
                if case .recipient(let name) = change { name } else { nil }
            }
            return recipient(id).map { $0 + moved }
        case .presentStatusChanged(let id, _), .presentRemoved(let id), .presentRestored(let id), .giversSet(let id, _):
            return recipient(id)
        case .wishAdded(let wish):
            // My own wish is for everyone to see; a suggestion for another, all but them.
            let mine = members[me].map { state.foldedName($0) == state.foldedName(wish.wisher) } ?? false
            return mine ? [] : [wish.wisher]
        case .wishRemoved(let id):
            guard let wish = state.wishes[id] else { return nil }
            let mine = members[me].map { state.foldedName($0) == state.foldedName(wish.wisher) } ?? false
            return mine ? [] : [wish.wisher]
        case .wishClaimed(let id, _, _), .wishUnclaimed(let id, _):
            return wisher(id)
        case .budgetSet(let budget):
            return budget.scope.recipient.map { [$0] } ?? []
        case .budgetCleared(let scope):
            return scope.recipient.map { [$0] } ?? []
        case .profileFieldSet(let recipient, .member, let member):
            return [recipient, member]
        case .profileFieldSet(let recipient, _, _):
            return [recipient]
        case .occasionAdded, .occasionRemoved, .occasionClosed, .currencySet:
            return []
        case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported:
            return nil
        }
    }
}
