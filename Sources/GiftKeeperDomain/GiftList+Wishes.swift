import OrderedCollections

/// A household's wish lists, claims and shared presents (SPEC §13), as facts the list folds
/// and commands decide. Names are members' names as the household knows them; which
/// member may see which event is the sealing's business (a claim goes to everyone but the
/// wisher), so a member's list holds only the claims they may know of.
extension GiftList {
    /// The wishes on `member`'s list (compared folded), in id order.
    public func wishes(of member: String) -> [Wish] {
        let key = foldedName(member)
        return wishes.values.filter { foldedName($0.wisher) == key }
    }

    /// What `giver` pays of `present`'s price: all of it when they plan it alone (no
    /// givers set), their even share when they give it with others (the remainder of the
    /// division to the first givers, cent by cent), nothing when they are not a giver.
    public func share(of present: Present, for giver: String) -> Money? {
        guard let price = present.price else { return nil }
        guard let together = givers[present.id], !together.isEmpty else { return price }
        let key = foldedName(giver)
        guard let place = together.firstIndex(where: { foldedName($0) == key }) else { return Money(minorUnits: 0) }
        let count = Int64(together.count)
        let (each, left) = price.minorUnits.quotientAndRemainder(dividingBy: count)
        return Money(minorUnits: each + (Int64(place) < left ? 1 : 0))
    }

    /// What this list's owner (``accountName``) pays of `present`: what budgets and the
    /// summary count. The whole price unless the present has givers.
    public func ownShare(of present: Present) -> Money? {
        givers[present.id] == nil ? present.price : share(of: present, for: accountName ?? "")
    }

    /// This list with new presents and wishes numbered from `first` on (at the least). In a
    /// household each member folds only what they may read, so a number one member has not
    /// seen may be another's; numbering from the journal's next frame keeps them apart.
    public func numbering(from first: UInt64) -> GiftList {
        var list = self
        list.nextPresentNumber = max(nextPresentNumber, first)
        list.nextWishNumber = max(nextWishNumber, first)
        return list
    }

    // MARK: Folding

    mutating func applyHousehold(_ body: EventBody) {
        switch body {
        case .wishAdded(let wish):
            // A removed wish's id comes back only with the wish (an undone removal): new
            // wishes take numbers past every id used.
            guard wishes[wish.id] == nil else { return }
            removedWishes[wish.id] = nil
            let index = wishes.keys.firstIndex { $0.number > wish.id.number } ?? wishes.count
            wishes.updateValue(wish, forKey: wish.id, insertingAt: index)
            nextWishNumber = max(nextWishNumber, wish.id.number == .max ? .max : wish.id.number + 1)
        case .wishRemoved(let id):
            guard let wish = wishes.removeValue(forKey: id) else { return }
            removedWishes[id] = wish
        case .wishClaimed(let id, let claimer, let present):
            // The first claim in journal order holds; a later one (made before its device
            // saw the first) is told as such by ``rebase(_:onto:)`` and changes nothing.
            guard claims[id] == nil else { return }
            claims[id] = WishClaim(claimer: claimer, present: present)
        case .wishUnclaimed(let id, let claimer):
            guard let claim = claims[id], foldedName(claim.claimer) == foldedName(claimer) else { return }
            claims[id] = nil
        case .giversSet(let id, let names):
            givers[id] = names.isEmpty ? nil : names
        default:
            break
        }
    }

    // MARK: Deciding

    /// `names` as ``Change/setGivers(id:givers:)`` keeps them: each checked as a name,
    /// the second spelling of one (compared folded) left out.
    public func checkedGivers(_ names: [String]) throws(DomainError) -> [String] {
        var seen: Set<String> = []
        var kept: [String] = []
        for name in names {
            let name = try Self.checked(name, .name, allowEmpty: false)
            if seen.insert(foldedName(name)).inserted { kept.append(name) }
        }
        return kept
    }

    static func decidedHousehold(_ change: Change, at: Timestamp, state: GiftList) throws(DomainError) -> [EventBody] {
        switch change {
        case .addWish(let wisher, let title, let notes, let price, let url, let suggestedBy):
            let wisher = try checked(wisher, .name, allowEmpty: false)
            let suggestedBy = try checked(suggestedBy, .name, allowEmpty: true)
            guard let id = WishID(number: state.nextWishNumber), state.wishes[id] == nil else { throw .wishIDsExhausted }
            let wish = Wish(
                id: id, wisher: wisher, title: try checked(title, .title, allowEmpty: false),
                notes: try checked(notes, .notes, allowEmpty: true, trim: false), price: price,
                url: try checked(url, .url, allowEmpty: true),
                suggestedBy: state.foldedName(suggestedBy) == state.foldedName(wisher) ? "" : suggestedBy)
            return [.wishAdded(wish)]
        case .removeWish(let id):
            _ = try state.wish(id)
            return [.wishRemoved(id: id)]
        case .claimWish(let id, let claimer):
            let wish = try state.wish(id)
            let claimer = try checked(claimer, .name, allowEmpty: false)
            guard state.foldedName(claimer) != state.foldedName(wish.wisher) else { throw .ownWish(id) }
            if let claim = state.claims[id] { throw .wishAlreadyClaimed(id, by: claim.claimer) }
            guard let present = PresentID(number: state.nextPresentNumber), state.present(present) == nil else {
                throw .presentIDsExhausted
            }
            return [
                .presentAdded(
                    id: present, recipient: state.recipientSpelling(wish.wisher), title: wish.title, notes: wish.notes,
                    price: wish.price, occasion: "", url: wish.url),
                .wishClaimed(id: id, claimer: claimer, present: present),
            ]
        case .unclaimWish(let id, let claimer):
            _ = try state.wish(id)
            guard let claim = state.claims[id], state.foldedName(claim.claimer) == state.foldedName(claimer) else {
                throw .notYourClaim(id)
            }
            return [.wishUnclaimed(id: id, claimer: claim.claimer)]
                + (state.presents[claim.present] == nil ? [] : [.presentRemoved(id: claim.present)])
        case .setGivers(let id, let names):
            _ = try current(id, in: state)
            let kept = try state.checkedGivers(names)
            return (state.givers[id] ?? []) == kept ? [] : [.giversSet(id: id, givers: kept)]
        default:
            return []
        }
    }

    /// The wish `id`, current.
    func wish(_ id: WishID) throws(DomainError) -> Wish {
        guard let wish = wishes[id] else { throw .unknownWish(id) }
        return wish
    }

    // MARK: Undoing

    /// What undoing `body` needs of this state, copied into `slice` (``undoSnapshot(for:)``).
    func snapshotHousehold(of body: EventBody, into slice: inout GiftList) {
        switch body {
        case .wishAdded(let wish): slice.wishes[wish.id] = wishes[wish.id]
        case .wishRemoved(let id): slice.wishes[id] = wishes[id]
        case .wishClaimed(let id, _, _), .wishUnclaimed(let id, _): slice.claims[id] = claims[id]
        case .giversSet(let id, _): slice.givers[id] = givers[id]
        default: break
        }
    }

    /// The event that reverses `body` on this (current) state, given the state `before`
    /// it; nil when nothing is left to reverse.
    func householdCompensation(for body: EventBody, before: GiftList) -> EventBody? {
        switch body {
        case .wishAdded(let wish):
            return wishes[wish.id] == nil ? nil : .wishRemoved(id: wish.id)
        case .wishRemoved(let id):
            guard let old = before.wishes[id], wishes[id] == nil else { return nil }
            return .wishAdded(old)
        case .wishClaimed(let id, let claimer, _):
            guard let claim = claims[id], foldedName(claim.claimer) == foldedName(claimer) else { return nil }
            return .wishUnclaimed(id: id, claimer: claim.claimer)
        case .wishUnclaimed(let id, _):
            guard let old = before.claims[id], claims[id] == nil else { return nil }
            return .wishClaimed(id: id, claimer: old.claimer, present: old.present)
        case .giversSet(let id, _):
            let old = before.givers[id] ?? []
            return (givers[id] ?? []) == old ? nil : .giversSet(id: id, givers: old)
        default:
            return nil
        }
    }
}
