public import OrderedCollections

/// The state of one journal: the fold of its events. A value; never stored.
public struct GiftList: Hashable, Sendable {
    /// The account name; nil before `accountCreated`.
    public internal(set) var accountName: String?
    /// Sessions signed in and not yet signed out, as the events tell it: several processes
    /// (and devices) may be signed in to one journal at once (SPEC §12).
    public internal(set) var openSessions = 0
    /// Current presents in id order; removed ones are not here.
    public internal(set) var presents: OrderedDictionary<PresentID, Present> = [:]
    /// Removed presents, in order of removal, as they were when removed
    /// (`updatedAt` is the removal time), so history and errors can name them.
    public internal(set) var removedPresents: OrderedDictionary<PresentID, Present> = [:]
    /// Occasions named with `occasion add`, by folded name. (A present may name an occasion
    /// that is not here: an undated one, which ``occasionNames`` lists too.)
    public internal(set) var occasions: OrderedDictionary<String, Occasion> = [:]
    /// Budgets by the folded names of their scope.
    public internal(set) var budgets: OrderedDictionary<BudgetScope.Key, Budget> = [:]
    /// The last day closed of each closed occasion (`occasion close`), by folded name.
    public internal(set) var closedThrough: [String: CalendarDate] = [:]
    /// Recipients' profiles (`person set`), by folded name; a profile with no field left is removed.
    public internal(set) var profiles: [String: Profile] = [:]
    /// The journal's currency code, if one was set.
    public internal(set) var currency: String?
    /// The first spelling of each recipient ever named, by folded name: `mum` is shown `Mum`.
    public internal(set) var recipientSpellings: [String: String] = [:]
    /// The first spelling of each occasion ever named, by folded name.
    public internal(set) var occasionSpellings: [String: String] = [:]
    /// The folded name of each first spelling above (recipients and occasions fold alike),
    /// so that replaying a present named as first spelled (most are) looks its key up
    /// instead of folding the name again (a new string, and Foundation for accents);
    /// ``foldedName(_:)`` reads it.
    private var foldedFirstSpellings: [String: String] = [:]
    /// The ids of each recipient's presents, current and removed, by folded name: what
    /// gift memory reads on every `add`, instead of the whole list.
    public internal(set) var presentIDsByRecipient: [String: [PresentID]] = [:]
    /// The number the next added present gets; never goes down, so numbers are never reused.
    public internal(set) var nextPresentNumber: UInt64 = 1
    /// A household's wishes (SPEC §13), in id order; removed ones kept apart.
    public internal(set) var wishes: OrderedDictionary<WishID, Wish> = [:]
    public internal(set) var removedWishes: [WishID: Wish] = [:]
    /// The claims on wishes this member may know of (never on their own).
    public internal(set) var claims: [WishID: WishClaim] = [:]
    /// One more than the largest wish number used.
    public internal(set) var nextWishNumber: UInt64 = 1
    /// The members who give a present together; absent: its planner alone.
    public internal(set) var givers: [PresentID: [String]] = [:]
    /// Times of failed sign-ins reported since the last successful sign-in.
    public internal(set) var failedSignIns: [Timestamp] = []
    /// Times of the failed sign-ins reported between the two latest successful sign-ins:
    /// what the greeting "2 failed attempts since your last visit" counts right after signing in.
    public internal(set) var failedSignInsBeforeLastSignIn: [Timestamp] = []
    /// The latest successful sign-in (the current session's start when signed in).
    public internal(set) var lastSignInAt: Timestamp?
    /// The successful sign-in before ``lastSignInAt``: "your last visit".
    public internal(set) var previousSignInAt: Timestamp?
    public internal(set) var lastPasswordChangeAt: Timestamp?
    public internal(set) var lastExportAt: Timestamp?
    /// The time of the last event folded (applied or ignored).
    public internal(set) var lastEventAt: Timestamp?
    /// How many events were folded (applied or ignored).
    public internal(set) var eventCount: Int = 0

    /// The state of an empty journal.
    public init() {}

    public var hasAccount: Bool { accountName != nil }
    /// How many presents the list holds (removed ones not counted).
    public var presentCount: Int { presents.count }
    public var isSignedIn: Bool { openSessions > 0 }

    /// The current (not removed) present with `id`; clients need not import OrderedCollections.
    public subscript(id id: PresentID) -> Present? { presents[id] }

    /// The removed present that had `id`, as it was when removed.
    public func removedPresent(_ id: PresentID) -> Present? { removedPresents[id] }

    /// The present with `id`, current or removed, and whether it was removed.
    public func present(_ id: PresentID) -> (present: Present, isRemoved: Bool)? {
        if let present = presents[id] { return (present, false) }
        if let present = removedPresents[id] { return (present, true) }
        return nil
    }

    /// Reserves room for a journal of about `presentCount` presents before a big replay.
    public mutating func reserveCapacity(_ presentCount: Int) {
        presents.reserveCapacity(presentCount)
    }

    // MARK: Fold

    /// The state after `event`. Total: any event in any state gives a state, deterministically;
    /// what cannot apply (an edit of an unknown id, a second `accountCreated`, a present event
    /// before the account exists, an add of an id already used) changes nothing but the
    /// event count and ``lastEventAt``.
    public static func evolve(_ state: GiftList, _ event: Event) -> GiftList {
        var next = state
        next.apply(event)
        return next
    }

    /// Folds `events` into the state of an empty journal.
    public static func fold(_ events: some Sequence<Event>) -> GiftList {
        var state = GiftList()
        for event in events { state.apply(event) }
        return state
    }

    /// ``evolve(_:_:)`` in place, the fast path for replay.
    public mutating func apply(_ event: Event) {
        eventCount &+= 1
        lastEventAt = event.at
        guard accountName != nil else {
            if case .accountCreated(let name) = event.body { accountName = name }
            return
        }
        switch event.body {
        case .accountCreated:
            break
        case .loginSucceeded:
            openSessions += 1
            previousSignInAt = lastSignInAt
            lastSignInAt = event.at
            failedSignInsBeforeLastSignIn = failedSignIns
            failedSignIns = []
        case .loginFailed:
            failedSignIns.append(event.at)
        case .signedOut(let clean):
            // An unclean end is recorded only when no other session was live: it ends them all.
            openSessions = clean ? max(0, openSessions - 1) : 0
        case .presentAdded(let id, let recipient, let title, let notes, let price, let occasion, let url, let store):
            guard !isUsed(id) else { return }
            presents[id] = Present(
                id: id, recipient: recipient, title: title, notes: notes, price: price,
                occasion: occasion, url: url, store: store, status: .idea, createdAt: event.at, updatedAt: event.at)
            presentIDsByRecipient[rememberSpellings(recipient: recipient, occasion: occasion), default: []].append(id)
            if id.number >= nextPresentNumber {
                nextPresentNumber = id.number == .max ? .max : id.number + 1
            }
        case .presentImported(var present):
            guard !isUsed(present.id) else { return }
            // Only a given present has a given time; one without is given when last changed.
            present.givenAt = present.status == .given ? present.givenAt ?? present.updatedAt : nil
            presents[present.id] = present
            presentIDsByRecipient[rememberSpellings(recipient: present.recipient, occasion: present.occasion), default: []]
                .append(present.id)
            if present.id.number >= nextPresentNumber {
                nextPresentNumber = present.id.number == .max ? .max : present.id.number + 1
            }
        case .presentEdited(let id, let changes):
            guard !changes.isEmpty, let index = presents.index(forKey: id) else { return }
            presents.values[index].updatedAt = event.at
            let formerRecipient = presents.values[index].recipient
            for change in changes {
                presents.values[index].apply(change)
                switch change {
                case .recipient(let name): rememberSpellings(recipient: name, occasion: "")
                case .occasion(let name): rememberSpellings(recipient: "", occasion: name)
                default: break
                }
            }
            if presents.values[index].recipient != formerRecipient {
                moveInRecipientIndex(id, from: formerRecipient, to: presents.values[index].recipient)
            }
        case .presentStatusChanged(let id, let status):
            guard let index = presents.index(forKey: id) else { return }
            presents.values[index].status = status
            presents.values[index].updatedAt = event.at
            presents.values[index].givenAt = status == .given ? event.at : nil
        case .presentRemoved(let id):
            guard var present = presents.removeValue(forKey: id) else { return }
            present.updatedAt = event.at
            removedPresents[id] = present
        case .passwordChanged:
            lastPasswordChangeAt = event.at
        case .stateExported:
            lastExportAt = event.at
        case .occasionAdded(let occasion):
            let key = occasion.key
            guard !key.isEmpty else { return }
            rememberSpellings(recipient: "", occasion: occasion.name)
            var kept = occasion
            kept.name = occasionSpellings[key] ?? occasion.name
            occasions[key] = kept
        case .occasionRemoved(let name):
            occasions.removeValue(forKey: TextFolding.key(name))
        case .budgetSet(let budget):
            budgets[budget.scope.key] = budget
        case .budgetCleared(let scope):
            budgets.removeValue(forKey: scope.key)
        case .presentRestored(let id):
            guard presents.index(forKey: id) == nil, var present = removedPresents.removeValue(forKey: id) else { return }
            present.updatedAt = event.at
            // Back in id order, where it was.
            let index = presents.keys.firstIndex { $0.number > id.number } ?? presents.count
            presents.updateValue(present, forKey: id, insertingAt: index)
        case .currencySet(let code):
            currency = code.isEmpty ? nil : code
        case .occasionClosed(let name, let through):
            closedThrough[TextFolding.key(name)] = through
        case .profileFieldSet(let recipient, let field, let value):
            guard !recipient.isEmpty else { return }
            let key = rememberSpellings(recipient: recipient, occasion: "")
            profiles[key, default: Profile()][field] = value
            if profiles[key]?.isEmpty == true { profiles[key] = nil }
        case .wishAdded, .wishRemoved, .wishClaimed, .wishUnclaimed, .giversSet:
            applyHousehold(event.body)
        }
    }

    /// Whether a present, current or removed, has `id`. Looks the key up only: `presents[id]`
    /// would copy the whole present out (its strings retained and released) to be compared
    /// with nil, once per present replayed.
    private func isUsed(_ id: PresentID) -> Bool {
        presents.index(forKey: id) != nil || removedPresents.index(forKey: id) != nil
    }

    /// Files `id` under its new recipient in ``presentIDsByRecipient`` (when the folded name changed).
    private mutating func moveInRecipientIndex(_ id: PresentID, from former: String, to recipient: String) {
        let old = foldedName(former)
        let new = foldedName(recipient)
        guard old != new else { return }
        presentIDsByRecipient[old]?.removeAll { $0 == id }
        if presentIDsByRecipient[old]?.isEmpty == true { presentIDsByRecipient[old] = nil }
        presentIDsByRecipient[new, default: []].append(id)
    }

    /// Keeps the first spelling of a recipient and an occasion (empty: none). Returns the
    /// recipient's folded name.
    @discardableResult
    private mutating func rememberSpellings(recipient: String, occasion: String) -> String {
        var recipientKey = ""
        if !recipient.isEmpty {
            let key = foldedFirstSpellings[recipient] ?? TextFolding.key(recipient)
            if recipientSpellings[key] == nil {
                recipientSpellings[key] = recipient
                foldedFirstSpellings[recipient] = key
            }
            recipientKey = key
        }
        if !occasion.isEmpty {
            let key = foldedFirstSpellings[occasion] ?? TextFolding.key(occasion)
            if occasionSpellings[key] == nil {
                occasionSpellings[key] = occasion
                foldedFirstSpellings[occasion] = key
            }
        }
        return recipientKey
    }

    /// The folded name of a recipient or an occasion (``TextFolding/key(_:)``); one with
    /// accents spelled as first named is looked up, not folded by Foundation again.
    public func foldedName(_ name: String) -> String {
        TextFolding.key(name, known: foldedFirstSpellings)
    }

    /// `recipient` as first spelled (`mum` → `Mum`), or as given when new.
    public func recipientSpelling(_ recipient: String) -> String {
        recipientSpellings[foldedName(recipient)] ?? recipient
    }

    /// `occasion` as first spelled, or as given when new.
    public func occasionSpelling(_ occasion: String) -> String {
        occasion.isEmpty ? occasion : occasionSpellings[foldedName(occasion)] ?? occasion
    }
}

// MARK: - Derived views

/// How a set of presents stands: how many, what their known prices add up to (a present
/// without a price counts as nothing; the sum is exact, it cannot overflow), and how many
/// are at each status. What `list` prints under its table.
public struct PresentTotals: Hashable, Sendable {
    public private(set) var count = 0
    public private(set) var total = MoneyTotal()
    /// Every status, zero when unused.
    public private(set) var countsByStatus = Dictionary(uniqueKeysWithValues: PresentStatus.allCases.map { ($0, 0) })

    public init(_ presents: some Sequence<Present>) {
        for present in presents {
            count += 1
            if let price = present.price { total.add(price) }
            countsByStatus[present.status, default: 0] += 1
        }
    }
}

extension GiftList {
    /// How the current presents stand.
    public var totals: PresentTotals { PresentTotals(presents.values) }
}
