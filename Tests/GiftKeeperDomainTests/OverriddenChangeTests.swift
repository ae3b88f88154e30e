import Testing

@testable import GiftKeeperDomain

/// SPEC §12: every device whose change lost is told what it was and what won. A device
/// finds it when it takes in the winning changes after its own
/// (``GiftList/overridden(own:by:state:)``).
@Suite struct OverriddenChangeTests {
    /// A list with p1 "Lego set" for Dad at 20.00.
    func list() -> GiftList {
        var state = GiftList()
        state.apply(Event(at: at(0), .accountCreated(name: "Alice")))
        state.apply(
            Event(at: at(1), .presentAdded(id: pid(1), recipient: "Dad", title: "Lego set", notes: "", price: cents(2000), occasion: "")))
        return state
    }

    func edit(_ changes: [PresentChange], at time: Int64 = 10) -> Event {
        Event(at: at(time), .presentEdited(id: pid(1), changes: changes))
    }

    @Test("an edit of the same field by another device, later in the journal, is what won; the last one is told")
    func sameFieldEdited() {
        var state = list()
        let mine = [edit([.price(cents(3000)), .notes("wrapped in red")])]
        for event in mine { state.apply(event) }
        let theirs = [edit([.price(cents(3500))], at: 20), edit([.price(cents(4000)), .store("Toys")], at: 21)]
        let found = GiftList.overridden(own: mine, by: theirs, state: state)
        #expect(
            found == [
                OverriddenChange(
                    id: pid(1), title: "Lego set", kind: .replaced(yours: .field(.price(cents(3000))), winning: .field(.price(cents(4000)))))
            ])
    }

    @Test("an edit of another field, or to the same value, undoes nothing")
    func otherFieldsStay() {
        var state = list()
        let mine = [edit([.price(cents(3000))])]
        for event in mine { state.apply(event) }
        let theirs = [edit([.notes("from the shop")], at: 20), edit([.price(cents(3000))], at: 21)]
        #expect(GiftList.overridden(own: mine, by: theirs, state: state).isEmpty)
    }

    @Test("a present changed here and removed on another device; one removed here and brought back there")
    func removedAndBroughtBack() {
        var state = list()
        let mine = [Event(at: at(10), .presentStatusChanged(id: pid(1), status: .bought))]
        for event in mine { state.apply(event) }
        let removed = GiftList.overridden(own: mine, by: [Event(at: at(20), .presentRemoved(id: pid(1)))], state: state)
        #expect(removed == [OverriddenChange(id: pid(1), title: "Lego set", kind: .removed(yours: .status(.bought)))])

        var other = list()
        let removal = [Event(at: at(10), .presentRemoved(id: pid(1)))]
        for event in removal { other.apply(event) }
        let back = [Event(at: at(20), .presentRestored(id: pid(1))), edit([.price(cents(3500))], at: 20)]
        #expect(
            GiftList.overridden(own: removal, by: back, state: other)
                == [OverriddenChange(id: pid(1), title: "Lego set", kind: .broughtBack)])
    }
}
