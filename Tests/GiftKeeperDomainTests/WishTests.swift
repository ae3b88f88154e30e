import GiftKeeperDomain
import OrderedCollections
import Testing

/// A household's wish lists, claims and shared presents (SPEC §13, issue 28 item 4) as the
/// list decides and folds them: which member may see which is the sealing's, tested there.
@Suite struct WishTests {
    /// Alice's list (two presents) with Bob's wish for a kite (w1) and Carol's suggestion for
    /// Bob (w2).
    func household() throws -> GiftList {
        try run(
            [
                .change(.addWish(wisher: "Bob", title: " Kite ", price: cents(2_500), url: "https://kites.example")),
                .change(.addWish(wisher: "Bob", title: "Chess set", suggestedBy: "Carol")),
            ], from: try aliceWithTwoPresents()
        ).state
    }

    @Test func wishesGoOnTheWishersListInIDOrder() throws {
        let state = try household()
        #expect(state.wishes(of: "BOB").map(\.id) == [wid(1), wid(2)])
        #expect(state.wishes[wid(1)]?.title == "Kite")
        #expect(state.wishes[wid(1)]?.isSuggestion == false)
        #expect(state.wishes[wid(2)]?.suggestedBy == "Carol")
        #expect(state.wishes(of: "Carol").isEmpty)
        // One's own name as the suggester is one's own wish.
        let own = try GiftList.decide(.addWish(wisher: "Carol", title: "Tea", suggestedBy: "carol"), at: at(9_000), state: state)
        #expect(own.map(\.body) == [.wishAdded(Wish(id: wid(3), wisher: "Carol", title: "Tea"))])
        #expect(throws: DomainError.emptyValue(.title)) {
            try GiftList.decide(.addWish(wisher: "Bob", title: "  "), at: at(9_000), state: state)
        }
        #expect(throws: DomainError.controlCharacter(.name, scalar: 0x1B)) {
            try GiftList.decide(.addWish(wisher: "Bob\u{1B}", title: "Kite"), at: at(9_000), state: state)
        }
        #expect(WishID(parsing: "W12")?.number == 12)
        for bad in ["w0", "w07", "p3", "w", "w-1", "w1 "] { #expect(WishID(parsing: bad) == nil, "\(bad)") }
    }

    @Test func wishIDsExhausted() throws {
        // Only a doctored journal can hold w18446744073709551615; the error names wishes.
        var state = try household()
        state.apply(Event(at: at(50_000), .wishAdded(Wish(id: wid(.max), wisher: "Bob", title: "Yo-yo"))))
        #expect(state.nextWishNumber == .max)
        #expect(throws: DomainError.wishIDsExhausted) {
            try GiftList.decide(.addWish(wisher: "Bob", title: "Hat"), at: at(60_000), state: state)
        }
    }

    @Test func aClaimIsAPresentForTheWisherOnTheClaimersList() throws {
        let state = try household()
        let events = try GiftList.decide(.claimWish(id: wid(1), claimer: "Carol"), at: at(9_000), state: state)
        #expect(
            events.map(\.body) == [
                .presentAdded(
                    id: pid(3), recipient: "Bob", title: "Kite", notes: "", price: cents(2_500), occasion: "",
                    url: "https://kites.example"),
                .wishClaimed(id: wid(1), claimer: "Carol", present: pid(3)),
            ])
        let claimed = try run([.change(.claimWish(id: wid(1), claimer: "Carol"))], from: state).state
        #expect(claimed.claims[wid(1)] == WishClaim(claimer: "Carol", present: pid(3)))
        #expect(throws: DomainError.wishAlreadyClaimed(wid(1), by: "Carol")) {
            try GiftList.decide(.claimWish(id: wid(1), claimer: "Alice"), at: at(9_001), state: claimed)
        }
        #expect(throws: DomainError.ownWish(wid(2))) {
            try GiftList.decide(.claimWish(id: wid(2), claimer: "bob"), at: at(9_001), state: claimed)
        }
        #expect(throws: DomainError.unknownWish(wid(9))) {
            try GiftList.decide(.claimWish(id: wid(9), claimer: "Alice"), at: at(9_001), state: claimed)
        }
        // Only the claimer gives it up, and its present goes with the claim.
        #expect(throws: DomainError.notYourClaim(wid(1))) {
            try GiftList.decide(.unclaimWish(id: wid(1), claimer: "Alice"), at: at(9_001), state: claimed)
        }
        let unclaimed = try run([.change(.unclaimWish(id: wid(1), claimer: "carol"))], from: claimed)
        #expect(unclaimed.events.map(\.body) == [.wishUnclaimed(id: wid(1), claimer: "Carol"), .presentRemoved(id: pid(3))])
        #expect(unclaimed.state.claims.isEmpty)
        #expect(unclaimed.state.presents[pid(3)] == nil)
    }

    @Test func theFirstClaimInJournalOrderHolds() throws {
        var state = try household()
        state.apply(Event(at: at(9_000), .wishClaimed(id: wid(1), claimer: "Carol", present: pid(3))))
        state.apply(Event(at: at(9_001), .wishClaimed(id: wid(1), claimer: "Alice", present: pid(4))))
        #expect(state.claims[wid(1)]?.claimer == "Carol")
        // Someone else's unclaim changes nothing.
        state.apply(Event(at: at(9_002), .wishUnclaimed(id: wid(1), claimer: "Alice")))
        #expect(state.claims[wid(1)]?.claimer == "Carol")
    }

    @Test func giversShareAPresentsPrice() throws {
        let state = try household()
        let shared = try run([.change(.setGivers(id: pid(1), givers: ["Alice", "Bob", "alice", "Carol"]))], from: state)
        #expect(shared.events.map(\.body) == [.giversSet(id: pid(1), givers: ["Alice", "Bob", "Carol"])])
        let present = try #require(shared.state.presents[pid(1)])
        let price = try #require(present.price)
        let shares = ["Alice", "Bob", "Carol"].compactMap { shared.state.share(of: present, for: $0) }
        #expect(shares.map(\.minorUnits).reduce(0, +) == price.minorUnits, "the shares add up to the price")
        #expect(Set(shares.map(\.minorUnits)).count <= 2 && shares.map(\.minorUnits).max()! - shares.map(\.minorUnits).min()! <= 1)
        #expect(shared.state.share(of: present, for: "Dave") == Money(minorUnits: 0))
        #expect(state.share(of: present, for: "Dave") == price, "planned alone: the whole price")
        // The same givers again change nothing; none at all is its planner alone.
        #expect(try GiftList.decide(.setGivers(id: pid(1), givers: ["Alice", "Bob", "Carol"]), at: at(9_100), state: shared.state).isEmpty)
        let alone = try run([.change(.setGivers(id: pid(1), givers: []))], from: shared.state).state
        #expect(alone.givers[pid(1)] == nil)
        #expect(throws: DomainError.unknownPresent(pid(99))) {
            try GiftList.decide(.setGivers(id: pid(99), givers: ["Alice"]), at: at(9_100), state: state)
        }
    }

    @Test func undoReversesEachHouseholdChange() throws {
        let start = try household()
        let changes: [Change] = [
            .addWish(wisher: "Carol", title: "Tea"),
            .removeWish(id: wid(2)),
            .claimWish(id: wid(1), claimer: "Alice"),
            .setGivers(id: pid(1), givers: ["Alice", "Bob"]),
        ]
        for change in changes {
            let done = try run([.change(change)], from: start)
            let undone = try run([.undo(change: done.events, stateBefore: start.undoSnapshot(for: done.events))], from: done.state)
            #expect(undone.state.wishes == start.wishes, "\(change)")
            #expect(undone.state.claims == start.claims, "\(change)")
            #expect(undone.state.givers == start.givers, "\(change)")
            #expect(undone.state.presents == start.presents, "\(change)")
        }
        // An unclaim undone is the claim back, with its present.
        let claimed = try run([.change(.claimWish(id: wid(1), claimer: "Alice"))], from: start).state
        let unclaimed = try run([.change(.unclaimWish(id: wid(1), claimer: "Alice"))], from: claimed)
        let back = try run(
            [.undo(change: unclaimed.events, stateBefore: claimed.undoSnapshot(for: unclaimed.events))], from: unclaimed.state
        ).state
        #expect(back.claims == claimed.claims)
        #expect(back.presents.values.map(\.title) == claimed.presents.values.map(\.title), "the claim's present restored")
    }

    @Test func offlineWishesAndClaimsMeetAnotherMembersFirst() throws {
        let start = try household()
        // Another member added w3 and claimed w1 meanwhile; this device did the same offline.
        let theirs = try run(
            [.change(.addWish(wisher: "Carol", title: "Scarf")), .change(.claimWish(id: wid(1), claimer: "Carol"))], from: start)
        let mine = try run(
            [
                .change(.addWish(wisher: "Alice", title: "Book")), .change(.removeWish(id: wid(3))),
                .change(.claimWish(id: wid(1), claimer: "Alice")), .change(.setGivers(id: pid(3), givers: ["Alice", "Bob"])),
            ], from: start)
        let (events, resolutions) = GiftList.rebase(mine.events, onto: theirs.state)
        #expect(
            resolutions == [
                .wishRenumbered(from: wid(3), to: wid(4), title: "Book"),
                .renumbered(from: pid(3), to: pid(4), title: "Kite"),
                .claimedFirst(wid(1), by: "Carol"),
            ])
        var after = theirs.state
        for event in events { after.apply(event) }
        #expect(after.wishes[wid(3)]?.title == "Scarf")
        #expect(after.wishes[wid(4)] == nil && after.removedWishes[wid(4)]?.title == "Book", "Book's removal follows it to w4")
        #expect(after.claims[wid(1)] == WishClaim(claimer: "Carol", present: pid(3)))
        #expect(after.givers[pid(4)] == ["Alice", "Bob"], "the givers follow the renumbered present")
    }
}
