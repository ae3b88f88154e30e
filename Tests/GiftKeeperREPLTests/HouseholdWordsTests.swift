import GiftKeeperREPL
import GiftKeeperSealing
import GiftKeeperService
import Testing

@testable import GiftKeeperDomain

/// What the `household` commands say (SPEC §13): a wish line never shows the claims on the
/// reader's own wishes; each refusal has SPEC §2's exit code.
@Suite struct HouseholdWordsTests {
    @Test func aWishLineShowsClaimsExceptOnTheReadersOwnWishes() throws {
        let kite = Wish(
            id: try #require(WishID(number: 14)), wisher: "Bob", title: "Kite", notes: "", price: Money(minorUnits: 2_500), url: "",
            suggestedBy: "")
        let claim = WishClaim(claimer: "Carol", present: try #require(PresentID(number: 15)))
        #expect(HouseholdWords.wish(kite, claim: claim, mine: false) == "w14  Kite  (Bob)  25.00  claimed by Carol")
        #expect(HouseholdWords.wish(kite, claim: claim, mine: true) == "w14  Kite  (Bob)  25.00")
        var suggested = kite
        suggested.suggestedBy = "Alice"
        #expect(HouseholdWords.wish(suggested, claim: nil, mine: false) == "w14  Kite  (Bob)  25.00  suggested by Alice")
    }

    @Test func refusalsHaveTheirExitCodes() {
        #expect(HouseholdWords.refusal(.household(.wrongPassword)) == (HouseholdWords.wrongPassword, 3))
        #expect(HouseholdWords.wrongPassword.hasPrefix("Wrong password.") && HouseholdWords.wrongPassword.contains("another device"))
        #expect(HouseholdWords.refusal(.safetyNumberMismatch).code == 1)
        #expect(HouseholdWords.refusal(.household(.notAMember)).sentence.contains("not a member of this household"))
        #expect(HouseholdWords.refusal(.invitation(.ownerKeysDoNotMatch)).code == 1)
        #expect(HouseholdWords.refusal(.invitation(.unreadableCode)).code == 2)
        #expect(HouseholdWords.refusal(.nameTaken("Alice")) == ("Another member already goes by Alice.", 2))
        #expect(HouseholdWords.mismatch(burned: true).hasSuffix("the invitation is burned. Invite them again and compare the numbers."))
    }

    @Test("The gave-way line names the member whose change won, or another device of yours")
    func aChangeThatGaveWayNamesWhoseChangeWon() throws {
        let tea = try #require(PresentID(number: 1))
        let price = OverriddenChange.Kind.replaced(yours: .field(.price(Money(minorUnits: 3_000))), winning: .field(.price(Money(minorUnits: 3_500))))
        func line(_ kind: OverriddenChange.Kind, _ winner: OverriddenChange.Winner) -> String {
            SyncWords.overridden(OverriddenChange(id: tea, title: "Tea", kind: kind, winner: winner))
        }
        #expect(line(price, .member("Bob")) == "⇄ p1 \"Tea\": your price 30.00 gave way to 35.00 from Bob")
        #expect(line(price, .yourOtherDevice) == "⇄ p1 \"Tea\": your price 30.00 gave way to 35.00 from another device of yours")
        #expect(line(price, .anotherDevice) == "⇄ p1 \"Tea\": your price 30.00 gave way to 35.00 from another device")
        #expect(
            line(.removed(yours: .status(.bought)), .member("Carol")) == "⇄ p1 \"Tea\" was removed by Carol after your change (status bought)")
        #expect(line(.broughtBack, .member("Bob")) == "⇄ p1 \"Tea\", which you removed, was brought back by Bob's change")
        #expect(line(.broughtBack, .yourOtherDevice) == "⇄ p1 \"Tea\", which you removed, was brought back by a change on another device of yours")
    }
}
