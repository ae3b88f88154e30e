import OrderedCollections

/// How a change made on one device meets the changes another device made first (SPEC §12),
/// told to the person in one line each.
public enum Resolution: Hashable, Sendable {
    /// A present added here took an id that another device gave a present meanwhile: it
    /// has a new one.
    case renumbered(from: PresentID, to: PresentID, title: String)
    /// A change made here to a present another device removed brought the present back.
    case restored(PresentID, title: String)
    /// A change made here that another device had already made (a removal, a restore): it
    /// is not recorded twice.
    case alreadyDone(EventBody)
    /// A wish added here took an id another member's wish took meanwhile: it has a new one.
    case wishRenumbered(from: WishID, to: WishID, title: String)
    /// A wish claimed here was claimed first by `by`: this claim holds nothing (its present
    /// stays on the list, planned without the claim).
    case claimedFirst(WishID, by: String)
}

extension GiftList {
    /// The events `pending` (decided on this device, not yet shared) decided again after
    /// the changes `state` already holds (another device's, first in the shared journal):
    ///
    /// - adds never collide: an id taken meanwhile is replaced by the next free one, in
    ///   the add and in every later pending event about it;
    /// - edits are per field (an edit lists only the fields it changed) and, coming later
    ///   in journal order, win over the other device's;
    /// - a change to a present removed meanwhile restores it first;
    /// - a removal or restore already made meanwhile is not repeated.
    ///
    /// Every such resolution is returned, in order, to be told. Pure: the same inputs give
    /// the same events on every device.
    public static func rebase(_ pending: [Event], onto state: GiftList) -> (events: [Event], resolutions: [Resolution]) {
        var renumbering = Renumbering()
        return rebase(pending, onto: state, hiddenThrough: 0, renumbering: &renumbering)
    }

    /// The new ids a rebase gave pending adds, carried from one change to the next when a
    /// household member's offline changes are decided again one at a time.
    public struct Renumbering: Sendable {
        var presents: [PresentID: PresentID] = [:]
        var wishes: [WishID: WishID] = [:]

        public init() {}

        /// Takes on the ids a rebase gave `pending`'s adds when it went before as `sent` (its
        /// events as the shared journal holds them): a rebase keeps every add, in order.
        public mutating func learn(pending: [Event], sent: [Event]) {
            let added = sent.filter(\.body.isAdd)
            for (mine, theirs) in zip(pending.filter(\.body.isAdd), added) {
                switch (mine.body, theirs.body) {
                case (.presentAdded(let old, _, _, _, _, _, _, _), .presentAdded(let new, _, _, _, _, _, _, _)) where old != new:
                    presents[old] = new
                case (.presentImported(let old), .presentImported(let new)) where old.id != new.id: presents[old.id] = new.id
                case (.wishAdded(let old), .wishAdded(let new)) where old.id != new.id: wishes[old.id] = new.id
                default: break
                }
            }
        }
    }

    /// ``rebase(_:onto:)`` where every number up to `hiddenThrough` counts as taken though
    /// `state` may not hold it (in a household a member folds only what they may read, so a
    /// number they do not see may be another's), with the ids `renumbering` carries in from
    /// the changes rebased before and takes on.
    public static func rebase(
        _ pending: [Event], onto state: GiftList, hiddenThrough: UInt64, renumbering: inout Renumbering
    ) -> (events: [Event], resolutions: [Resolution]) {
        var state = state
        var renumbered = renumbering.presents
        var renumberedWishes = renumbering.wishes
        defer { (renumbering.presents, renumbering.wishes) = (renumbered, renumberedWishes) }
        var events: [Event] = []
        var resolutions: [Resolution] = []
        func keep(_ event: Event) {
            state.apply(event)
            events.append(event)
        }
        for original in pending {
            var event = original
            event.body = original.body.renumbering(renumbered).renumbering(wishes: renumberedWishes)
            switch event.body {
            case .presentAdded(let id, let recipient, let title, let notes, let price, let occasion, let url, let store):
                guard state.present(id) != nil || id.number <= hiddenThrough, let fresh = PresentID(number: state.nextPresentNumber)
                else {
                    keep(event)
                    continue
                }
                renumbered[id] = fresh
                resolutions.append(.renumbered(from: id, to: fresh, title: title))
                event.body = .presentAdded(
                    id: fresh, recipient: recipient, title: title, notes: notes, price: price, occasion: occasion, url: url,
                    store: store)
                keep(event)
            case .presentImported(var present):
                if state.present(present.id) != nil || present.id.number <= hiddenThrough, let fresh = PresentID(number: state.nextPresentNumber) {
                    renumbered[present.id] = fresh
                    resolutions.append(.renumbered(from: present.id, to: fresh, title: present.title))
                    present.id = fresh
                    event.body = .presentImported(present)
                }
                keep(event)
            case .presentEdited(let id, _), .presentStatusChanged(let id, _):
                if state.presents[id] == nil, let removed = state.removedPresents[id] {
                    resolutions.append(.restored(id, title: removed.title))
                    keep(Event(at: event.at, .presentRestored(id: id)))
                }
                keep(event)
            case .presentRemoved(let id):
                if state.presents[id] == nil {
                    resolutions.append(.alreadyDone(event.body))
                } else {
                    keep(event)
                }
            case .presentRestored(let id):
                if state.presents[id] != nil {
                    resolutions.append(.alreadyDone(event.body))
                } else {
                    keep(event)
                }
            case .wishAdded(var wish):
                if state.wishes[wish.id] != nil || state.removedWishes[wish.id] != nil || wish.id.number <= hiddenThrough,
                    let fresh = WishID(number: state.nextWishNumber)
                {
                    renumberedWishes[wish.id] = fresh
                    resolutions.append(.wishRenumbered(from: wish.id, to: fresh, title: wish.title))
                    wish.id = fresh
                    event.body = .wishAdded(wish)
                }
                keep(event)
            case .wishClaimed(let id, _, _):
                if let first = state.claims[id] { resolutions.append(.claimedFirst(id, by: first.claimer)) }
                keep(event)
            case .wishRemoved(let id):
                if state.wishes[id] == nil {
                    resolutions.append(.alreadyDone(event.body))
                } else {
                    keep(event)
                }
            case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported, .occasionAdded,
                .occasionRemoved, .budgetSet, .budgetCleared, .currencySet, .occasionClosed, .profileFieldSet, .wishUnclaimed,
                .giversSet:
                // Nothing to renumber, restore or leave out.
                keep(event)
            }
        }
        return (events, resolutions)
    }
}

extension EventBody {
    /// The same fact about the present's new id, when `renumbered` gives it one.
    func renumbering(_ renumbered: [PresentID: PresentID]) -> EventBody {
        guard !renumbered.isEmpty, let id = presentID, let new = renumbered[id] else { return self }
        switch self {
        case .presentEdited(_, let changes): return .presentEdited(id: new, changes: changes)
        case .presentStatusChanged(_, let status): return .presentStatusChanged(id: new, status: status)
        case .presentRemoved: return .presentRemoved(id: new)
        case .presentRestored: return .presentRestored(id: new)
        case .giversSet(_, let givers): return .giversSet(id: new, givers: givers)
        case .wishClaimed(let wish, let claimer, _): return .wishClaimed(id: wish, claimer: claimer, present: new)
        case .presentAdded, .presentImported:
            // An add keeps the id it was given; rebase renumbers it there itself.
            return self
        case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported, .occasionAdded,
            .occasionRemoved, .budgetSet, .budgetCleared, .currencySet, .occasionClosed, .profileFieldSet, .wishAdded,
            .wishRemoved, .wishUnclaimed:
            return self
        }
    }

    /// The same fact about the wish's new id, when `wishes` gives it one (an add keeps its
    /// id: rebase renumbers it there itself).
    func renumbering(wishes: [WishID: WishID]) -> EventBody {
        switch self {
        case .wishRemoved(let id): wishes[id].map { .wishRemoved(id: $0) } ?? self
        case .wishClaimed(let id, let claimer, let present):
            wishes[id].map { .wishClaimed(id: $0, claimer: claimer, present: present) } ?? self
        case .wishUnclaimed(let id, let claimer): wishes[id].map { .wishUnclaimed(id: $0, claimer: claimer) } ?? self
        default: self
        }
    }
}

extension EventBody {
    /// Whether it adds a present or a wish (a rebase may give it a new id).
    var isAdd: Bool {
        switch self {
        case .presentAdded, .presentImported, .wishAdded: true
        default: false
        }
    }
}
