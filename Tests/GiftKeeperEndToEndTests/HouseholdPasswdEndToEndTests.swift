import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// `passwd` in a household through giftkeeper-server (SPEC §13; docs/threat-model.md,
/// "`passwd` in a household"): new key pairs for the member in a new epoch, as a one-shot
/// and in the shell.
extension HouseholdEndToEndTests {
    @Test(
        "Bob's wrong passwords are told to him alone; he changes his password: Alice and Carol keep reading his new wishes, a present for him stays hidden, the old password opens nothing on his device"
    )
    func passwdRenewsAMembersKeys() async throws {
        let (alice, bob, carol) = try await household()
        let kite = try await plain(bob, ["wish", "add", "Kite"])
        #expect(kite.status == 0, "\(kite)")
        let telescope = try await plain(alice, ["add", "Bob", "Telescope"])
        #expect(telescope.status == 0, "\(telescope)")

        // Two wrong passwords on Bob's device are told at his next sign-in there, to nobody else.
        for _ in 0..<2 {
            let failed = try await plain(bob, ["wishes"], input: "not-bobs\n")
            #expect(failed.status == 3 && !failed.stderr.contains("Bob") && !failed.stdout.contains("Kite"), "\(failed)")
        }
        let told = try await plain(bob, ["wishes"])
        #expect(told.status == 0 && told.stderr.contains("2 failed attempts reported since your last visit"), "\(told)")
        let toldOnce = try await plain(bob, ["wishes"])
        #expect(!toldOnce.stderr.contains("failed attempt"), "\(toldOnce)")
        let notAlice = try await plain(alice, ["wishes"])
        #expect(!notAlice.stderr.contains("failed attempt"), "\(notAlice)")
        // A one-shot `household` command waits as the shell does: from the fourth wrong password in a row, 1 s, then 2 s.
        for attempt in 0..<4 {
            let failed = try await run(bob, ["members"], input: "not-bobs\n")
            #expect(failed.status == 3 && failed.stderr.contains("Waiting 1 s before checking") == (attempt == 3), "\(failed)")
        }
        let waited = try await run(bob, ["members"])
        #expect(waited.status == 0 && waited.stderr.contains("Waiting 2 s before checking the password"), "\(waited)")
        #expect(waited.stderr.contains("4 failed attempts reported since your last visit"), "\(waited)")

        // A wrong current password changes nothing (exit 3); the right one renews Bob's keys.
        let wrong = try await run(bob, ["passwd"], input: "not-bobs\nbob-new-secret\nbob-new-secret\n")
        #expect(wrong.status == 3, "\(wrong)")
        let renewed = try await run(bob, ["passwd"], input: "bob-secret\nbob-new-secret\nbob-new-secret\n")
        #expect(renewed.status == 0 && renewed.stdout.contains("your keys are new"), "\(renewed)")
        #expect(renewed.stdout.contains("Your recovery code (shown once"), "\(renewed)")

        // The old password opens nothing on Bob's device; the new one does.
        let old = try await plain(bob, ["list"])
        #expect(old.status == 3, "\(old)")
        let yoyo = try await plain(bob, ["wish", "add", "Yo-yo"], input: "bob-new-secret\n")
        #expect(yoyo.status == 0, "\(yoyo)")
        let book = try await plain(alice, ["add", "Bob", "Book"])
        #expect(book.status == 0, "\(book)")
        for member in [alice, carol] {
            let wishes = try await plain(member, ["wishes", "Bob"])
            #expect(wishes.stdout.contains("Kite  (Bob)") && wishes.stdout.contains("Yo-yo  (Bob)"), "\(wishes)")
        }
        let carols = try await plain(carol, ["list"])
        #expect(carols.stdout.contains("Telescope") && carols.stdout.contains("Book"), "\(carols)")
        let bobs = try await plain(bob, ["list"], input: "bob-new-secret\n")
        #expect(bobs.status == 0 && !bobs.stdout.contains("Telescope") && !bobs.stdout.contains("Book"), "\(bobs)")

        // The service's roster follows his new keys: Alice finds his account and makes him an owner.
        let promoted = try await run(alice, ["owner", "Bob"])
        #expect(promoted.status == 0 && promoted.stdout.contains("Bob is an owner now"), "\(promoted)")
        let members = try await run(bob, ["members"], input: "bob-new-secret\n")
        #expect(members.stdout.contains("Bob  owner  (you)"), "\(members)")

        // In the shell, as in a person's journal: Carol's current password, then the new one twice.
        let passwd = try await carol.sandbox.run(
            ["--journal", carol.record], input: "login\ncarol-pw\npasswd\ncarol-pw\ncarol-new-pw\ncarol-new-pw\n", environment: trust)
        #expect(passwd.status == 0 && passwd.stdout.contains("Your recovery code (shown once"), "\(passwd)")
        let carolOld = try await plain(carol, ["list"])
        #expect(carolOld.status == 3, "\(carolOld)")
        let carolNew = try await plain(carol, ["wishes", "Bob"], input: "carol-new-pw\n")
        #expect(carolNew.status == 0 && carolNew.stdout.contains("Yo-yo  (Bob)"), "\(carolNew)")
        let aliceSees = try await run(alice, ["members"])
        #expect(aliceSees.stdout.contains("Carol") && aliceSees.stdout.contains("Bob  owner"), "\(aliceSees)")
    }
}
