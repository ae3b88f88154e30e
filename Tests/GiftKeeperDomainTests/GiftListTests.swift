import GiftKeeperDomain
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@Suite struct DecideTests {
    @Test func setupCreatesTheAccountAndSignsIn() throws {
        let events = try GiftList.decide(.createAccount(name: "  Alice \n"), at: at(5), state: GiftList())
        #expect(events == [Event(at: at(5), .accountCreated(name: "Alice")), Event(at: at(5), .loginSucceeded)])
        let state = GiftList.fold(events)
        #expect(state.accountName == "Alice")
        #expect(state.isSignedIn)
        #expect(state.lastSignInAt == at(5))
    }

    @Test func addGivesTheNextIdAndTrims() throws {
        let state = try aliceWithTwoPresents()
        let events = try GiftList.decide(
            .addPresent(recipient: " Mum ", title: "\tScarf ", notes: "  keep spaces ", price: nil, occasion: " Birthday "),
            at: at(99), state: state)
        #expect(
            events == [
                Event(
                    at: at(99),
                    .presentAdded(
                        id: pid(3), recipient: "Mum", title: "Scarf", notes: "  keep spaces ", price: nil, occasion: "Birthday"))
            ])
    }

    @Test func idsAreNeverReused() throws {
        var state = try aliceWithTwoPresents()
        state = try run([.change(.removePresent(id: pid(2)))], from: state).state
        let events = try GiftList.decide(.addPresent(recipient: "Dad", title: "Pen"), at: at(10_000), state: state)
        guard case .presentAdded(let id, _, _, _, _, _, _, _) = events.first?.body else {
            Issue.record("expected presentAdded")
            return
        }
        #expect(id == pid(3))
    }

    @Test func accountAlreadyExists() throws {
        let state = try aliceWithTwoPresents()
        #expect(throws: DomainError.accountAlreadyExists) { try GiftList.decide(.createAccount(name: "Bob"), at: at(1), state: state) }
    }

    @Test(arguments: [
        Command.signIn, .recordFailedSignIn, .signOut, .changePassword, .recordExport(presentCount: 0),
        .change(.addPresent(recipient: "Mum", title: "Hat")), .change(.markPresent(id: pid(1), status: .bought)),
        .change(.removePresent(id: pid(1))), .change(.editPresent(id: pid(1), changes: [.title("x")])),
    ])
    func noAccountYet(command: Command) {
        #expect(throws: DomainError.noAccount) { try GiftList.decide(command, at: at(1), state: GiftList()) }
    }

    @Test func endUncleanSessionBeforeSetupIsNothing() throws {
        #expect(throws: DomainError.noAccount) { try GiftList.decide(.endUncleanSession, at: at(1), state: GiftList()) }
    }

    @Test(arguments: [
        Command.changePassword, .recordExport(presentCount: 2), .change(.addPresent(recipient: "Mum", title: "Hat")),
        .change(.markPresent(id: pid(1), status: .bought)), .change(.removePresent(id: pid(1))),
        .change(.editPresent(id: pid(1), changes: [.title("x")])),
    ])
    func notSignedIn(command: Command) throws {
        let locked = try run([.signOut], from: try aliceWithTwoPresents()).state
        #expect(throws: DomainError.notSignedIn) { try GiftList.decide(command, at: at(1), state: locked) }
    }

    @Test(arguments: [
        (Command.createAccount(name: " \n\t"), DomainError.InputField.name),
        (.change(.addPresent(recipient: "  ", title: "Hat")), .recipient),
        (.change(.addPresent(recipient: "Mum", title: "")), .title),
        (.change(.editPresent(id: pid(1), changes: [.title("   ")])), .title),
        (.change(.editPresent(id: pid(1), changes: [.recipient("\n")])), .recipient),
    ])
    func emptyValues(command: Command, field: DomainError.InputField) throws {
        let state = if case .createAccount = command { GiftList() } else { try aliceWithTwoPresents() }
        #expect(throws: DomainError.emptyValue(field)) { try GiftList.decide(command, at: at(1), state: state) }
    }

    @Test func emptyNotesAndOccasionAreFine() throws {
        let events = try GiftList.decide(
            .editPresent(id: pid(1), changes: [.notes(""), .occasion("  ")]), at: at(1), state: try aliceWithTwoPresents())
        #expect(events.map(\.body) == [.presentEdited(id: pid(1), changes: [.occasion("")])])
    }

    @Test func fieldsTooLong() throws {
        let state = try aliceWithTwoPresents()
        let cases: [(Command, DomainError)] = [
            (.change(.addPresent(recipient: "Mum", title: String(repeating: "é", count: 1001))), .tooLong(.title, limit: 1000, length: 1001)),
            (.change(.addPresent(recipient: String(repeating: "a", count: 201), title: "x")), .tooLong(.recipient, limit: 200, length: 201)),
            (
                .change(.addPresent(recipient: "M", title: "x", occasion: String(repeating: "o", count: 300))),
                .tooLong(.occasion, limit: 200, length: 300)
            ),
            (
                .change(.addPresent(recipient: "M", title: "x", notes: String(repeating: "n", count: 10_001))),
                .tooLong(.notes, limit: 10_000, length: 10_001)
            ),
            (.change(.editPresent(id: pid(1), changes: [.title(String(repeating: "👩‍👩‍👧", count: 1001))])), .tooLong(.title, limit: 1000, length: 1001)),
        ]
        for (command, error) in cases {
            #expect(throws: error) { try GiftList.decide(command, at: at(1), state: state) }
        }
        #expect(throws: DomainError.tooLong(.name, limit: 200, length: 201)) {
            try GiftList.decide(.createAccount(name: String(repeating: "A", count: 201)), at: at(1), state: GiftList())
        }
        // Exactly at the limit, counted in characters (a family emoji is one).
        let fits = try GiftList.decide(
            .addPresent(recipient: "Mum", title: String(repeating: "👩‍👩‍👧", count: 1000)), at: at(1), state: state)
        #expect(fits.count == 1)
    }

    /// A terminal acts on control characters and bidirectional overrides instead of showing
    /// them: no field takes them, except line breaks and tabs in notes.
    @Test(arguments: [
        (Command.createAccount(name: "Al\u{1B}[31mice"), DomainError.InputField.name, UInt32(0x1B)),
        (.change(.addPresent(recipient: "Mum", title: "Red\u{1B}]0;owned\u{7}")), .title, 0x1B),
        (.change(.addPresent(recipient: "M\u{202E}um", title: "Hat")), .recipient, 0x202E),
        (.change(.addPresent(recipient: "Mum", title: "two\nlines")), .title, 0x0A),
        (.change(.addPresent(recipient: "Mum", title: "tab\there")), .title, 0x09),
        (.change(.addPresent(recipient: "Mum", title: "Hat", occasion: "Xm\ras")), .occasion, 0x0D),
        (.change(.addPresent(recipient: "Mum", title: "Hat", notes: "bell\u{7}")), .notes, 0x07),
        (.change(.addPresent(recipient: "Mum", title: "Hat", notes: "c1\u{9B}31m")), .notes, 0x9B),
        (.change(.editPresent(id: pid(1), changes: [.title("del\u{7F}")])), .title, 0x7F),
        (.change(.editPresent(id: pid(1), changes: [.notes("isolate\u{2066}")])), .notes, 0x2066),
    ])
    func controlCharacters(command: Command, field: DomainError.InputField, scalar: UInt32) throws {
        let state = if case .createAccount = command { GiftList() } else { try aliceWithTwoPresents() }
        #expect(throws: DomainError.controlCharacter(field, scalar: scalar)) {
            try GiftList.decide(command, at: at(1), state: state)
        }
    }

    /// "At least one visible character": text of zero-width spaces, word joiners, fillers
    /// or a lone combining mark is empty too; a line separator is a line break.
    @Test(arguments: ["\u{200B}", "\u{200B}\u{200B}", "\u{2060}", "\u{2800}", "\u{034F}", "\u{3164}", " \u{200B} "])
    func invisibleTextIsEmpty(_ text: String) throws {
        let state = try aliceWithTwoPresents()
        #expect(throws: DomainError.emptyValue(.title)) {
            try GiftList.decide(.addPresent(recipient: "Mum", title: text), at: at(1), state: state)
        }
        #expect(throws: DomainError.emptyValue(.name)) {
            try GiftList.decide(.createAccount(name: text), at: at(1), state: GiftList())
        }
    }

    @Test func lineSeparatorsOnlyInNotesAndWindowsLineEndsBecomeLineFeeds() throws {
        let state = try aliceWithTwoPresents()
        #expect(throws: DomainError.controlCharacter(.title, scalar: 0x2028)) {
            try GiftList.decide(.addPresent(recipient: "Mum", title: "A\u{2028}B"), at: at(1), state: state)
        }
        let events = try GiftList.decide(
            .addPresent(recipient: "Mum", title: "Hat", notes: "one\r\ntwo\u{2029}three"), at: at(1), state: state)
        guard case .presentAdded(_, _, _, let notes, _, _, _, _)? = events.first?.body else {
            Issue.record("unexpected \(events)")
            return
        }
        #expect(notes == "one\ntwo\u{2029}three")
    }

    @Test func notesMayHoldLineBreaksAndTabsAndTextMayHoldJoinersAndMarks() throws {
        let events = try GiftList.decide(
            .addPresent(recipient: "עִבְרִית\u{200F}", title: "👩‍👩‍👧 set", notes: "line one\n\tline two"),
            at: at(1), state: try aliceWithTwoPresents())
        #expect(events.count == 1)
    }

    @Test func anImportedIDBeyondTheMaximumIsRefused() throws {
        let state = try aliceWithTwoPresents()
        let largest = try #require(PresentID(number: PresentID.maximumImported))
        let tooLarge = try #require(PresentID(number: PresentID.maximumImported + 1))
        let present = { (id: PresentID) in Present(id: id, recipient: "Mum", title: "Hat", createdAt: at(1), updatedAt: at(1)) }
        #expect(try GiftList.decide(.importPresent(present(largest)), at: at(2), state: state).count == 1)
        #expect(throws: DomainError.importedIDTooLarge(tooLarge)) {
            try GiftList.decide(.importPresent(present(tooLarge)), at: at(2), state: state)
        }
        #expect(throws: DomainError.importedIDTooLarge(try #require(PresentID(number: .max)))) {
            try GiftList.decide(.importPresent(present(try #require(PresentID(number: .max)))), at: at(2), state: state)
        }
    }

    @Test func unknownAndRemovedPresents() throws {
        let state = try run([.change(.removePresent(id: pid(2)))], from: try aliceWithTwoPresents()).state
        for command in [
            Command.change(.markPresent(id: pid(9), status: .given)), .change(.removePresent(id: pid(9))),
            .change(.editPresent(id: pid(9), changes: [.title("x")])),
        ] {
            #expect(throws: DomainError.unknownPresent(pid(9))) { try GiftList.decide(command, at: at(1), state: state) }
        }
        for command in [
            Command.change(.markPresent(id: pid(2), status: .given)), .change(.removePresent(id: pid(2))),
            .change(.editPresent(id: pid(2), changes: [.title("x")])),
        ] {
            #expect(throws: DomainError.presentRemoved(pid(2))) { try GiftList.decide(command, at: at(1), state: state) }
        }
        #expect(state.present(pid(2))?.isRemoved == true)
        #expect(state.removedPresent(pid(2))?.title == "Book")
    }

    @Test func noChanges() throws {
        #expect(throws: DomainError.noChanges(pid(1))) {
            try GiftList.decide(.editPresent(id: pid(1), changes: []), at: at(1), state: try aliceWithTwoPresents())
        }
    }

    @Test func idsExhausted() throws {
        // Only a doctored journal can hold p18446744073709551615.
        var state = try aliceWithTwoPresents()
        state.apply(Event(at: at(50_000), .presentAdded(id: pid(.max), recipient: "X", title: "Y", notes: "", price: nil, occasion: "")))
        #expect(state.nextPresentNumber == .max)
        #expect(throws: DomainError.presentIDsExhausted) {
            try GiftList.decide(.addPresent(recipient: "Mum", title: "Hat"), at: at(60_000), state: state)
        }
    }

    @Test func alreadySatisfiedCommandsYieldNothing() throws {
        let state = try aliceWithTwoPresents()
        // A sign-in is never satisfied already: another process may be signed in (SPEC §12).
        let second = try GiftList.decide(.signIn, at: at(1), state: state)
        #expect(second.map(\.type) == [.loginSucceeded])
        #expect(second.reduce(state) { GiftList.evolve($0, $1) }.openSessions == 2)
        #expect(try GiftList.decide(.endUncleanSession, at: at(1), state: try run([.signOut], from: state).state) == [])
        #expect(try GiftList.decide(.signOut, at: at(1), state: try run([.signOut], from: state).state) == [])
        #expect(try GiftList.decide(.markPresent(id: pid(1), status: .idea), at: at(1), state: state) == [])
        #expect(
            try GiftList.decide(
                .editPresent(id: pid(1), changes: [.title(" Blue scarf "), .price(cents(2500)), .notes("")]), at: at(1), state: state) == [])
    }

    @Test func editKeepsOnlyRealChangesLastValueWins() throws {
        let state = try aliceWithTwoPresents()
        let events = try GiftList.decide(
            .editPresent(id: pid(1), changes: [.price(nil), .title("Red scarf"), .price(cents(3000)), .recipient("Mum")]),
            at: at(7_000), state: state)
        #expect(events.map(\.body) == [.presentEdited(id: pid(1), changes: [.price(cents(3000)), .title("Red scarf")])])
        let after = GiftList.evolve(state, events[0])
        #expect(after[id: pid(1)]?.title == "Red scarf")
        #expect(after[id: pid(1)]?.price == cents(3000))
        #expect(after[id: pid(1)]?.updatedAt == at(7_000))
        #expect(after[id: pid(1)]?.createdAt != at(7_000))
    }

    @Test func sessionsAndFailedSignIns() throws {
        var state = try aliceWithTwoPresents()
        let firstSignIn = try #require(state.lastSignInAt)
        state = try run([.signOut, .recordFailedSignIn, .recordFailedSignIn], from: state).state
        #expect(state.failedSignIns.count == 2)
        #expect(try GiftList.decide(.endUncleanSession, at: at(1), state: state) == [])
        state = try run([.signIn], from: state).state
        #expect(state.failedSignIns.isEmpty)
        #expect(state.failedSignInsBeforeLastSignIn.count == 2)
        #expect(state.previousSignInAt == firstSignIn)
        // A crash leaves the session open; the service records it before the next sign-in.
        let unclean = try GiftList.decide(.endUncleanSession, at: at(90_000), state: state)
        #expect(unclean.map(\.body) == [.signedOut(clean: false)])
        #expect(!GiftList.evolve(state, unclean[0]).isSignedIn)
    }

    @Test func passwordAndExport() throws {
        let (state, events) = try run([.changePassword, .recordExport(presentCount: 2)], from: try aliceWithTwoPresents())
        #expect(events.map(\.body) == [.passwordChanged, .stateExported(presentCount: 2)])
        #expect(state.lastPasswordChangeAt == events[0].at)
        #expect(state.lastExportAt == events[1].at)
    }
}

@Suite struct EvolveTests {
    @Test func ignoresWhatCannotApply() throws {
        let before = [
            Event(at: at(1), .presentAdded(id: pid(1), recipient: "Mum", title: "Hat", notes: "", price: nil, occasion: "")),
            Event(at: at(2), .loginSucceeded),
        ]
        var state = GiftList.fold(before)
        #expect(state.accountName == nil && state.presents.isEmpty && !state.isSignedIn && state.eventCount == 2)

        state = try aliceWithTwoPresents()
        let snapshot = state
        for body: EventBody in [
            .accountCreated(name: "Mallory"),
            .presentAdded(id: pid(1), recipient: "X", title: "dup", notes: "", price: nil, occasion: ""),
            .presentEdited(id: pid(9), changes: [.title("x")]), .presentEdited(id: pid(1), changes: []),
            .presentStatusChanged(id: pid(9), status: .given), .presentRemoved(id: pid(9)),
        ] {
            state.apply(Event(at: at(77), body))
        }
        #expect(state.presents == snapshot.presents)
        #expect(state.accountName == "Alice")
        #expect(state.eventCount == snapshot.eventCount + 6)
        #expect(state.lastEventAt == at(77))
    }

    @Test func derivedViews() throws {
        let state = try run(
            [
                .change(.addPresent(recipient: "alice", title: "Mug", price: cents(1000))),
                .change(.addPresent(recipient: "Mum", title: "Gloves", price: cents(1550))),
                .change(.markPresent(id: pid(2), status: .bought)),
                .change(.removePresent(id: pid(4))),
            ], from: try aliceWithTwoPresents()
        ).state
        let totals = state.totals
        #expect(totals.count == 3)
        #expect(totals.countsByStatus == [.idea: 2, .bought: 1, .wrapped: 0, .given: 0])
        #expect(totals.total == MoneyTotal(cents(3500)))
        // Over any set of presents: one recipient's (what `list Mum` totals).
        let mum = PresentTotals(state.presents.values.filter { $0.recipient == "Mum" })
        #expect(mum.count == 1 && mum.total == MoneyTotal(cents(2500)) && mum.countsByStatus[.idea] == 1)
        #expect(PresentTotals([Present]()).total == MoneyTotal())
        #expect(state.removedPresents.keys.elementsEqual([pid(4)]))
    }
}

@Suite struct ImportTests {
    @Test func recreatesAPresentWithItsIdAndStatus() throws {
        let state = try run([.createAccount(name: "Bob")]).state
        let exported = Present(
            id: pid(7), recipient: " Mum ", title: "Blue scarf", notes: " soft ", price: cents(2500), occasion: "Xmas",
            status: .wrapped, createdAt: at(1), updatedAt: at(2))
        let events = try GiftList.decide(.importPresent(exported), at: at(9_000), state: state)
        // Texts are checked and trimmed like addPresent's (notes kept as typed); the id,
        // status and the times the present had in the export are kept.
        #expect(
            events.map(\.body) == [
                .presentImported(
                    Present(
                        id: pid(7), recipient: "Mum", title: "Blue scarf", notes: " soft ", price: cents(2500), occasion: "Xmas",
                        status: .wrapped, createdAt: at(1), updatedAt: at(2)))
            ])
        let after = events.reduce(state, GiftList.evolve)
        #expect(after[id: pid(7)]?.status == .wrapped)
        #expect(after[id: pid(7)]?.createdAt == at(1))
        #expect(after[id: pid(7)]?.updatedAt == at(2))
        #expect(after.nextPresentNumber == 8)
        // Importing it again would duplicate it: refused.
        #expect(throws: DomainError.presentAlreadyExists(pid(7))) {
            try GiftList.decide(.importPresent(exported), at: at(9_001), state: after)
        }
        var idea = exported
        idea.id = pid(1)
        idea.status = .idea
        #expect(try GiftList.decide(.importPresent(idea), at: at(9_002), state: after).count == 1)
        idea.title = " "
        #expect(throws: DomainError.emptyValue(.title)) { try GiftList.decide(.importPresent(idea), at: at(9_003), state: after) }
    }

    @Test func needsASignedInSession() throws {
        let locked = try run([.createAccount(name: "Bob"), .signOut]).state
        let present = Present(id: pid(1), recipient: "Mum", title: "Hat", createdAt: at(1), updatedAt: at(1))
        #expect(throws: DomainError.notSignedIn) { try GiftList.decide(.importPresent(present), at: at(2), state: locked) }
    }

    /// The import decides each present once: `checkedImport` (no state) and then
    /// `decideImport(ofChecked:)` (the state's rules) give what `decide` gives, or its refusal.
    @Test func checkingOnceThenAgainstTheStateIsDecide() throws {
        let signedIn = try run([.createAccount(name: "Bob"), .change(.addPresent(recipient: "Mum", title: "Hat"))]).state
        let locked = try run([.createAccount(name: "Bob"), .signOut]).state
        let presents = [
            Present(id: pid(7), recipient: " Mum ", title: "Blue scarf ", notes: " soft ", createdAt: at(1), updatedAt: at(2)),
            Present(id: pid(1), recipient: "Mum", title: "Hat", createdAt: at(1), updatedAt: at(1)),
            Present(id: pid(8), recipient: "Mum", title: " \u{200B}", createdAt: at(1), updatedAt: at(1)),
            Present(id: pid(9), recipient: "Mum\u{7}", title: "Hat", createdAt: at(1), updatedAt: at(1)),
            Present(id: pid(10), recipient: "Léa", title: "Café ", createdAt: at(1), updatedAt: at(1)),
        ]
        for state in [signedIn, locked, GiftList()] {
            for present in presents {
                let decided = Result { () throws(DomainError) in try GiftList.decide(.importPresent(present), at: at(5), state: state) }
                let twoSteps = Result { () throws(DomainError) in
                    [try GiftList.decideImport(ofChecked: try GiftList.checkedImport(present), at: at(5), state: state)]
                }
                switch (decided, twoSteps) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure, .failure): break
                default: Issue.record("\(present.id): decide gave \(decided), the two steps \(twoSteps)")
                }
            }
        }
    }
}

/// Gift memory's likeness rules (SPEC §10), for ASCII titles and others alike.
@Suite struct SimilarTitleTests {
    @Test func similarTitlesAreFoundBySharedFoldedWordsMostAlikeFirst() throws {
        let state = try run([
            .createAccount(name: "Alice"),
            .change(.addPresent(recipient: "Mum", title: "Crème brûlée set")),  // p1: accents
            .change(.addPresent(recipient: "Mum", title: "Wool socks, grey")),  // p2
            .change(.addPresent(recipient: "mum", title: "SOCKS socks for hiking")),  // p3: a word twice
            .change(.addPresent(recipient: "Mum", title: "Tea")),  // p4: no word of three letters shared
            .change(.addPresent(recipient: "Dad", title: "Wool socks")),  // p5: another person
            .change(.addPresent(recipient: "Mum", title: "Brulee torch")),  // p6
        ]).state
        #expect(state.similarPresentIDs(to: "wool socks", for: "MUM") == [pid(2), pid(3)])
        #expect(state.similarPresentIDs(to: "Creme Brulee", for: "Mum") == [pid(1), pid(6)])
        #expect(state.similarPresentIDs(to: "crème BRÛLÉE SET", for: "Mum") == [pid(1), pid(6)])
        #expect(state.similarPresentIDs(to: "tea", for: "Mum") == [pid(4)])  // the same title, however short
        #expect(state.similarPresentIDs(to: "Kite", for: "Mum").isEmpty)
        // "Wool socks" shares one of "Socks for hiking"'s three words: not half of either.
        #expect(!state.similarPresentIDs(to: "Red hiking boots for winter", for: "Mum").contains(pid(2)))
    }

    /// What `add` asks for: the few most alike, in the same order as the whole list, and how many in all.
    @Test func theFewMostAlikeAreTheFirstOfAllOfThem() throws {
        var commands: [Command] = [.createAccount(name: "Alice")]
        var random = TestRandom()
        for number in 1...40 {
            let words = ["wool", "socks", "grey", "warm", "hiking", "striped"].shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random))
            commands.append(.change(.addPresent(recipient: number % 3 == 0 ? "Dad" : "Mum", title: words.joined(separator: " "))))
        }
        let state = try run(commands).state
        for title in ["wool socks", "warm grey socks", "striped", "hiking boots", "tea"] {
            let all = state.similarPresentIDs(to: title, for: "Mum")
            for keeping in [0, 1, 3, 100] {
                let few = state.similarPresents(to: title, for: "Mum", keeping: keeping)
                #expect(few.mostAlike == Array(all.prefix(keeping)), random.comment("\(title), \(keeping)"))
                #expect(few.count == all.count, random.comment())
            }
        }
    }

    /// Gift memory scans the person's presents through the list's index: whatever happened
    /// to the list (titles edited, presents moved to another person, removed, given,
    /// restored), it finds what a plain reference over every present finds.
    @Test func similarPresentsAreWhatAPlainReferenceFinds() throws {
        var bits = Bits(state: 26)
        let words = ["wool", "socks", "grey", "warm", "hiking", "crème", "brûlée"]
        let people = ["Mum", "mum ", "Dad", "Zoë"]
        var state = try run([.createAccount(name: "Alice")]).state
        for step in 0..<400 {
            let title = (0...bits.below(3)).map { _ in bits.pick(words) }.joined(separator: " ")
            let person = bits.pick(people)
            let ids = Array(state.presents.keys) + Array(state.removedPresents.keys)
            let command: Command
            switch (ids.isEmpty ? nil : bits.pick(ids), bits.below(7)) {
            case (let id?, 0): command = .change(.editPresent(id: id, changes: [.title(title)]))
            case (let id?, 1): command = .change(.editPresent(id: id, changes: [.recipient(person)]))
            case (let id?, 2): command = .change(.removePresent(id: id))
            case (let id?, 3): command = .change(.markPresent(id: id, status: .given))
            case (let id?, 4): command = .change(.restorePresent(id: id))
            default: command = .change(.addPresent(recipient: person, title: title))
            }
            // Commands the rules refuse (a removed present edited …) change nothing.
            state = (try? run([command], from: state).state) ?? state
            let found = state.similarPresents(to: title, for: person, keeping: 3)
            let reference = Self.similar(to: title, for: person, in: state)
            #expect(found.mostAlike == Array(reference.prefix(3)), "seed 26, step \(step): \(command)")
            #expect(found.count == reference.count, "seed 26, step \(step): \(command)")
        }
    }

    /// The rule spelled plainly: every present of the person (removed ones only when
    /// given) whose title is the same folded, or shares at least half of the shorter
    /// title's words of three letters or more; the same title first, then the larger share,
    /// then the older present.
    static func similar(to title: String, for recipient: String, in state: GiftList) -> [PresentID] {
        func words(_ text: String) -> Set<String> {
            Set(TextFolding.key(text).split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 3 })
        }
        let candidates = Array(state.presents.values) + state.removedPresents.values.filter { $0.status == .given }
        var found: [(id: PresentID, likeness: Double)] = []
        for present in candidates where TextFolding.key(present.recipient) == TextFolding.key(recipient) {
            if TextFolding.key(present.title) == TextFolding.key(title) {
                found.append((present.id, 2))
                continue
            }
            let fewer = min(words(title).count, words(present.title).count)
            let shared = words(title).intersection(words(present.title)).count
            if fewer > 0, shared > 0, shared * 2 >= fewer { found.append((present.id, Double(shared) / Double(fewer))) }
        }
        return found.sorted { ($0.likeness, $1.id.number) > ($1.likeness, $0.id.number) }.map(\.id)
    }

    @Test func aTitleComparesEqualToItsOwnTermsWhateverItsScript() {
        for title in ["Blue scarf", "Zoë's blue scarf", "Écharpe bleue", "書籍 book", "a b c", ""] {
            let terms = GiftList.TitleTerms(title)
            #expect(terms.key == TextFolding.key(title))
            #expect(GiftList.TitleTerms(title.uppercased()).key == terms.key)
        }
    }
}
