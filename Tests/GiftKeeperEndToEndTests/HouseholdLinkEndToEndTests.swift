import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// `household link|unlink` and `wishes --json` as one-shots through giftkeeper-server (SPEC §13).
extension HouseholdEndToEndTests {
    @Test("Alice links Bobby to Bob after his admission: what came before stays his to see, what comes after does not; wishes --json")
    func linkAfterAdmission() async throws {
        let (alice, bob, _) = try await household()
        #expect(try await plain(alice, ["add", "Bobby", "Old scarf"]).status == 0)
        let linked = try await run(alice, ["link", "Bobby", "Bob"])
        #expect(linked.status == 0 && linked.stdout.contains("What is about Bobby goes to everyone but Bob from now on."), "\(linked)")
        #expect(try await plain(alice, ["add", "Bobby", "Telescope"]).status == 0)
        let bobs = try await plain(bob, ["list"])
        #expect(bobs.status == 0 && bobs.stdout.contains("Old scarf") && !bobs.stdout.contains("Telescope"), "\(bobs)")
        let notOwner = try await run(bob, ["unlink", "Bobby"])
        #expect(notOwner.status == 2 && notOwner.stderr.contains("Only an owner"), "\(notOwner)")
        let unlinked = try await run(alice, ["unlink", "Bobby"])
        #expect(unlinked.status == 0 && unlinked.stdout.contains("Bobby is linked to no member now"), "\(unlinked)")
        let again = try await run(alice, ["unlink", "Bobby"])
        #expect(again.status == 2 && again.stderr.contains("Bobby is linked to no member"), "\(again)")

        #expect(try await plain(bob, ["wish", "add", "Kite", "--price", "25"]).status == 0)
        let wishes = try await plain(alice, ["wishes", "--json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(wishes.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["title"] as? String == "Kite" && parsed?.first?["claimedBy"] is NSNull, "\(wishes)")
    }
}
