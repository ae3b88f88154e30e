import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperTestSupport
import OrderedCollections
import Testing

/// A household session (issue 28): members' names, the audience rule and the list's
/// commands, in process over the memory store. Alice creates, admits Bob and Carol; each
/// member's session is a device of their own on the one chain.
@Suite struct HouseholdSessionTests {
    final class Household {
        let store: MemoryFrameStore
        let alice: HouseholdSession
        let bob: HouseholdSession
        let carol: HouseholdSession

        init() throws {
            let header = try VerifiedFrames.newHeader(journalID: try randomBytes(count: 16), path: "household", household: true).header
            store = MemoryFrameStore(header: header, path: "household")
            alice = try HouseholdSession.signUp(
                .creating, in: store.handle(), name: "Alice", password: try secret("alice-pw"), recoveryCode: try secret("alice-rc"),
                parameters: .testMinimum, now: Self.now)
            bob = try Self.join(store, "Bob")
            carol = try Self.join(store, "Carol")
            try alice.admit(bob.keys)
            try alice.admit(carol.keys)
            try sync()
        }

        static func join(_ store: MemoryFrameStore, _ name: String) throws -> HouseholdSession {
            try HouseholdSession.signUp(
                .joining, in: store.handle(), name: name, password: try secret(name + "-pw"), recoveryCode: try secret(name + "-rc"),
                parameters: .testMinimum, now: now)
        }

        /// Every member catches up (twice: a name signed by the last one reaches the first).
        func sync() throws {
            for _ in 0..<2 {
                for member in [alice, bob, carol] { try member.catchUp() }
            }
        }

        static let now: @Sendable () -> Timestamp = { Timestamp(millisecondsSinceEpoch: 1_800_000_000_000) }
    }

    static func secret(_ text: String) throws -> SecureBytes {
        let bytes = Array(text.utf8)
        let secret = try SecureBytes(capacity: bytes.count, count: 0)
        for byte in bytes { secret.append(byte) }
        return secret
    }

    static func titles(_ session: HouseholdSession) -> Set<String> { Set(session.state.presents.values.map(\.title)) }

    @Test func membersKnowEachOtherByTheNamesTheySigned() throws {
        let home = try Household()
        for session in [home.alice, home.bob, home.carol] {
            #expect(Set(session.members.compactMap(\.name)) == ["Alice", "Bob", "Carol"])
            #expect(session.memberID(named: "carol") == home.carol.id)
            #expect(session.members.filter(\.isOwner).map(\.id) == [home.alice.id])
            #expect(session.state.accountName == session.name)
        }
    }

    @Test func aNewcomerIsGivenTheOpenWishesOccasionsAndCurrencyButNoHistory() throws {
        let home = try Household()
        try home.alice.perform(.addOccasion(Occasion(name: "Christmas", date: CalendarDate(year: 2026, month: 12, day: 24), isYearly: true)))
        try home.alice.perform(.setCurrency(code: "EUR"))
        let closed = try #require(CalendarDate(year: 2026, month: 12, day: 24))
        try home.alice.perform(.closeOccasion(name: "Christmas", through: closed, keepingIdeas: true))
        try home.alice.perform(.addWish(wisher: "Alice", title: "Scarf"))
        try home.bob.perform(.addWish(wisher: "Bob", title: "Kite"))
        try home.bob.perform(.addWish(wisher: "Bob", title: "Yo-yo"))
        try home.bob.perform(.removeWish(id: try #require(home.bob.state.wishes.values.first { $0.title == "Yo-yo" }?.id)))
        try home.carol.perform(.addWish(wisher: "Bob", title: "Chess set", suggestedBy: "Carol"))
        try home.alice.perform(.addPresent(recipient: "Bob", title: "Surprise"))
        try home.sync()
        let before = [home.alice, home.bob, home.carol].map(\.state.wishes.count)

        let dan = try Household.join(home.store, "Dan")
        try home.alice.admit(dan.keys)
        try home.sync()
        try dan.catchUp()
        try home.sync()
        try dan.catchUp()
        // Dan reads the open wishes of their wishers and the owner's occasions and currency;
        // not the removed wish, not Carol's suggestion (Bob's surprise, and no history), not
        // the present.
        #expect(Set(dan.state.wishes.values.map(\.title)) == ["Scarf", "Kite"])
        #expect(dan.state.occasions.values.map(\.name) == ["Christmas"])
        #expect(dan.state.occasions.values.first?.isYearly == true)
        #expect(dan.state.closedThrough.values.map(\.self) == [closed])
        #expect(dan.state.currency == "EUR")
        #expect(dan.state.presents.isEmpty)
        // The others fold the same lists as before.
        #expect([home.alice, home.bob, home.carol].map(\.state.wishes.count) == before)
        #expect(home.bob.state.occasions.count == 1)
    }

    @Test func twoDevicesDecidingAtOneHeadNeverTakeOneNumber() throws {
        let home = try Household()
        try home.sync()
        // Bob decides at the head everyone has; Alice appends first.
        let head = home.bob.member.store.head
        let state = home.bob.state.numbering(from: head.sequence + 1)
        let late = try GiftList.decide(.addPresent(recipient: "Grandma", title: "Tea"), at: Household.now(), state: state)
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        let afterAlice = home.store.handle().head
        #expect(try home.bob.member.record(late, for: .everyone, decidedAt: head) == false)
        #expect(home.store.handle().head == afterAlice, "nothing appended after the head moved")
        // Decided again on what Alice wrote: a number of its own.
        try home.bob.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try home.sync()
        let presents = home.carol.state.presents.values.filter { $0.recipient == "Grandma" }
        #expect(Set(presents.map(\.title)) == ["Scarf", "Tea"])
        #expect(Set(presents.map(\.id)).count == 2)
    }

    @Test func aPresentForAMemberIsHiddenFromThemAndOnlyThem() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "bob", title: "Telescope", price: Money(minorUnits: 12_000)))
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        try home.alice.perform(.addPresent(recipient: "Carol", title: "Diary"), privately: true)
        try home.sync()
        #expect(Self.titles(home.alice) == ["Telescope", "Scarf", "Diary"])
        #expect(Self.titles(home.carol) == ["Telescope", "Scarf"])
        #expect(Self.titles(home.bob) == ["Scarf"])
        // Bob's next present is numbered past the one he cannot see: Carol folds both.
        try home.bob.perform(.addPresent(recipient: "Grandma", title: "Gloves"))
        try home.sync()
        #expect(Self.titles(home.carol) == ["Telescope", "Scarf", "Gloves"])
        #expect(Self.titles(home.alice) == ["Telescope", "Scarf", "Diary", "Gloves"])
    }

    @Test func aClaimIsSeenByAllButTheWisher() throws {
        let home = try Household()
        try home.bob.perform(.addWish(wisher: "Bob", title: "Kite", price: Money(minorUnits: 2_500)))
        try home.alice.perform(.addWish(wisher: "Bob", title: "Book", suggestedBy: "Alice"))
        try home.sync()
        #expect(home.bob.state.wishes.values.map(\.title) == ["Kite"])
        #expect(Set(home.carol.state.wishes.values.map(\.title)) == ["Kite", "Book"])
        let kite = try #require(home.carol.state.wishes(of: "Bob").first { $0.title == "Kite" })
        try home.carol.perform(.claimWish(id: kite.id, claimer: "Carol"))
        try home.sync()
        #expect(home.alice.state.claims[kite.id]?.claimer == "Carol")
        #expect(home.bob.state.claims.isEmpty)
        #expect(Self.titles(home.bob).isEmpty)
        #expect(Self.titles(home.carol) == ["Kite"])
        // Alice cannot claim it too; Carol gives it up, and Bob never saw either.
        let error = #expect(throws: HouseholdSessionError.self) { try home.alice.perform(.claimWish(id: kite.id, claimer: "Alice")) }
        guard case .domain(.wishAlreadyClaimed(kite.id, by: "Carol"))? = error else {
            Issue.record("not a claimed wish: \(String(describing: error))")
            return
        }
        try home.carol.perform(.unclaimWish(id: kite.id, claimer: "Carol"))
        try home.sync()
        #expect(home.alice.state.claims.isEmpty)
        #expect(Self.titles(home.carol).isEmpty)
        #expect(home.bob.state.wishes.values.map(\.title) == ["Kite"])
    }

    @Test func aSecondMemberCannotTakeATakenName() throws {
        let home = try Household()
        let impostor = try Household.join(home.store, "alice")
        try home.alice.admit(impostor.keys)
        // The newcomer holds no older epoch's key, so it may sign before it learns the name
        // is taken: the members who know it keep it, and the newcomer stays nameless to them.
        try impostor.catchUp()
        try home.sync()
        for member in [home.alice, home.bob, home.carol] {
            #expect(member.memberID(named: "Alice") == home.alice.id)
            #expect(member.members.contains { $0.id == impostor.id && $0.name == nil })
        }
        // One who learned it first is refused outright.
        let late = try Household.join(home.store, "BOB")
        try home.alice.admit(late.keys)
        try home.sync()
        let error = #expect(throws: HouseholdSessionError.self) { try late.catchUp() }
        guard case .nameTaken("BOB")? = error else {
            Issue.record("not a taken name: \(String(describing: error))")
            return
        }
    }

    @Test func aMemberSignsInAgainWithTheirPassword() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "Bob", title: "Telescope"))
        try home.bob.perform(.addWish(wisher: "Bob", title: "Kite"))
        let carol = try HouseholdSession.open(
            home.store.handle(), as: home.carol.id, name: "Carol", password: try Self.secret("Carol-pw"), now: Household.now)
        #expect(Self.titles(carol) == ["Telescope"])
        #expect(carol.state.wishes.values.map(\.title) == ["Kite"])
        #expect(Set(carol.members.compactMap(\.name)) == ["Alice", "Bob", "Carol"])
    }

    @Test func theAudienceRule() throws {
        let home = try Household()
        let names = Dictionary(uniqueKeysWithValues: home.alice.members.compactMap { m in m.name.map { (m.id, $0) } })
        func audience(_ change: Change, privately: Bool = false) throws -> Audience {
            let events = try GiftList.decide(change, at: Household.now(), state: home.alice.state)
            return HouseholdAudiences.audience(
                of: events, privately: privately, me: home.alice.id, members: names, state: home.alice.state)
        }
        #expect(try audience(.addPresent(recipient: "BOB", title: "Hat")) == .everyoneBut(home.bob.id))
        #expect(try audience(.addPresent(recipient: "Grandma", title: "Hat")) == .everyone)
        #expect(try audience(.addPresent(recipient: "Bob", title: "Hat"), privately: true) == .only(home.alice.id))
        #expect(try audience(.addPresent(recipient: "Alice", title: "Hat")) == .only(home.alice.id))
        #expect(try audience(.addWish(wisher: "Alice", title: "Hat")) == .everyone)
        #expect(try audience(.addWish(wisher: "Carol", title: "Hat", suggestedBy: "Alice")) == .everyoneBut(home.carol.id))
        let amount = try #require(Money(minorUnits: 5_000))
        #expect(
            try audience(.setBudget(Budget(scope: BudgetScope(recipient: "carol"), amount: amount)))
                == .everyoneBut(home.carol.id))
        #expect(try audience(.addOccasion(Occasion(name: "Christmas"))) == .everyone)
        // A newcomer who has not signed a name yet may be the Grandma a present is for.
        let grandma = try GiftList.decide(.addPresent(recipient: "Grandma", title: "Hat"), at: Household.now(), state: home.alice.state)
        let newcomer = try Household.join(home.store, "Dave").id
        #expect(
            HouseholdAudiences.audience(
                of: grandma, privately: false, me: home.alice.id, members: names, unnamed: [newcomer], state: home.alice.state)
                == .everyoneBut(newcomer))
        #expect(
            HouseholdAudiences.audience(
                of: grandma, privately: false, me: home.alice.id, members: names, unnamed: [newcomer, home.carol.id],
                state: home.alice.state) == .only(home.alice.id))
        let signIn = try GiftList.decide(.signIn, at: Household.now(), state: home.alice.state)
        #expect(
            HouseholdAudiences.audience(of: signIn, privately: false, me: home.alice.id, members: names, state: home.alice.state)
                == .only(home.alice.id))
    }

    @Test func aJoinerIsAdmittedOnlyWithTheSafetyNumberTheyReadOut() throws {
        let home = try Household()
        let (code, invitationID, publicKey) = try home.alice.invite()
        let typed = try InvitationCode(parsing: code.text.lowercased())
        let dave = try Household.join(home.store, "Dave")
        let (request, daveNumber) = try dave.answer(typed, owner: home.alice.keys)
        #expect(request.invitationID == invitationID && request.isSigned(by: publicKey))
        let (keys, aliceNumber) = try home.alice.joiner(of: request, code: code)
        #expect(keys == dave.keys)
        #expect(aliceNumber == daveNumber)
        #expect(daveNumber.filter(\.isNumber).count == 12)
        // One digit off: refused before anything is written, so no key is granted.
        let head = home.store.handle().head
        let first = try #require(daveNumber.first?.wholeNumberValue)
        let wrong = String((first + 1) % 10) + daveNumber.dropFirst()
        let error = #expect(throws: HouseholdSessionError.self) { try home.alice.admit(request, code: code, safetyNumber: wrong) }
        guard case .safetyNumberMismatch? = error else {
            Issue.record("not a mismatch: \(String(describing: error))")
            return
        }
        #expect(home.store.handle().head == head)
        try dave.catchUp()
        #expect(!dave.isMember)
        // The number as read out, spaces left out: admitted, and named to the others.
        try home.alice.admit(request, code: code, safetyNumber: daveNumber.filter(\.isNumber))
        try dave.catchUp()
        #expect(dave.isMember)
        try home.sync()
        #expect(home.bob.memberID(named: "dave") == dave.id)
    }

    @Test func aCodeIsCheckedAgainstItsOwnerAndOnlyOwnersInvite() throws {
        let home = try Household()
        let (code, _, _) = try home.alice.invite()
        let dave = try Household.join(home.store, "Dave")
        let substituted = #expect(throws: HouseholdSessionError.self) { try dave.answer(code, owner: home.bob.keys) }
        guard case .invitation(.ownerKeysDoNotMatch)? = substituted else {
            Issue.record("not a substitution: \(String(describing: substituted))")
            return
        }
        let notOwner = #expect(throws: HouseholdSessionError.self) { try home.bob.invite() }
        guard case .household(.notAnOwner)? = notOwner else {
            Issue.record("not refused: \(String(describing: notOwner))")
            return
        }
        #expect(throws: InvitationError.unreadableCode) { try InvitationCode(parsing: "ABCD-EFGH") }
    }

    @Test func aHouseholdLivesInAJournalFileEachDeviceWithItsOwnHandle() throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-household-file")
        let path = directory.file("household.journal")
        let (aliceID, bobID): (MemberID, MemberID)
        do {
            let alice = try HouseholdSession.signUp(
                .creating, in: try Journal.create(at: path, household: true), name: "Alice", password: try Self.secret("alice-pw"),
                recoveryCode: try Self.secret("alice-rc"), parameters: .testMinimum, now: Household.now)
            let bob = try HouseholdSession.signUp(
                .joining, in: try Journal.open(at: path, access: .readWrite), name: "Bob", password: try Self.secret("bob-pw"),
                recoveryCode: try Self.secret("bob-rc"), parameters: .testMinimum, now: Household.now)
            try alice.admit(bob.keys)
            try bob.catchUp()
            try alice.perform(.addPresent(recipient: "Bob", title: "Telescope"))
            try bob.perform(.addWish(wisher: "Bob", title: "Kite"))
            try bob.catchUp()
            #expect(Self.titles(bob).isEmpty)
            (aliceID, bobID) = (alice.id, bob.id)
        }
        let alice = try HouseholdSession.open(
            try Journal.open(at: path, access: .readWrite), as: aliceID, name: "Alice", password: try Self.secret("alice-pw"),
            now: Household.now)
        #expect(Self.titles(alice) == ["Telescope"])
        #expect(alice.state.wishes.values.map(\.title) == ["Kite"])
        #expect(alice.memberID(named: "Bob") == bobID)
        let wrong = #expect(throws: HouseholdSessionError.self) {
            try HouseholdSession.open(
                try Journal.open(at: path, access: .readWrite), as: bobID, name: "Bob", password: try Self.secret("alice-pw"),
                now: Household.now)
        }
        guard case .household(.wrongPassword)? = wrong else {
            Issue.record("not refused: \(String(describing: wrong))")
            return
        }
        let bytes = try #require(FileManager.default.contents(atPath: path))
        for secret in ["Telescope", "Kite", "Alice", "Bob"] { #expect(bytes.range(of: Data(secret.utf8)) == nil) }
    }

    @Test func aJoinerThroughAServiceWritesNothingUntilAdmitted() throws {
        let home = try Household()
        let (code, _, _) = try home.alice.invite()
        let journalID = home.store.header.journalID
        let (pending, secrets) = try HouseholdSession.prepareJoin(
            household: journalID, password: try Self.secret("dave-pw"), parameters: .testMinimum)
        #expect(try pending.keys() == secrets.identity.keys)
        let (request, number) = try HouseholdSession.answer(code, owner: home.alice.keys, joiner: secrets, household: journalID)
        func complete(_ password: String) throws -> HouseholdSession {
            try HouseholdSession.completeJoin(
                pending, in: home.store.handle(), name: "Dave", password: try Self.secret(password),
                recoveryCode: try Self.secret("dave-rc"), parameters: .testMinimum, now: Household.now)
        }
        let head = home.store.handle().head
        let early = #expect(throws: HouseholdSessionError.self) { try complete("dave-pw") }
        guard case .household(.notAMember)? = early else {
            Issue.record("not refused before the admission: \(String(describing: early))")
            return
        }
        #expect(home.store.handle().head == head)
        // The admission's frame goes through `appending` (a service's changeMembers) with Dave's keys.
        let store = home.store.handle()
        var admitted: [MemberKeys] = []
        try home.alice.admit(request, code: code, safetyNumber: number) { batch, keys in
            admitted.append(keys)
            return try store.append(batch)
        }
        #expect(admitted == [secrets.identity.keys])
        let wrong = #expect(throws: HouseholdSessionError.self) { try complete("alice-pw") }
        guard case .household(.wrongPassword)? = wrong else {
            Issue.record("not a wrong password: \(String(describing: wrong))")
            return
        }
        let dave = try complete("dave-pw")
        #expect(dave.isMember && dave.id == secrets.id)
        try home.alice.perform(.addPresent(recipient: "Dave", title: "Drum"))
        try home.sync()
        try dave.catchUp()
        #expect(Self.titles(dave).isEmpty)
        #expect(Self.titles(home.bob) == ["Drum"])
        #expect(home.bob.memberID(named: "dave") == dave.id)
        let again = try HouseholdSession.open(
            home.store.handle(), as: dave.id, name: "Dave", password: try Self.secret("dave-pw"), now: Household.now)
        #expect(again.isMember && Self.titles(again).isEmpty)
    }
}
