import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// Failed sign-ins told on a member's other devices, through giftkeeper-server (SPEC §13;
/// docs/threat-model.md, "Failed sign-ins on a member's other devices").
extension HouseholdEndToEndTests {
    @Test(
        "A wrong password on Bob's laptop is told once by his phone's next sign-in, not again, not by the laptop; Alice is told nothing; a made-up token changes nothing"
    )
    func failedSignInToldOnTheOtherDevice() async throws {
        let (alice, bob, _) = try await household()
        let phone = try Member("bob-secret")
        let added = try await run(bob, ["device", "add"])
        #expect(added.status == 0, "\(added)")
        let cloned = try await clone(phone, added.stdout.trimmingCharacters(in: .whitespacesAndNewlines), password: "bob-secret")
        #expect(cloned.status == 0, "\(cloned)")
        for device in [phone, bob, alice] {  // each signs in once: its report token is registered
            let list = try await plain(device, ["list"])
            #expect(list.status == 0, "\(list)")
        }
        let once = "1 failed attempt reported since your last visit"

        let wrong = try await plain(bob, ["list"], input: "not-bobs\n")
        #expect(wrong.status == 3, "\(wrong)")
        let told = try await plain(phone, ["list"])
        #expect(told.status == 0 && told.stderr.contains(once), "\(told)")
        let again = try await plain(phone, ["list"])
        #expect(again.status == 0 && !again.stderr.contains("failed attempt"), "\(again)")
        let laptop = try await plain(bob, ["list"])
        #expect(laptop.status == 0 && !laptop.stderr.contains("failed attempt"), "the laptop does not tell it a second time: \(laptop)")
        let alices = try await plain(alice, ["list"])
        #expect(alices.status == 0 && !alices.stderr.contains("failed attempt"), "\(alices)")

        // In the shell too: the phone's shell tells the next one, once.
        let second = try await plain(bob, ["list"], input: "not-bobs\n")
        #expect(second.status == 3, "\(second)")
        let shell = try await plain(phone, [], input: "login\nbob-secret\nlist\n")
        #expect(shell.status == 0 && (shell.stdout + shell.stderr).contains(once), "\(shell)")
        let laptopAgain = try await plain(bob, ["list"])
        #expect(laptopAgain.status == 0 && !laptopAgain.stderr.contains("failed attempt"), "\(laptopAgain)")

        // A made-up token is refused by the service, and the wrong password is answered as
        // before: the attempt stays on the laptop, told there, and not on the phone.
        let logins = bob.record + ".logins"
        let key = try #require(try String(contentsOfFile: logins, encoding: .utf8).split(separator: " ").first)
        try (key + " " + String(repeating: "5a", count: 32) + "\n").write(toFile: logins, atomically: true, encoding: .utf8)
        let madeUp = try await plain(bob, ["list"], input: "not-bobs\n")
        #expect(madeUp.status == 3 && madeUp.stderr == wrong.stderr && madeUp.stdout == wrong.stdout, "\(madeUp)")
        let phoneNothing = try await plain(phone, ["list"])
        #expect(phoneNothing.status == 0 && !phoneNothing.stderr.contains("failed attempt"), "\(phoneNothing)")
        let toldHere = try await plain(bob, ["list"])
        #expect(toldHere.status == 0 && toldHere.stderr.contains(once), "\(toldHere)")
    }
}
