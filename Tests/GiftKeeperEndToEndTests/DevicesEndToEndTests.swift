import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, devices: two sandboxes (each its own home, state, device key and journal) share
/// one journal through the test service `make test` starts (``ServiceFixture``): offline
/// work merged, and what the server sees and can hide. (Enrolment, live changes and the
/// service's faults are ServiceEndToEndTests'.)
@Suite("Two devices through giftkeeper-server: offline work and lies", .programSlot, .needsService)
struct DevicesEndToEndTests {
    let url = ServiceFixture.url ?? ""
    let trust = ServiceFixture.deviceEnvironment
    /// A service nobody listens on: a device offline.
    let nowhere = "https://127.0.0.1:1"

    /// The laptop's journal, shared through the service, and cloned onto `desktop` with a
    /// one-time code when given; returns the address naming the laptop's copy there.
    @discardableResult
    func sharedLaptop(_ laptop: Sandbox, clonedTo desktop: Sandbox? = nil) async throws -> String {
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad 'Lego set'\nquit\n", environment: trust)
        #expect(outcome.status == 0, "\(outcome)")
        let line = try #require(outcome.stderr.split(separator: "\n").first { $0.hasPrefix("Shared through ") }, "\(outcome)")
        let copy = String(line.dropFirst("Shared through ".count).prefix { $0 != " " }.dropLast())
        if let desktop {
            let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
            #expect(code.status == 0, "\(code)")
            let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let cloned = try await desktop.run(["clone", address, "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
            #expect(cloned.status == 0, "\(cloned)")
        }
        return copy
    }

    /// `arguments` on `device`, the password on standard input, trusting the test service.
    func run(_ device: Sandbox, _ arguments: [String], password: Bool = true) async throws -> Outcome {
        try await device.run(arguments + ["--journal", device.journal], input: password ? "secret-pw\n" : "", environment: trust)
    }

    @Test("offline on both, then sync: the same list and the same journal on each, the taken id renumbered and told")
    func offlineChangesMerge() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await sharedLaptop(laptop, clonedTo: desktop)

        // Both offline: their changes are acknowledged and wait.
        let marked = try await run(laptop, ["mark", "p1", "bought", "--remote", nowhere])
        #expect(marked.status == 0, "\(marked)")
        #expect(marked.stderr.contains("Offline ("), "\(marked)")
        let book = try await run(laptop, ["add", "Mum", "Book", "--remote", nowhere])
        #expect(book.stdout.contains("Saved p2"), "\(book)")
        let kite = try await run(desktop, ["add", "Gran", "Kite", "--remote", nowhere])
        #expect(kite.stdout.contains("Saved p2"), "\(kite)")

        // Back online (the remembered service): the laptop sends; the desktop must merge.
        let sent = try await run(laptop, ["sync"])
        #expect(sent.status == 0, "\(sent)")
        let merged = try await run(desktop, ["sync"])
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout.contains("⇄ p2 \"Kite\" is now p3 (p2 was taken on another device)"), "\(merged)")
        let back = try await run(laptop, ["sync"])
        #expect(back.status == 0, "\(back)")

        let laptopList = try await run(laptop, ["list", "--json"])
        let desktopList = try await run(desktop, ["list", "--json"])
        #expect(laptopList.stdout.contains("\"Kite\"") && laptopList.stdout.contains("\"bought\""), "\(laptopList)")
        #expect(laptopList.stdout == desktopList.stdout)
        // The listings' sign-ins and sign-outs went to the service too; one more sync each way,
        // and the desktop's last. Every sync signs in (its own sign-in and sign-out frames), so
        // the laptop's journal is, byte for byte, the start of the desktop's.
        _ = try await run(desktop, ["sync"])
        _ = try await run(laptop, ["sync"])
        _ = try await run(desktop, ["sync"])
        let (laptopBytes, desktopBytes) = (fileBytes(laptop.journal) ?? [], fileBytes(desktop.journal) ?? [])
        #expect(
            !laptopBytes.isEmpty && laptopBytes.count < desktopBytes.count && desktopBytes.starts(with: laptopBytes),
            "the two devices' journals differ")
        #expect(try await laptop.verifies())
        #expect(try await desktop.verifies())
    }

    @Test("a present removed on the laptop and edited on the desktop offline comes back, edited, and that is told")
    func editBringsBackARemovedPresent() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await sharedLaptop(laptop, clonedTo: desktop)

        let removed = try await run(laptop, ["remove", "p1"])
        #expect(removed.status == 0, "\(removed)")
        let edited = try await run(desktop, ["edit", "p1", "price=35", "--remote", nowhere])
        #expect(edited.status == 0, "\(edited)")

        let merged = try await run(desktop, ["sync"])
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout.contains("⇄ p1 \"Lego set\" was removed on another device; your change brought it back"), "\(merged)")
        let seen = try await run(laptop, ["list", "--json"])
        #expect(seen.status == 0, "\(seen)")
        #expect(seen.stdout.contains("\"Lego set\"") && seen.stdout.contains("\"35.00\""), "\(seen)")
        // The laptop, whose removal lost, is told at its next sync.
        #expect(
            seen.stderr.contains("⇄ p1 \"Lego set\", which you removed, was brought back by a change on another device"),
            "\(seen)")
    }

    /// A laptop whose edit (price 30) lost to the desktop's (35, made offline, then synced).
    func laptopWhosePriceLost() async throws -> Sandbox {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await sharedLaptop(laptop, clonedTo: desktop)
        let first = try await run(laptop, ["edit", "p1", "price=30"])
        #expect(first.status == 0, "\(first)")
        let offline = try await run(desktop, ["edit", "p1", "price=35", "--remote", nowhere])
        #expect(offline.status == 0, "\(offline)")
        let merged = try await run(desktop, ["sync"])
        #expect(merged.status == 0, "\(merged)")
        return laptop
    }

    @Test("an edit of one field on both devices: the one later in the journal wins, and the device whose edit lost is told")
    func overriddenEditIsTold() async throws {
        let laptop = try await laptopWhosePriceLost()

        let told = try await run(laptop, ["list"])
        #expect(told.status == 0, "\(told)")
        #expect(told.stderr.contains("⇄ p1 \"Lego set\": your price 30.00 gave way to 35.00 from another device"), "\(told)")
        #expect(told.stdout.contains("35.00"), "\(told)")
        // Told once: the next sync has nothing of it to say.
        let again = try await run(laptop, ["list"])
        #expect(!again.stderr.contains("gave way"), "\(again)")
    }

    @Test("'giftkeeper sync' signs in, so the device whose edit lost is told at a plain sync too (issue 27 item 8)")
    func overriddenEditIsToldBySync() async throws {
        let laptop = try await laptopWhosePriceLost()

        let told = try await run(laptop, ["sync"])
        #expect(told.status == 0, "\(told)")
        #expect(
            (told.stdout + told.stderr).contains("⇄ p1 \"Lego set\": your price 30.00 gave way to 35.00 from another device"),
            "\(told)")
    }

    @Test("a service rolled back after the laptop saw its frames is caught by a new device through the laptop's posted head")
    func rollbackCaughtByAnotherDevice() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        let added = try await run(laptop, ["add", "Mum", "Blue scarf"])
        #expect(added.status == 0, "\(added)")
        // The one-time code is made before the service goes back (it is not a frame).
        let code = try await run(laptop, ["device", "add"])
        #expect(code.status == 0, "\(code)")
        // The service goes back to its first three frames (as a restored backup, or a lie).
        try await ServiceEndToEndTests().rollBack(copy, toFrame: 3, environment: laptop.environment)

        let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cloned = try await desktop.run(["clone", address, "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(cloned.status == 0, "\(cloned)")
        let list = try await run(desktop, ["list"])
        #expect(list.status == 1, "\(list)")
        #expect(list.stderr.contains("but another device saw"), "\(list)")
        // The laptop's own memory says the same of the service.
        let sync = try await run(laptop, ["sync"])
        #expect(sync.status == 1, "\(sync)")
    }

    @Test("the service sees frame sizes that do not tell how long a title is")
    func frameSizesHideTitleLengths() async throws {
        let laptop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        for title in ["A", "A much longer title of forty characters!"] {
            let added = try await run(laptop, ["add", "Mum", title])
            #expect(added.status == 0, "\(added)")
        }
        let id = String(copy.split(separator: "#").last ?? "")
        let sizes = try await runProgram(
            "/usr/bin/psql",
            [
                ServiceFixture.databaseURL, "-At", "-c",
                "SELECT DISTINCT (octet_length(frame) - 53 - 40) % 64 FROM gk_frames "
                    + "WHERE encode(journal_id, 'hex') LIKE '\(id)%' AND get_byte(frame, 12) = 1",
            ], environment: laptop.environment)
        #expect(sizes.status == 0, "\(sizes)")
        #expect(sizes.stdout.split(separator: "\n") == ["0"], "\(sizes)")
    }

    @Test("a sync failing after a change is worded as itself: a removed device, an untrusted certificate; never 'Offline'")
    func syncFailuresWordedAsThemselves() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await sharedLaptop(laptop, clonedTo: desktop)
        let devices = try await run(laptop, ["device", "list"])
        let other = try #require(devices.stdoutLines.first { !$0.isEmpty && !$0.contains("(this device)") }, "\(devices)")
        let removed = try await run(laptop, ["device", "remove", String(other.prefix { $0 != " " })])
        #expect(removed.status == 0, "\(removed)")

        // Authentication: the removed device's change is saved; the sync says why it failed, once.
        let refused = try await run(desktop, ["add", "Mum", "Scarf"])
        #expect(refused.stdout.contains("Saved p2"), "\(refused)")
        #expect(refused.stderr.contains("it did not accept this device: this device is not enrolled (or was removed)"), "\(refused)")
        #expect(refused.stderr.contains("Enrol this device again"), "\(refused)")
        #expect(refused.stderr.components(separatedBy: "giftkeeper: error:").count == 2, "said once: \(refused)")
        #expect(!refused.stderr.contains("Offline") && !refused.stderr.contains("will be sent"), "\(refused)")
        #expect(refused.status == 5, "\(refused)")

        // TLS: a certificate this device does not trust (no $GIFTKEEPER_CA_FILE).
        let untrusted = try await laptop.run(["add", "Mum", "Kite", "--journal", laptop.journal], input: "secret-pw\n")
        #expect(untrusted.stdout.contains("Saved p"), "\(untrusted)")
        #expect(untrusted.stderr.contains("the secure connection failed"), "\(untrusted)")
        #expect(untrusted.stderr.contains("Check the service's certificate"), "\(untrusted)")
        #expect(!untrusted.stderr.contains("Offline") && !untrusted.stderr.contains("Error"), "\(untrusted)")
        #expect(untrusted.status == 5, "\(untrusted)")
        // Trusted again, the change waiting here goes.
        let sent = try await run(laptop, ["sync"])
        #expect(sent.status == 0 && sent.stdout.contains("sent"), "\(sent)")
    }

    @Test("a postgres:// remote is refused in one line that says to run giftkeeper-server, the password not repeated")
    func databaseRemotesAreRetired() async throws {
        let laptop = try Sandbox()
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", "postgres://alice:hunter2@127.0.0.1:5432/gifts"],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad 'Lego set'\nquit\n", environment: trust)
        #expect(outcome.stdout.contains("Saved p1"), "the change is kept here: \(outcome)")
        let errors = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("giftkeeper: error:") }
        #expect(errors.count == 1, "\(outcome)")
        #expect(errors.first?.contains("Run giftkeeper-server in front of the database") == true, "\(outcome)")
        #expect(errors.first?.contains("docs/sync.md") == true, "\(outcome)")
        #expect(!outcome.stderr.contains("hunter2") && !outcome.stderr.contains("Offline"), "\(outcome)")
        #expect(outcome.status == 5, "\(outcome)")
    }
}
