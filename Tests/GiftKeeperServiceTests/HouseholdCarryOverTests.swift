import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import Testing

/// A member's other device after their `passwd` on one of them (docs/threat-model.md,
/// "Carrying a member's other devices over"): signed in with the old password, it sees the
/// renewal it was not granted; the new password opens the renewal's wrap, which holds the
/// device's identity, and it goes on as the new identity. Nothing else carries it over.
@Suite struct HouseholdCarryOverTests {
    static let now = HouseholdSessionTests.Household.now
    static func secret(_ text: String) throws -> SecureBytes { try HouseholdSessionTests.secret(text) }

    /// Bob's phone, signed in with his old password as his old identity `old`.
    static func phone(_ home: HouseholdSessionTests.Household, as old: MemberID) throws -> HouseholdSession {
        try HouseholdSession.open(home.store.handle(), as: old, name: "Bob", password: try secret("Bob-pw"), now: now)
    }

    @Test("Bob's passwd on his laptop: his phone, signed in with the old password, takes the new one and reads what the new identity reads")
    func carriedOver() throws {
        let home = try HouseholdSessionTests.Household()
        let old = home.bob.id
        try Self.renew(home.bob, to: "bob-new", in: home)
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        try home.alice.perform(.addPresent(recipient: "Bob", title: "Telescope"))
        try home.sync()
        let phone = try Self.phone(home, as: old)
        #expect(phone.isRenewedElsewhere && !phone.member.keyring.isMember)
        #expect(!HouseholdSessionTests.titles(phone).contains("Scarf"))
        let carried = try #require(try phone.carriedOver(password: try Self.secret("bob-new"), now: Self.now))
        #expect(carried.session.id == home.bob.id && carried.unlocked.secrets.id == home.bob.id)
        #expect(carried.session.member.keyring.isMember && !carried.session.isRenewedElsewhere)
        #expect(HouseholdSessionTests.titles(carried.session) == ["Scarf"])
        // Its change reaches Alice, as Bob's.
        try carried.session.perform(.addPresent(recipient: "Mum", title: "From the phone"))
        try home.sync()
        #expect(HouseholdSessionTests.titles(home.alice).contains("From the phone"))
        #expect(home.alice.history.last?.author == "Bob")
    }

    @Test("A wrong new password opens nothing; another member's renewal under the same password is passed over, or refused")
    func wrongPasswordAndOthersRenewals() throws {
        // Carol's renewal, after Bob's, with Bob's new password and another of her own.
        let (home, phone) = try Self.phone(after: [("Bob", "bob-new"), ("Carol", "bob-new"), ("Carol", "carol-new")])
        #expect(Self.isWrongPassword { _ = try phone.carriedOver(password: try Self.secret("bob-wrong"), now: Self.now) })
        #expect(Self.isWrongPassword { _ = try phone.carriedOver(password: try Self.secret("Bob-pw"), now: Self.now) })
        // Carol's newest wrap opens with her password, but holds no identity of Bob's: nothing taken from it.
        #expect(try phone.carriedOver(password: try Self.secret("carol-new"), now: Self.now) == nil)
        #expect(try phone.member.renewalElsewhere(password: try Self.secret("carol-new")) == nil)
        // Bob's new password opens Carol's older wrap too (passed over: it holds no identity of Bob's), and Bob's.
        let carried = try #require(try phone.carriedOver(password: try Self.secret("bob-new"), now: Self.now))
        #expect(carried.session.id == home.bob.id)
    }

    @Test("Another member's renewal, or a removal, never asks a device for a new password")
    func othersRenewalOrRemovalNeverTriggers() throws {
        let home = try HouseholdSessionTests.Household()
        try Self.renew(home.carol, to: "carol-new", in: home)
        let bobsPhone = try Self.phone(home, as: home.bob.id)
        #expect(bobsPhone.member.keyring.isMember && !bobsPhone.isRenewedElsewhere)
        try home.alice.remove(home.bob.id)
        try home.sync()
        let removed = try Self.phone(home, as: home.bob.id)
        #expect(!removed.member.keyring.isMember && removed.member.keyring.leftOutAt != nil && !removed.isRenewedElsewhere)
        #expect(Self.isWrongPassword { _ = try removed.carriedOver(password: try Self.secret("carol-new"), now: Self.now) })
    }

    @Test("Two passwd's on the laptop before the phone signs in: the newest password carries it over; the one between is no member's now")
    func renewedTwice() throws {
        let (home, phone) = try Self.phone(after: [("Bob", "bob-2"), ("Bob", "bob-3")])
        let old = try #require(phone.member.secrets.earlier.isEmpty ? phone.id : nil)
        #expect(throws: HouseholdSessionError.self) { _ = try phone.carriedOver(password: try Self.secret("bob-2"), now: Self.now) }
        let carried = try #require(try phone.carriedOver(password: try Self.secret("bob-3"), now: Self.now))
        #expect(carried.session.id == home.bob.id && carried.session.member.keyring.isMember)
        #expect(carried.unlocked.secrets.earlier.map(\.id).last == old)
    }

    /// Bob's phone, signed in with his old password after `renewals` (each a member's name and
    /// new password) in a new household: it sees a renewal it was not granted.
    static func phone(after renewals: [(String, String)]) throws -> (HouseholdSessionTests.Household, HouseholdSession) {
        let home = try HouseholdSessionTests.Household()
        let old = home.bob.id
        for (name, password) in renewals { try renew(name == "Bob" ? home.bob : home.carol, to: password, in: home) }
        let phone = try phone(home, as: old)
        #expect(phone.isRenewedElsewhere)
        return (home, phone)
    }

    /// `member`'s `passwd` to `password` (a recovery code of its own), every member caught up after.
    static func renew(_ member: HouseholdSession, to password: String, in home: HouseholdSessionTests.Household) throws {
        try member.renewKeys(try secret(password), recoveryCode: try secret("recovery:" + password), parameters: .testMinimum)
        try home.sync()
    }

    static func isWrongPassword(_ body: () throws -> Void) -> Bool {
        do {
            try body()
        } catch HouseholdSessionError.household(.wrongPassword) {
            return true
        } catch HouseholdError.wrongPassword {
            return true
        } catch {}
        return false
    }
}
