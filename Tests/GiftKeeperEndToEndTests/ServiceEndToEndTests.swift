import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, the sync service: two sandboxes (each its own home, state, device key and
/// journal) share one journal through `giftkeeper-server` with TLS on loopback, the one
/// `make test` starts (``ServiceFixture``), the real binaries on both sides.
@Suite("Devices through giftkeeper-server", .programSlot, .needsService)
struct ServiceEndToEndTests {
    let url = ServiceFixture.url ?? ""
    let trust = ServiceFixture.deviceEnvironment

    /// The laptop's journal, shared through `service`; returns the address naming its copy there.
    func sharedLaptop(_ laptop: Sandbox, service: String? = nil, title: String = "Lego set") async throws -> String {
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", service ?? url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad '\(title)'\nquit\n", environment: trust)
        #expect(outcome.status == 0, "\(outcome)")
        let line = try #require(outcome.stderr.split(separator: "\n").first { $0.hasPrefix("Shared through ") }, "\(outcome)")
        return String(line.dropFirst("Shared through ".count).prefix { $0 != " " }.dropLast())
    }

    /// A one-time code from `laptop` (alone on standard output), cloned by `desktop`.
    func enrolAndClone(from laptop: Sandbox, to desktop: Sandbox) async throws {
        let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(code.status == 0, "\(code)")
        let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(address.contains("?enrol=") && address.contains("#"), "\(code)")
        let cloned = try await desktop.run(["clone", address, "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(cloned.status == 0, "\(cloned)")
        #expect(permissions(of: desktop.journal) == 0o600)
    }

    @Test(
        "a second device enrolled with a one-time code clones the journal; changes go both ways; the journals end the same, byte for byte, up to the last sync's own sign-in"
    )
    func twoDevicesConverge() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        #expect(copy.hasPrefix(url + "#"), "\(copy)")
        try await enrolAndClone(from: laptop, to: desktop)

        let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("Lego set"), "\(list)")
        let added = try await desktop.run(
            ["add", "Mum", "Blue scarf", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(added.status == 0, "\(added)")
        let seen = try await laptop.run(["list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(seen.stdout.contains("Blue scarf"), "\(seen)")
        #expect(seen.stderr.contains("↓ p2 \"Blue scarf\" for Mum was added elsewhere"), "\(seen)")

        let devices = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(devices.status == 0, "\(devices)")
        #expect(devices.stdoutLines.filter { !$0.isEmpty }.count == 2, "\(devices)")
        #expect(devices.stdout.contains("(this device)"), "\(devices)")

        // Every sync signs in (its own sign-in and sign-out frames): the desktop syncs last, and
        // the laptop's journal is, byte for byte, the start of the desktop's.
        _ = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        _ = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        _ = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        let (laptopBytes, desktopBytes) = (fileBytes(laptop.journal) ?? [], fileBytes(desktop.journal) ?? [])
        #expect(
            !laptopBytes.isEmpty && laptopBytes.count < desktopBytes.count && desktopBytes.starts(with: laptopBytes),
            "the two devices' journals differ")
        #expect(try await laptop.verifies())
        #expect(try await desktop.verifies())
    }

    @Test("a used enrolment code enrols no other device; a device without a code gets an account of its own, not the journal")
    func enrolmentCodesWorkOnce() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let stranger = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cloned = try await desktop.run(["clone", address, "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(cloned.status == 0, "\(cloned)")

        let again = try await stranger.run(["clone", address, "--journal", stranger.journal], input: "secret-pw\n", environment: trust)
        #expect(again.status != 0, "\(again)")
        #expect(again.stderr.contains("did not accept this device"), "\(again)")
        let withoutCode = String(address.prefix { $0 != "?" }) + "#" + String(address.split(separator: "#").last ?? "")
        let alone = try await stranger.run(["clone", withoutCode, "--journal", stranger.journal], input: "secret-pw\n", environment: trust)
        #expect(alone.status != 0, "\(alone)")
        #expect(!FileManager.default.fileExists(atPath: stranger.journal))
    }

    @Test("a removed device's key no longer signs in; removing a device the account does not have says so")
    func removedDeviceIsRefused() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        try await enrolAndClone(from: laptop, to: desktop)
        let devices = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        let other = try #require(devices.stdoutLines.first { !$0.isEmpty && !$0.contains("(this device)") }, "\(devices)")
        let id = String(other.prefix { $0 != " " })
        let removed = try await laptop.run(["device", "remove", id, "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(removed.status == 0, "\(removed)")

        let refused = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("did not accept this device: this device is not enrolled (or was removed)"), "\(refused)")
        #expect(!refused.stderr.contains("enrol="), "the used code is not repeated: \(refused)")
        let unknown = try await laptop.run(["device", "remove", "999999999", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(unknown.status != 0, "\(unknown)")
        #expect(unknown.stderr.contains("no device 999999999 in this account"), "\(unknown)")
    }

    @Test("a dump of the service's database holds no name, title, note or password, in clear or in hex")
    func databaseDumpHoldsOnlyCiphertext() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Rosalind --kdf interactive\nsecret-pw\nsecret-pw\n"
                + "add 'Grandmother Ingrid' 'Brass telescope' --notes 'hidden in the attic'\nquit\n",
            environment: trust)
        #expect(outcome.status == 0, "\(outcome)")
        try await enrolAndClone(from: laptop, to: desktop)
        let dump = try await runProgram("/usr/bin/pg_dump", [ServiceFixture.databaseURL], environment: laptop.environment)
        #expect(dump.status == 0, "\(dump)")
        #expect(dump.stdout.contains("gk_frames"))
        for secret in ["Rosalind", "Grandmother Ingrid", "Brass telescope", "hidden in the attic", "secret-pw"] {
            let hex = secret.utf8.map { String(format: "%02x", $0) }.joined()
            #expect(!dump.stdout.contains(secret) && !dump.stdout.contains(hex), "\(secret) is in the service's dump")
        }
    }

    @Test("the serve role sees one account's rows only, owns nothing, cannot bypass row-level security; PUBLIC cannot connect")
    func databaseTenancy() async throws {
        let laptop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let owner = ServiceFixture.databaseURL
        let serve = owner.replacingOccurrences(of: "//giftkeeper@", with: "//giftkeeper_serve@")
        let asServe = try await runProgram(
            "/usr/bin/psql", [serve, "-At", "-c", "SELECT count(*) FROM gk_frames; SELECT count(*) FROM gk_journals"],
            environment: laptop.environment)
        #expect(asServe.status == 0, "\(asServe)")
        #expect(asServe.stdout.split(separator: "\n") == ["0", "0"], "no account set: no row. \(asServe)")
        let role = try await runProgram(
            "/usr/bin/psql",
            [
                owner, "-At", "-c",
                "SELECT rolsuper, rolbypassrls, (SELECT count(*) FROM pg_tables WHERE tableowner = 'giftkeeper_serve'), "
                    + "has_database_privilege('public', current_database(), 'CONNECT') FROM pg_roles WHERE rolname = 'giftkeeper_serve'",
            ], environment: laptop.environment)
        #expect(role.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "f|f|0|f", "\(role)")
        let forged = try await runProgram(
            "/usr/bin/psql",
            [serve, "-At", "-c", "INSERT INTO gk_accounts DEFAULT VALUES"], environment: laptop.environment)
        #expect(forged.status != 0, "\(forged)")
    }

    /// Runs a `giftkeeper-server serve` of the test's own (the shared service's database,
    /// or `database` as its owner, and certificate) on `port` (0: the system chooses) with
    /// `options`, calls `body` with its address (and the running server) once it serves, then
    /// stops it with SIGTERM and expects a clean exit. Returns the port it served on.
    @discardableResult
    func withService(
        port: Int, options: [String] = [], database owner: String = ServiceFixture.databaseURL,
        _ body: (String, RunningProgram) async throws -> Void
    ) async throws -> Int {
        let serverBinary = try Self.serverBinary()
        let database = owner.replacingOccurrences(of: "//giftkeeper@", with: "//giftkeeper_serve@")
        let certificates = ServiceFixture.certificateDirectory
        let arguments =
            [
                "serve", "--database", database, "--listen", "127.0.0.1:\(port)", "--tls-cert", certificates + "/server.pem",
                "--tls-key", certificates + "/server.key",
            ] + options
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        let (served, outcome) = try await withProgram(serverBinary, arguments, environment: environment, timeout: .seconds(120)) {
            server in
            let started = await server.wait(timeout: .seconds(30)) { stdout, _ in stdout.contains("serving https://") }
            #expect(started, "the service did not start: \(server.stderr)")
            let line = server.stdout.split(separator: "\n").first { $0.contains("serving https://") } ?? ""
            let served = Int(line.split(separator: ":").last ?? "") ?? port
            try await body("https://127.0.0.1:\(served)", server)
            server.kill(SIGTERM)
            return served
        }
        #expect(outcome.status == 0, "the service did not stop cleanly on SIGTERM: \(outcome)")
        return served
    }

    /// The `giftkeeper-server` beside the `giftkeeper` under test.
    /// `$GIFTKEEPER_SERVER_BINARY` (`make test-release`: the debug build's, as
    /// scripts/test-server.sh runs it), else the one built beside giftkeeper.
    static func serverBinary() throws -> String {
        if let named = ProcessInfo.processInfo.environment["GIFTKEEPER_SERVER_BINARY"], !named.isEmpty { return named }
        return URL(fileURLWithPath: try GiftKeeperBinary.require()).deletingLastPathComponent().path + "/giftkeeper-server"
    }

    @Test("with the service stopped a one-shot add says offline within the deadline; restarted, the change reaches another device")
    func serviceRestartLosesNothing() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        var service = ""
        let port = try await withService(port: ServiceFixture.sparePort) { address, _ in
            service = address
            _ = try await sharedLaptop(laptop, service: address)
        }
        // Nothing listens now: refused at once, so well within the 10-second deadline.
        let clock = ContinuousClock()
        let start = clock.now
        let offline = try await laptop.run(
            ["add", "Mum", "Book", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        let took = clock.now - start
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.stdout.contains("Saved p2"), "\(offline)")
        #expect(offline.stderr.contains("Offline ("), "\(offline)")
        #expect(took < .seconds(10), "the offline add took \(took)")

        try await withService(port: port) { address, _ in
            #expect(address == service)
            let sent = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
            #expect(sent.status == 0, "\(sent)")
            try await enrolAndClone(from: laptop, to: desktop)
            let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
            #expect(list.stdout.contains("Lego set") && list.stdout.contains("Book"), "\(list)")
        }
    }

    @Test("an account over its journal quota is refused in words, and the journal waits on the device")
    func journalQuota() async throws {
        let laptop = try Sandbox()
        let second = laptop.root + "/journals/second.journal"
        let port = ServiceFixture.sparePort == 0 ? 0 : ServiceFixture.sparePort + 2
        try await withService(port: port, options: ["--max-journals", "1"]) { address, _ in
            _ = try await sharedLaptop(laptop, service: address)
            let refused = try await laptop.run(
                ["--journal", second, "--remote", address],
                input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad 'Kite'\nquit\n", environment: trust)
            #expect(refused.status == 0, "\(refused)")
            #expect(refused.stderr.contains("over the quota of 1 journals an account"), "\(refused)")
            // Worded as a quota, the changes kept here: not as being offline.
            #expect(refused.stderr.contains("Not sent yet (") && !refused.stderr.contains("Offline"), "\(refused)")
            #expect(!refused.stderr.contains("Shared through"), "\(refused)")
        }
    }

    /// A shell on `device`'s journal in tmux session "desktop", signed in, at its prompt.
    /// A shell on `device`'s journal in tmux, signed in; `environment` is more `NAME=value `
    /// words for it (`GIFTKEEPER_REMOTE_TIMEOUT=2 `).
    func signedInShell(_ device: Sandbox, environment: String = "") async throws -> Tmux {
        let tmux = try Tmux()
        try await tmux.start(
            session: "desktop",
            "env -u GIFTKEEPER_JOURNAL HOME='\(device.home)' XDG_STATE_HOME='\(device.state)' "
                + "XDG_DATA_HOME='\(device.data)' LANG=C.UTF-8 GIFTKEEPER_CA_FILE='\(ServiceFixture.caFile)' \(environment)"
                + "'\(device.binary)' --journal '\(device.journal)'")
        try await tmux.waitFor("desktop", text: "Password:")
        try await tmux.enter("desktop", "secret-pw")
        try await tmux.waitFor("desktop", text: "🔓 Signed in as Alice")
        try await tmux.waitForLine("desktop")
        return tmux
    }

    /// `device` adds a present for `recipient` in a one-shot; the shell hears of it within `timeout` s.
    func add(_ title: String, for recipient: String, on device: Sandbox, heardIn shell: Tmux, timeout: Double) async throws {
        let added = try await device.run(
            ["add", recipient, title, "--journal", device.journal], input: "secret-pw\n", environment: trust)
        #expect(added.status == 0, "\(added)")
        try await shell.waitFor("desktop", text: "\"\(title)\" for \(recipient) was added elsewhere", timeout: timeout)
    }

    /// Whether a one-shot `list` on `device` shows `title` within `tries` tries, 2 s apart.
    func lists(_ title: String, on device: Sandbox, within tries: Int) async throws -> Bool {
        for _ in 0..<tries {
            try await Task.sleep(for: .seconds(2))
            let list = try await device.run(["list", "--journal", device.journal], input: "secret-pw\n", environment: trust)
            if list.stdout.contains(title) { return true }
        }
        return false
    }

    /// Makes the service's copy named by `copy` (its address, ending `#<journal id>`) hold only
    /// its first `sequence` frames, its head there: a restored backup, or a lie.
    func rollBack(_ copy: String, toFrame sequence: Int, environment: [String: String]) async throws {
        let id = String(copy.split(separator: "#").last ?? "")
        let journal = "(SELECT id FROM gk_journals WHERE encode(id, 'hex') LIKE '\(id)%')"
        let psql = try await runProgram(
            "/usr/bin/psql",
            [
                ServiceFixture.databaseURL, "-q", "-v", "ON_ERROR_STOP=1", "-c",
                "DELETE FROM gk_frames WHERE journal_id = \(journal) AND sequence > \(sequence); "
                    + "UPDATE gk_journals SET head_sequence = \(sequence), head_hash = (SELECT substring(frame FROM octet_length(frame) - 31) "
                    + "FROM gk_frames WHERE journal_id = \(journal) AND sequence = \(sequence)) WHERE id = \(journal)",
            ], environment: environment)
        #expect(psql.status == 0, "\(psql)")
    }

    /// Ends the shell with Ctrl-D and expects it to exit 0.
    func close(_ shell: Tmux) async throws {
        try await shell.press("desktop", "C-d")
        let screen = try await shell.waitFor("desktop", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
    }

    @Test("an open shell idle at its prompt asks the service nothing; another device's change reaches it through the live socket")
    func liveChangesReachAnOpenShell() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let port = ServiceFixture.sparePort == 0 ? 0 : ServiceFixture.sparePort + 3
        try await withService(port: port, options: ["--log-requests"]) { address, server in
            _ = try await sharedLaptop(laptop, service: address)
            try await enrolAndClone(from: laptop, to: desktop)
            let tmux = try await signedInShell(desktop)

            // Once the socket is open, the waiting shell reads nothing (it would poll once a second without it).
            let reads = { server.stderr.components(separatedBy: "/frames").count }
            let opened = await server.wait(timeout: .seconds(10)) { _, stderr in stderr.contains("/v1/live") }
            #expect(opened, "the shell opened no live socket: \(server.stderr)")
            try await Task.sleep(for: .seconds(2))
            let before = reads()
            try await Task.sleep(for: .seconds(4))
            #expect(reads() == before, "the idle shell read frames \(reads() - before) times in 4 s")

            try await add("Blue scarf", for: "Mum", on: laptop, heardIn: tmux, timeout: 5)
            try await close(tmux)
        }
    }

    @Test("two service processes on one database: a change made through one reaches a shell connected to the other")
    func changesCrossServiceProcesses() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let tablet = try Sandbox()
        let ports = ServiceFixture.sparePort == 0 ? (0, 0) : (ServiceFixture.sparePort + 4, ServiceFixture.sparePort + 5)
        try await withService(port: ports.0, options: ["--log-requests"]) { first, firstProcess in
            try await withService(port: ports.1) { second, _ in
                _ = try await sharedLaptop(laptop, service: first)
                try await enrolAndClone(from: laptop, to: desktop)
                // The tablet joins the same account through the other process (its own address).
                let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                let throughSecond = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    .replacingOccurrences(of: first, with: second)
                let cloned = try await tablet.run(["clone", throughSecond, "--journal", tablet.journal], input: "secret-pw\n", environment: trust)
                #expect(cloned.status == 0, "\(cloned)")

                let tmux = try await signedInShell(desktop)
                // The shell's live socket, on the first process, opens while it waits.
                let opened = await firstProcess.wait(timeout: .seconds(10)) { _, stderr in stderr.contains("/v1/live") }
                #expect(opened, "the shell opened no live socket: \(firstProcess.stderr)")
                try await Task.sleep(for: .seconds(1))
                try await add("Kite", for: "Gran", on: tablet, heardIn: tmux, timeout: 5)
                try await close(tmux)
            }
        }
    }

    @Test("an open shell whose service stops says offline at once, keeps working, and syncs by itself once it is back")
    func openShellOutlivesAServiceRestart() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        var tmux: Tmux?
        let port = try await withService(port: ServiceFixture.sparePort == 0 ? 0 : ServiceFixture.sparePort + 6) { address, _ in
            _ = try await sharedLaptop(laptop, service: address)
            try await enrolAndClone(from: laptop, to: desktop)
            tmux = try await signedInShell(desktop)
        }
        let shell = try #require(tmux)
        // The service is gone: the change is saved here at once, and the shell says it is offline.
        let clock = ContinuousClock()
        let start = clock.now
        try await shell.enter("desktop", "add Eve Kite")
        try await shell.waitFor("desktop", text: "Saved p2", timeout: 10)
        try await shell.waitFor("desktop", text: "Offline (", timeout: 10)
        #expect(clock.now - start < .seconds(10), "the shell took \(clock.now - start) to answer")
        try await shell.enter("desktop", "list")
        try await shell.waitFor("desktop", text: "2 presents", timeout: 10)

        try await withService(port: port) { _, _ in
            // Back: the shell sends its change by itself (it tries again every 15 s).
            #expect(
                try await lists("Kite", on: laptop, within: 20),
                "the shell's change did not reach the laptop within 40 s of the service's return")
            // And hears the laptop's changes again.
            try await add("Drum", for: "Dad", on: laptop, heardIn: shell, timeout: 15)
            try await close(shell)
        }
    }

    @Test("a sync reads only the frames after the position this device last shared; a service rolled back behind it is read whole and reported")
    func cursorReadsAfterTheSharedPosition() async throws {
        let laptop = try Sandbox()
        let port = ServiceFixture.sparePort == 0 ? 0 : ServiceFixture.sparePort + 7
        try await withService(port: port, options: ["--log-requests"]) { address, server in
            let copy = try await sharedLaptop(laptop, service: address)
            let logged = server.stderr.count
            for title in ["Kite", "Drum"] {
                let added = try await laptop.run(
                    ["add", "Mum", title, "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(added.status == 0, "\(added)")
            }
            let synced = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
            #expect(synced.status == 0, "\(synced)")
            // Each command since the journal was shared read from its shared position on, never from 0.
            let reads = server.stderr.dropFirst(logged).split(separator: "\n").filter { $0.contains("/frames?after=") }
            #expect(!reads.isEmpty && !reads.contains { $0.contains("after=0&") }, "\(reads)")

            // The service loses every frame after the third (a restored backup, or a lie).
            try await rollBack(copy, toFrame: 3, environment: laptop.environment)
            let caught = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
            #expect(caught.status == 1, "\(caught)")
            #expect(caught.stderr.contains("holds 3 frames"), "\(caught)")
        }
    }

    @Test("a link that holds every byte makes a one-shot say offline within its deadlines; the change goes at the next sync")
    func heldLinkIsOfflineWithinTheDeadline() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let hole = try HeldLink(port: ServiceFixture.sparePort == 0 ? 0 : ServiceFixture.sparePort + 1)
        defer { hole.close() }
        let clock = ContinuousClock()
        let start = clock.now
        let held = try await laptop.run(
            ["add", "Mum", "Book", "--journal", laptop.journal, "--remote", "https://127.0.0.1:\(hole.port)"],
            input: "secret-pw\n", environment: trust.merging(["GIFTKEEPER_REMOTE_TIMEOUT": "2"]) { $1 })
        let took = clock.now - start
        #expect(held.status == 0, "\(held)")
        #expect(held.stdout.contains("Saved p2"), "\(held)")
        #expect(held.stderr.contains("Offline (") && held.stderr.contains("did not answer within 2 s"), "\(held)")
        // One 2-second deadline: the sync after the change does not wait out another.
        #expect(took < .seconds(7), "the add took \(took) with 2-second deadlines")

        let sent = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(sent.status == 0, "\(sent)")
        try await enrolAndClone(from: laptop, to: desktop)
        let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(list.stdout.contains("Book"), "\(list)")
    }
}

/// A TCP port on loopback that takes connections and never answers: the kernel completes
/// each handshake into the listen backlog, nobody accepts, and every byte sent is held —
/// a link that went silent.
final class HeldLink {
    let descriptor: Int32
    let port: Int

    init(port wanted: Int) throws {
        (descriptor, port) = try HoldingRelay.listen(port: wanted)
    }

    func close() { _ = Glibc.close(descriptor) }
}
