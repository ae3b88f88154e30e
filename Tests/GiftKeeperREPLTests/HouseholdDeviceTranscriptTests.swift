import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// `household device add | list | remove ID` in a member's open shell (docs/households.md
/// "Adding a device"), as the `giftkeeper household device …` one-shots have them: through
/// the desk's side of the service (``HouseholdDevices``), here an account in memory.
@Suite(.serialized) struct HouseholdDeviceTranscriptTests {
    typealias Household = HouseholdShellTranscriptTests.Household

    /// The service's side for one member: membership as ``HouseholdShellTranscriptTests/MemoryDesk``
    /// has it, and the member's account with its devices and the addresses it gave.
    final class DeviceDesk: HouseholdDesk, HouseholdDevices {
        let membership = HouseholdShellTranscriptTests.MemoryDesk()
        var devices: [(id: Int64, name: String)] = [(1, "laptop"), (2, "phone")]
        var addresses: [MemberID] = []

        var invitationCodes: [String] { membership.invitationCodes }
        func file(code: String, invitationID: [UInt8], publicKey: [UInt8], ownerKeys: [UInt8]) throws {
            try membership.file(code: code, invitationID: invitationID, publicKey: publicKey, ownerKeys: ownerKeys)
        }
        func waitingRequests() throws -> [JoinRequest] { try membership.waitingRequests() }
        func spend(code: String, invitationID: [UInt8], burning: Bool) throws {
            try membership.spend(code: code, invitationID: invitationID, burning: burning)
        }
        func append(_ step: MembershipStep, batch: FrameBatch, to store: any FrameStore) throws -> AppendOutcome {
            try membership.append(step, batch: batch, to: store)
        }

        func deviceAddress(for member: MemberID) throws -> (address: String, seconds: Int) {
            addresses.append(member)
            return ("https://gifts.example/?enrol=CODE\(addresses.count)#0a0b0c0d.\(member)", 600)
        }

        func deviceLines() throws -> [String] { devices.map { "\($0.id)  \($0.name)" + ($0.id == 1 ? "  (this device)" : "") } }

        func dropDevice(_ id: Int64) throws -> String {
            guard devices.contains(where: { $0.id == id }) else {
                throw JournalError(.unreachable(.rejected(status: 404, message: "no device \(id) in this account")), path: "gifts.example")
            }
            devices.removeAll { $0.id == id }
            return "Removed device \(id)."
        }
    }

    /// `name`'s shell over the household, its desk `desk`, signed in, running `lines`.
    static func shell(_ home: Household, _ name: String, desk: DeviceDesk, _ lines: [String]) throws -> Transcript.Outcome {
        let service = try home.service(name)
        service.desk = desk
        return try home.transcript.run(["login", name.lowercased() + "-pw"] + lines, over: service)
    }

    @Test("Bob's shell adds, lists and removes his devices as the one-shots do; a device's number is asked for when left out")
    func devicesFromTheShell() throws {
        let home = try Household()
        let desk = DeviceDesk()
        let added = try Self.shell(home, "Bob", desk: desk, ["household device add", "household device list"])
        #expect(added.status == 0, "\(added)")
        #expect(desk.addresses == [try #require(home.members["Bob"])], "the address names Bob")
        let address = try #require(added.outputLines.first { $0.hasPrefix("https://gifts.example/?enrol=CODE1#") }, "\(added)")
        #expect(address.hasSuffix(".\(try #require(home.members["Bob"]))"), "\(added)")
        #expect(added.output.contains("On your other device, within 10 minutes: giftkeeper household clone 'ADDRESS'"), "\(added)")
        #expect(added.outputLines.suffix(2) == ["1  laptop  (this device)", "2  phone"], "\(added)")

        let removed = try Self.shell(home, "Bob", desk: desk, ["household device remove 2", "household device"])
        #expect(removed.status == 0 && removed.output.contains("Removed device 2."), "\(removed)")
        #expect(removed.outputLines.last == "1  laptop  (this device)", "\(removed)")

        // Asked for (a script's next line) when left out; an unknown number or action refused.
        desk.devices.append((3, "tablet"))
        let asked = try Self.shell(
            home, "Bob", desk: desk,
            ["household device remove", "3", "household device remove 9", "household device remove x", "household device frob"])
        #expect(asked.output.contains("Removed device 3.") && desk.devices.map(\.id) == [1], "\(asked)")
        #expect(asked.errors.contains("no device 9 in this account"), "\(asked)")
        #expect(asked.errors.contains("not a device's number ('household device list' shows them)"), "\(asked)")
        #expect(asked.errors.contains("'household device frob' is not a command: 'household' takes 'device add'"), "\(asked)")

        // In a person's journal there are no household devices.
        let person = try Transcript().signedIn(["household device list"])
        #expect(person.status == 2 && person.errors.contains("'household' works in a household"), "\(person)")
    }
}
