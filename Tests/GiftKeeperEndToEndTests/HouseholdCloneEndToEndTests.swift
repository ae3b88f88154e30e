import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// `household clone`'s edges through giftkeeper-server (docs/households.md "Adding a
/// device"): a clone that fails once its code is spent keeps nothing, on the device or in
/// the account; a device that holds a key for the service already clones beside it.
extension HouseholdEndToEndTests {
    /// The key files `device` holds for services.
    static func deviceKeys(_ device: Member) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: device.sandbox.state + "/giftkeeper/devices")) ?? []).filter {
            $0.hasSuffix(".key")
        }
    }

    /// The devices `household device list` shows for the record at `record` in `device`'s sandbox.
    func devices(_ device: Member, record: String, password: String) async throws -> [Substring] {
        let listed = try await device.sandbox.run(
            ["household", "device", "list", "--journal", record], input: password + "\n", environment: trust)
        #expect(listed.status == 0, "\(listed)")
        return listed.stdout.split(separator: "\n")
    }

    @Test("A clone that fails after its code was spent (the record not writable) keeps no record, copy or key, and no device in the account")
    func aFailedCloneKeepsNothing() async throws {
        let (_, bob, _) = try await household()
        let address = try await run(bob, ["device", "add"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let phone = try Member("bob-secret")
        let blocked = phone.sandbox.root + "/blocked"
        #expect(FileManager.default.createFile(atPath: blocked, contents: Data()))
        let record = blocked + "/household.gk"
        let failed = try await phone.sandbox.run(
            ["household", "clone", address, "--journal", record, "--kdf", "interactive"], input: "bob-secret\n", environment: trust)
        #expect(failed.status == 5 && failed.stderr.contains("every part before the file name must be a directory"), "\(failed)")
        #expect(!failed.stderr.contains("SystemCallError"), "\(failed)")
        #expect(!failed.stderr.contains("may still be listed"), "the service was told: \(failed)")
        #expect(Self.deviceKeys(phone).isEmpty, "\(failed)")
        #expect(try await devices(bob, record: bob.record, password: "bob-secret").count == 1, "only Bob's laptop")

        // A new address, a writable record: the phone is Bob's, its own key enrolled once.
        let again = try await run(bob, ["device", "add"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cloned = try await clone(phone, again, password: "bob-secret")
        #expect(cloned.status == 0 && cloned.stdout.contains("This device is Bob's now"), "\(cloned)")
        #expect(Self.deviceKeys(phone).count == 1)
        #expect(try await devices(bob, record: bob.record, password: "bob-secret").count == 2)
    }

    @Test("A device holding a key for the service in another account (Carol's) clones Bob's household beside it, with a key of its own")
    func aCloneBesideAnotherAccountsKey() async throws {
        let (alice, bob, carol) = try await household()
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf"])
        #expect(scarf.status == 0, "\(scarf)")
        let address = try await run(bob, ["device", "add"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bobs = carol.sandbox.root + "/bobs.gk"
        let cloned = try await carol.sandbox.run(
            ["household", "clone", address, "--journal", bobs, "--kdf", "interactive"], input: "bob-secret\n", environment: trust)
        #expect(cloned.status == 0 && cloned.stdout.contains("This device is Bob's now"), "\(cloned)")
        #expect(Self.deviceKeys(carol).count == 2, "Carol's key and the record's own")

        let bobsDevices = try await devices(carol, record: bobs, password: "bob-secret")
        #expect(bobsDevices.count == 2 && Self.row(of: bobsDevices.joined(separator: "\n"), holding: ["(this device)"]), "\(bobsDevices)")
        #expect(try await devices(carol, record: carol.record, password: "carol-pw").count == 1, "Carol's account as it was")
        let list = try await carol.sandbox.run(["list", "--journal", bobs], input: "bob-secret\n", environment: trust)
        #expect(list.status == 0 && Self.row(of: list.stdout, holding: ["Grandma", "Scarf"]), "\(list)")
        let carols = try await plain(carol, ["list"])
        #expect(carols.status == 0 && Self.row(of: carols.stdout, holding: ["Grandma", "Scarf"]), "\(carols)")
    }
}
