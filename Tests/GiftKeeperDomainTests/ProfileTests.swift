import GiftKeeperDomain
import Testing

/// Recipients' profiles (SPEC §10.1, issue 29 item 4): one event per field, the birthday a
/// yearly occasion, undo, and the order of two devices' changes.
@Suite struct ProfileTests {
    @Test func eachChangedFieldIsOneEventUnderTheFirstSpelling() throws {
        let state = try aliceWithTwoPresents()
        let events = try GiftList.decide(
            .setProfile(recipient: "mum", changes: [.field(.sizes, " M "), .field(.likes, "tea"), .field(.likes, "garden")]),
            at: at(9_000), state: state)
        #expect(
            events.map(\.body) == [
                .profileFieldSet(recipient: "Mum", field: .sizes, value: "M"),
                .profileFieldSet(recipient: "Mum", field: .likes, value: "garden"),
            ])
        var after = state
        for event in events { after.apply(event) }
        #expect(after.profiles[after.foldedName("MUM")]?[.likes] == "garden")
        // The same values again change nothing; an empty value clears the field.
        #expect(try GiftList.decide(.setProfile(recipient: "Mum", changes: [.field(.sizes, "M")]), at: at(9_001), state: after).isEmpty)
        let cleared = try run([.change(.setProfile(recipient: "Mum", changes: [.field(.sizes, ""), .field(.likes, "")]))], from: after)
        #expect(cleared.state.profiles.isEmpty)
    }

    @Test func aBirthdayIsAYearlyOccasionNamedForThePerson() throws {
        let state = try run(
            [.change(.setProfile(recipient: "Zoë", changes: [.birthday(CalendarDate(year: 1990, month: 6, day: 2))]))],
            from: try aliceWithTwoPresents()
        ).state
        let birthday = try #require(state.birthday(of: "zoe"))
        #expect(birthday == Occasion(name: "Zoë's birthday", date: CalendarDate(year: 1990, month: 6, day: 2), isYearly: true))
        #expect(state.knowsPerson("ZOË") == false || state.people.contains("Zoë"))
        let removed = try run([.change(.setProfile(recipient: "Zoë", changes: [.birthday(nil)]))], from: state).state
        #expect(removed.birthday(of: "Zoë") == nil)
        // Removing a birthday nobody set changes nothing.
        #expect(try GiftList.decide(.setProfile(recipient: "Dad", changes: [.birthday(nil)]), at: at(9_000), state: removed).isEmpty)
    }

    @Test func fieldsFollowTheRulesOfTypedText() throws {
        let state = try aliceWithTwoPresents()
        #expect(throws: DomainError.emptyValue(.recipient)) {
            try GiftList.decide(.setProfile(recipient: "  ", changes: [.field(.likes, "tea")]), at: at(9_000), state: state)
        }
        #expect(throws: DomainError.controlCharacter(.sizes, scalar: 0x1B)) {
            try GiftList.decide(.setProfile(recipient: "Mum", changes: [.field(.sizes, "M\u{1B}[2J")]), at: at(9_000), state: state)
        }
        #expect(throws: DomainError.tooLong(.likes, limit: 2000, length: 2001)) {
            try GiftList.decide(
                .setProfile(recipient: "Mum", changes: [.field(.likes, String(repeating: "a", count: 2001))]), at: at(9_000), state: state)
        }
        // An address may span lines; a typed one-line field may not.
        _ = try GiftList.decide(.setProfile(recipient: "Mum", changes: [.field(.address, "1 High St\nTown")]), at: at(9_000), state: state)
        #expect(GiftList.ruleBroken(by: Event(at: at(1), .profileFieldSet(recipient: "Mum", field: .likes, value: "a\nb"))) != nil)
    }

    @Test func undoPutsBackWhatTheFieldsHeld() throws {
        let first = try run(
            [.change(.setProfile(recipient: "Mum", changes: [.field(.likes, "tea"), .field(.sizes, "M")]))],
            from: try aliceWithTwoPresents())
        let before = first.state
        let change = try run([.change(.setProfile(recipient: "Mum", changes: [.field(.likes, "coffee"), .field(.sizes, "")]))], from: before)
        let undone = try run([.undo(change: change.events, stateBefore: before.undoSnapshot(for: change.events))], from: change.state)
        #expect(undone.state.profiles == before.profiles)
    }

    @Test func theLaterFieldInTheJournalWinsAndOtherFieldsAreKept() throws {
        // Two devices: one sets likes, the other sizes and then likes; replayed in journal order.
        let base = try aliceWithTwoPresents()
        let state = GiftList.fold(
            [Event]()
                + [Event(at: at(5_000), .profileFieldSet(recipient: "Mum", field: .likes, value: "tea"))]
                + [Event(at: at(4_000), .profileFieldSet(recipient: "mum", field: .sizes, value: "S"))]
                + [Event(at: at(4_500), .profileFieldSet(recipient: "MUM", field: .likes, value: "coffee"))],
            from: base)
        #expect(state.profiles[state.foldedName("Mum")] == Profile([.likes: "coffee", .sizes: "S"]))
        #expect(state.people == ["Dad", "Mum"])
    }
}

extension GiftList {
    /// `events` folded onto `state`.
    fileprivate static func fold(_ events: [Event], from state: GiftList) -> GiftList {
        var folded = state
        for event in events { folded.apply(event) }
        return folded
    }
}
