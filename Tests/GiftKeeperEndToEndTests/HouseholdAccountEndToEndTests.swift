import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// A member's own keys and the household's owners through giftkeeper-server (SPEC §13):
/// `household owner`, the last owner who may not leave, `household recover`, and the copy of
/// the journal each device keeps beside its record.
extension HouseholdEndToEndTests {
    @Test("An owner makes Bob an owner, then may leave; Bob, his password forgotten, signs in with his recovery code and sets a new one")
    func ownersAndRecovery() async throws {
        let (alice, bob) = (try Member("alice-pw"), try Member("bob-secret"))
        let created = try await run(
            alice, ["create", "The Joneses", "--name", "Alice", "--remote", url, "--kdf", "interactive"], input: "alice-pw\nalice-pw\n")
        #expect(created.status == 0, "\(created)")
        let bobJoin = try await join(bob, as: "Bob", invitedBy: alice)
        let admitted = try await run(alice, ["admit", "Bob", "--safety-number", bobJoin.safetyNumber])
        #expect(admitted.status == 0, "\(admitted)")
        let signedUp = try await run(bob, ["members"])
        let code = try #require(signedUp.stderr.components(separatedBy: "forget your password): ").last?.prefix(39), "\(signedUp)")
        #expect(code.split(separator: "-").count == 8, "\(signedUp)")
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf"])
        #expect(scarf.status == 0, "\(scarf)")

        // The last owner may not leave while Bob stays; once Bob is an owner too, she may.
        let stays = try await run(alice, ["leave"])
        #expect(stays.status == 2 && stays.stderr.contains("make another member an owner first ('household owner NAME')"), "\(stays)")
        let notOwner = try await run(bob, ["owner", "Alice"])
        #expect(notOwner.status == 2 && notOwner.stderr.contains("Only an owner"), "\(notOwner)")
        let promoted = try await run(alice, ["owner", "Bob"])
        #expect(promoted.status == 0 && promoted.stdout.contains("Bob is an owner now"), "\(promoted)")
        let again = try await run(alice, ["owner", "Bob"])
        #expect(again.status == 2 && again.stderr.contains("Bob is an owner already"), "\(again)")
        let nobody = try await run(alice, ["owner", "Zed"])
        #expect(nobody.status == 2 && nobody.stderr.contains("No other member goes by Zed"), "\(nobody)")
        let members = try await run(bob, ["members"])
        #expect(members.stdout.contains("Alice  owner") && members.stdout.contains("Bob  owner  (you)"), "\(members)")
        let invited = try await run(bob, ["invite"])
        #expect(invited.status == 0, "\(invited)")

        // Bob forgot his password: his recovery code opens his keys, and he sets a new password.
        let notACode = try await run(bob, ["recover"], input: "not-a-code\nbob-new-pw1\nbob-new-pw1\n")
        #expect(notACode.status == 2 && notACode.stderr.contains("not a recovery code"), "\(notACode)")
        let wrongCode = try await run(bob, ["recover"], input: String(repeating: "0", count: 32) + "\nbob-new-pw1\nbob-new-pw1\n")
        #expect(wrongCode.status == 3 && wrongCode.stderr.contains("does not open your keys"), "\(wrongCode)")
        let recovered = try await run(bob, ["recover"], input: "\(code)\nbob-new-password\nbob-new-password\n")
        #expect(recovered.status == 0 && recovered.stdout.contains("Your new password is set"), "\(recovered)")
        #expect(recovered.stdout.contains("Your recovery code (shown once"), "\(recovered)")
        let oldPassword = try await plain(bob, ["list"])
        #expect(oldPassword.status == 3, "\(oldPassword)")
        let newPassword = try await plain(bob, ["list"], input: "bob-new-password\n")
        #expect(newPassword.status == 0 && Self.row(of: newPassword.stdout, holding: ["Grandma", "Scarf"]), "\(newPassword)")
        let oldCode = try await run(bob, ["recover"], input: "\(code)\nbob-other\nbob-other\n")
        #expect(oldCode.status == 3, "\(oldCode)")

        let left = try await run(alice, ["leave"])
        #expect(left.status == 0, "\(left)")
        // Each device keeps the journal's frames beside its record: private, sealed.
        let copy = bob.record + ".frames"
        #expect(permissions(of: copy) == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        for secret in ["Scarf", "Grandma", "Alice", "The Joneses", "bob-new-password"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in clear in the device's copy")
        }
    }
}
