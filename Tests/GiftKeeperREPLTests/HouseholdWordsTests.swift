import GiftKeeperDomain
import GiftKeeperREPL
import GiftKeeperSealing
import GiftKeeperService
import Testing

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
}
