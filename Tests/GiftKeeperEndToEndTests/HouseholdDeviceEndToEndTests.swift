import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// A member's other device through giftkeeper-server (SPEC §13; docs/households.md "Adding a
/// device"): `household device add` on one, `household clone` on the other.
extension HouseholdEndToEndTests {
    /// `household clone ADDRESS` on `device`, its password on standard input.
    func clone(_ device: Member, _ address: String, password: String) async throws -> Outcome {
        try await device.sandbox.run(
            ["household", "clone", address, "--journal", device.record, "--kdf", "interactive"], input: password + "\n",
            environment: trust)
    }

    @Test(
        "Bob adds his phone: a wrong password keeps nothing, the code works once; the phone sees Grandma's present and never Bob's, writes for all, and stops when Alice removes Bob"
    )
    func bobsPhone() async throws {
        let (alice, bob, carol) = try await household()
        let telescope = try await plain(alice, ["add", "Bob", "Telescope"])
        #expect(telescope.status == 0, "\(telescope)")
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf"])
        #expect(scarf.status == 0, "\(scarf)")

        // A wrong password on the phone keeps nothing there, and spends the address.
        let first = try await run(bob, ["device", "add"])
        #expect(first.status == 0 && first.stderr.contains("household clone"), "\(first)")
        let spent = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(spent.contains("?enrol=") && spent.contains("#"), "\(first)")
        let phone = try Member("bob-secret")
        let wrong = try await clone(phone, spent, password: "not-bobs")
        #expect(wrong.status == 3, "\(wrong)")
        #expect(!FileManager.default.fileExists(atPath: phone.record), "\(wrong)")
        #expect(!FileManager.default.fileExists(atPath: phone.record + ".frames"), "\(wrong)")
        let again = try await clone(phone, spent, password: "bob-secret")
        #expect(again.status != 0 && !FileManager.default.fileExists(atPath: phone.record), "\(again)")

        // A new address, the right password: the phone is Bob's.
        let added = try await run(bob, ["device", "add"])
        #expect(added.status == 0, "\(added)")
        let address = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cloned = try await clone(phone, address, password: "bob-secret")
        #expect(cloned.status == 0 && cloned.stdout.contains("This device is Bob's now"), "\(cloned)")
        #expect(permissions(of: phone.record) == 0o600 && permissions(of: phone.record + ".frames") == 0o600)
        let reused = try await clone(try Member("bob-secret"), address, password: "bob-secret")
        #expect(reused.status != 0, "\(reused)")

        let phoneList = try await plain(phone, ["list"])
        #expect(Self.row(of: phoneList.stdout, holding: ["Grandma", "Scarf"]), "\(phoneList)")
        #expect(!phoneList.stdout.contains("Telescope"), "\(phoneList)")
        let members = try await run(phone, ["members"])
        #expect(members.stdout.contains("Bob  (you)"), "\(members)")

        // What the phone writes, Alice and Bob's laptop read.
        let kite = try await plain(phone, ["add", "Grandma", "Kite"])
        #expect(kite.status == 0, "\(kite)")
        for device in [alice, bob, carol] {
            let list = try await plain(device, ["list"])
            #expect(Self.row(of: list.stdout, holding: ["Grandma", "Kite"]), "\(list)")
        }

        // Bob's account holds his laptop and phone (not the device of the wrong password); a
        // tablet added then removed signs in no more.
        let listed = try await run(phone, ["device", "list"])
        #expect(listed.status == 0 && listed.stdout.split(separator: "\n").count == 2, "\(listed)")
        #expect(Self.row(of: listed.stdout, holding: ["(this device)"]), "\(listed)")
        let tabletAddress = try await run(bob, ["device", "add"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tablet = try Member("bob-secret")
        let tabletCloned = try await clone(tablet, tabletAddress, password: "bob-secret")
        #expect(tabletCloned.status == 0, "\(tabletCloned)")
        let three = try await run(bob, ["device", "list"])
        let newest = three.stdout.split(separator: "\n").compactMap { Int64($0.prefix { $0.isNumber }) }.max()
        #expect(three.stdout.split(separator: "\n").count == 3 && newest != nil, "\(three)")
        let dropped = try await run(bob, ["device", "remove", "\(newest ?? 0)"])
        #expect(dropped.status == 0 && dropped.stdout.contains("can no longer sign in"), "\(dropped)")
        let tabletList = try await plain(tablet, ["list"])
        #expect(tabletList.status != 0 && !tabletList.stdout.contains("Scarf"), "\(tabletList)")

        // Alice removes Bob: his phone is served nothing more either.
        let removed = try await run(alice, ["remove", "Bob"])
        #expect(removed.status == 0, "\(removed)")
        let after = try await plain(phone, ["list"])
        #expect(after.status == 1 && after.stderr.contains("or removed"), "\(after)")
    }

    @Test(
        "After Bob's passwd his phone is added again: its record and key removed, a new address, the new password; it reads and writes"
    )
    func phoneAddedAgainAfterPasswd() async throws {
        let (alice, bob, _) = try await household()
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf"])
        #expect(scarf.status == 0, "\(scarf)")
        let phone = try Member("bob-new-secret")
        let first = try await run(bob, ["device", "add"])
        let cloned = try await clone(phone, first.stdout.trimmingCharacters(in: .whitespacesAndNewlines), password: "bob-secret")
        #expect(cloned.status == 0, "\(cloned)")
        let renewed = try await run(bob, ["passwd"], input: "bob-secret\nbob-new-secret\nbob-new-secret\n")
        #expect(renewed.status == 0, "\(renewed)")
        // The phone knows the old password and asks for the new one: a wrong one changes nothing there.
        let kept = try String(contentsOfFile: phone.record, encoding: .utf8)
        let stale = try await plain(phone, ["add", "Grandma", "Stale"], input: "bob-secret\nnot-the-new-one\n")
        #expect(stale.status == 3 && stale.stderr.contains("changed on another device"), "\(stale)")
        #expect(stale.stderr.contains("opens no renewal of your keys"), "\(stale)")
        #expect(try String(contentsOfFile: phone.record, encoding: .utf8) == kept)

        for path in [phone.record, phone.record + ".frames", phone.sandbox.state + "/giftkeeper/devices"] {
            try FileManager.default.removeItem(atPath: path)
        }
        let added = try await run(bob, ["device", "add"], input: "bob-new-secret\n")
        #expect(added.status == 0, "\(added)")
        let again = try await clone(phone, added.stdout.trimmingCharacters(in: .whitespacesAndNewlines), password: "bob-new-secret")
        #expect(again.status == 0 && again.stdout.contains("This device is Bob's now"), "\(again)")
        let list = try await plain(phone, ["list"])
        #expect(list.status == 0 && Self.row(of: list.stdout, holding: ["Grandma", "Scarf"]), "\(list)")
        let fresh = try await plain(phone, ["add", "Grandma", "Fresh"])
        #expect(fresh.status == 0, "\(fresh)")
        let alices = try await plain(alice, ["list"])
        #expect(Self.row(of: alices.stdout, holding: ["Grandma", "Fresh"]), "\(alices)")
    }

    @Test(
        "After Bob's passwd on his laptop his phone carries itself over: the old password, then the new one; it reads Grandma's new present, never Bob's, and writes"
    )
    func phoneCarriedOverAfterPasswd() async throws {
        let (alice, bob, _) = try await household()
        let (phone, tablet) = (try Member("bob-new-secret"), try Member("bob-new-secret"))
        for device in [phone, tablet] {
            let address = try await run(bob, ["device", "add"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let cloned = try await clone(device, address, password: "bob-secret")
            #expect(cloned.status == 0, "\(cloned)")
        }
        let renewed = try await run(bob, ["passwd"], input: "bob-secret\nbob-new-secret\nbob-new-secret\n")
        #expect(renewed.status == 0, "\(renewed)")
        for (recipient, title) in [("Grandma", "Scarf"), ("Bob", "Telescope")] {
            let added = try await plain(alice, ["add", recipient, title])
            #expect(added.status == 0, "\(added)")
        }
        // The new password alone: refused there (the phone's keys are under the old one), saying what to do.
        let early = try await plain(phone, ["list"], input: "bob-new-secret\n")
        #expect(early.status == 3 && early.stderr.contains("sign in here once with the old one"), "\(early)")
        // The old password, then the new one: carried over; it sees Grandma's present and never Bob's.
        let carried = try await plain(phone, ["list"], input: "bob-secret\nbob-new-secret\n")
        #expect(carried.status == 0 && carried.stderr.contains("changed on another device"), "\(carried)")
        #expect(carried.stderr.contains("carried over to your new keys"), "\(carried)")
        #expect(Self.row(of: carried.stdout, holding: ["Grandma", "Scarf"]) && !carried.stdout.contains("Telescope"), "\(carried)")
        #expect(permissions(of: phone.record) == 0o600)
        // Its add reaches Alice, as Bob's.
        let kite = try await plain(phone, ["add", "Grandma", "Kite"])
        #expect(kite.status == 0, "\(kite)")
        let alices = try await plain(alice, ["list"])
        #expect(Self.row(of: alices.stdout, holding: ["Grandma", "Kite"]), "\(alices)")
        // From now on the old password opens nothing on the phone; the new one does.
        let old = try await plain(phone, ["list"], input: "bob-secret\n")
        #expect(old.status == 3 && !old.stdout.contains("Scarf"), "\(old)")
        let members = try await run(phone, ["members"])
        #expect(members.status == 0 && members.stdout.contains("Bob  (you)"), "\(members)")
        // The tablet, in the shell: the prompt after the old password takes the new one.
        let shell = try await plain(tablet, [], input: "login\nbob-secret\nbob-new-secret\nlist\n")
        #expect(shell.status == 0 && shell.stdout.contains("Kite") && !shell.stdout.contains("Telescope"), "\(shell)")
        let tablets = try await plain(tablet, ["list"])
        #expect(tablets.status == 0 && Self.row(of: tablets.stdout, holding: ["Grandma", "Scarf"]), "\(tablets)")
    }
}
