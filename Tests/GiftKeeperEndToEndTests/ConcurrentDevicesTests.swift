import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, several writers at once through the test service (``ServiceFixture``): several
/// processes of one device, and several devices adding to one journal, each through the
/// built binary. Nothing lost or duplicated, no false alarm, nothing recorded said to be not.
@Suite("Several processes and devices at once through giftkeeper-server", .programSlot, .needsService)
struct ConcurrentDevicesTests {
    let url = ServiceFixture.url ?? ""
    let trust = ServiceFixture.deviceEnvironment

    /// The laptop's journal shared through the service, cloned onto each of `others` with a
    /// one-time code.
    func share(_ laptop: Sandbox, with others: [Sandbox]) async throws {
        let shared = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad 'Lego set'\nquit\n", environment: trust)
        #expect(shared.status == 0, "\(shared)")
        for device in others {
            let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
            #expect(code.status == 0, "\(code)")
            let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let cloned = try await device.run(["clone", address, "--journal", device.journal], input: "secret-pw\n", environment: trust)
            #expect(cloned.status == 0, "\(cloned)")
        }
    }

    /// `arguments` on `device` with the password on standard input.
    func run(_ device: Sandbox, _ arguments: [String], remote: String? = nil) async throws -> Outcome {
        try await Device(device, trust: trust).run(arguments, remote: remote)
    }

    /// What runs the binary as one sandbox's device, from any task.
    struct Device: Sendable {
        let binary: String
        let environment: [String: String]
        let journal: String

        init(_ sandbox: Sandbox, trust: [String: String]) {
            binary = sandbox.binary
            environment = sandbox.environment.merging(trust) { $1 }
            journal = sandbox.journal
        }

        func run(_ arguments: [String], remote: String? = nil) async throws -> Outcome {
            try await runProgram(
                binary, arguments + ["--journal", journal] + (remote.map { ["--remote", $0] } ?? []),
                input: Array("secret-pw\n".utf8), environment: environment, timeout: .seconds(120))
        }
    }

    @Test("a merging sync and a one-shot add on one device, 0–60 ms apart: no false rollback, nothing lost (20 seeded rounds)")
    func twoProcessesOfOneDevice() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await share(laptop, with: [desktop])
        var random = TestRandom()
        for round in 1...20 {
            // The laptop moves the service on; the desktop has a change of its own offline:
            // its next sync must merge (and rewrite its journal's tail).
            let sent = try await run(laptop, ["add", "Mum", "Laptop \(round)"])
            #expect(sent.status == 0, "round \(round): \(sent)")
            let offline = try await run(desktop, ["add", "Gran", "Offline \(round)"], remote: "https://127.0.0.1:1")
            #expect(offline.status == 0, "round \(round): \(offline)")
            let gap = Int.random(in: 0...60, using: &random)
            let device = Device(desktop, trust: trust)
            async let merge = device.run(["sync"])
            try await Task.sleep(for: .milliseconds(gap))
            async let add = device.run(["add", "Dad", "Desktop \(round)"])
            let (merged, added) = try await (merge, add)
            for outcome in [merged, added] {
                #expect(!outcome.stderr.contains("Rollback detected"), "round \(round), \(gap) ms apart (\(random)): \(outcome)")
                #expect(outcome.status == 0, "round \(round), \(gap) ms apart (\(random)): \(outcome)")
            }
            let after = try await run(desktop, ["list"])
            #expect(after.status == 0 && !after.stderr.contains("Rollback detected"), "round \(round) (\(random)): \(after)")
        }
        _ = try await run(desktop, ["sync"])
        _ = try await run(laptop, ["sync"])
        let list = try await run(laptop, ["list", "--json"])
        for round in 1...20 {
            for title in ["Laptop \(round)", "Offline \(round)", "Desktop \(round)"] {
                #expect(list.stdout.components(separatedBy: "\"\(title)\"").count == 2, "\(title) once: \(list)")
            }
        }
    }

    @Test("five devices adding at once to one journal, 100 one-shot adds: each recorded exactly once, none said not to be")
    func fiveDevicesAddingAtOnce() async throws {
        let devices = try (0..<5).map { _ in try Sandbox() }
        try await share(devices[0], with: Array(devices.dropFirst()))
        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for (index, device) in devices.map({ Device($0, trust: trust) }).enumerated() {
                group.addTask {
                    var outcomes: [Outcome] = []
                    for add in 1...20 { outcomes.append(try await device.run(["add", "Mum", "Device \(index) add \(add)"])) }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.count == 100)
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome)")
            #expect(outcome.stdout.contains("Saved p"), "\(outcome)")
            #expect(!outcome.stderr.contains("Nothing was recorded") && !outcome.stderr.contains("error:"), "\(outcome)")
        }
        // What waits on a device (a sync that kept losing the race) goes now.
        for device in devices { _ = try await run(device, ["sync"]) }
        let list = try await run(devices[0], ["list", "--json"])
        #expect(list.status == 0, "\(list)")
        for index in 0..<5 {
            for add in 1...20 {
                let title = "\"Device \(index) add \(add)\""
                #expect(list.stdout.components(separatedBy: title).count == 2, "\(title) once: \(list)")
            }
        }
        // Level (the listing's sign-in and sign-out included): every device syncs in turn. Each
        // sync signs in (its own sign-in and sign-out frames, sent as it ends), so every
        // device's journal is then, byte for byte, the start of the last one's.
        var syncs: [Outcome] = []
        for device in devices {
            let synced = try await run(device, ["sync"])
            #expect(synced.status == 0, "\(synced)")
            syncs.append(synced)
        }
        let last = fileBytes(devices[4].journal) ?? []
        for device in devices.dropLast() {
            let bytes = fileBytes(device.journal) ?? []
            let same = !bytes.isEmpty && last.starts(with: bytes)
            #expect(same, "the devices' journals differ after \(syncs.count) syncs: \(syncs.last.map { "\($0)" } ?? "")")
        }
    }
}
