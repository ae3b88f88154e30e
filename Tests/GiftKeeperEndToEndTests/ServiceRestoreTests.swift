import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, restores and lies through the real service: a database of the test's own in
/// the service's PostgreSQL (so that restoring it, and its new epoch, touch no other test's
/// devices), dumped and restored with PostgreSQL's own tools, served by a
/// `giftkeeper-server` of the test's own.
extension ServiceEndToEndTests {
    /// Runs `sql` with psql against `database`, expecting it to succeed; returns its output.
    @discardableResult
    func psql(_ database: String, _ sql: String) async throws -> String {
        let outcome = try await runProgram(
            "/usr/bin/psql", [database, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql], environment: ["LANG": "C.UTF-8"])
        #expect(outcome.status == 0, "\(sql): \(outcome)")
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A database of the test's own beside the service's, migrated; `body` gets its URL
    /// (as its owner); dropped afterwards.
    func withOwnDatabase(_ body: (String) async throws -> Void) async throws {
        let owner = ServiceFixture.databaseURL
        let slash = try #require(owner.lastIndex(of: "/"))
        let name = "gk_test_\(UInt32.random(in: 0...UInt32.max))"
        let url = owner[..<slash] + "/" + name
        try await psql(owner, "CREATE DATABASE \(name)")
        do {
            let migrated = try await runProgram(
                try Self.serverBinary(), ["migrate", "--database", url], environment: ["LANG": "C.UTF-8"])
            try #require(migrated.status == 0, "\(migrated)")
            try await body(url)
        } catch {
            _ = try? await psql(owner, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
        try await psql(owner, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// The frames the database holds.
    func frameCount(_ database: String) async throws -> Int {
        Int(try await psql(database, "SELECT count(*) FROM gk_frames")) ?? -1
    }

    @Test("a restored dump announced with 'giftkeeper-server restored' strands nothing: both devices' changes end on the server once, and converge")
    func restoredBackupStrandsNothing() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let dump = laptop.root + "/service.dump"
        try await withOwnDatabase { database in
            let port = try await withService(port: 0, database: database) { address, _ in
                _ = try await sharedLaptop(laptop, service: address)
                try await enrolAndClone(from: laptop, to: desktop)
                let level = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
                #expect(level.stdout.contains("Lego set"), "\(level)")
                // The backup, at N frames.
                let dumped = try await runProgram("/usr/bin/pg_dump", ["-Fc", "-f", dump, database], environment: laptop.environment)
                #expect(dumped.status == 0, "\(dumped)")
                // The laptop adds after it; the desktop does not sync.
                let added = try await laptop.run(
                    ["add", "Mum", "Blue scarf", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(added.status == 0 && !added.stderr.contains("Offline"), "\(added)")
            }
            // The operator restores the dump, without saying so first.
            let restored = try await runProgram(
                "/usr/bin/pg_restore", ["--clean", "--if-exists", "-d", database, dump], environment: laptop.environment)
            #expect(restored.status == 0, "\(restored)")
            try await withService(port: port, database: database) { _, _ in
                // A server behind what the laptop saw, with no new epoch: a rollback, exit 1, nothing sent.
                let before = try await frameCount(database)
                let caught = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(caught.status == 1, "\(caught)")
                #expect(caught.stderr.contains("nothing is sent to it until a sync finds it consistent again"), "\(caught)")
                #expect(try await frameCount(database) == before)

                // The operator step: every device is told at its next contact.
                let step = try await runProgram(
                    try Self.serverBinary(), ["restored", "--database", database], environment: ["LANG": "C.UTF-8"])
                #expect(step.status == 0 && step.stdout.contains("new epoch"), "\(step)")
                let desktopAdd = try await desktop.run(
                    ["add", "Dad", "Kite", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
                #expect(desktopAdd.status == 0, "\(desktopAdd)")
                #expect(desktopAdd.stderr.contains("was restored from a backup"), "\(desktopAdd)")
                let merged = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(merged.status == 0, "\(merged)")
                #expect(merged.stdout.contains("was restored from a backup"), "\(merged)")
                #expect(merged.stdout.contains("is now p3"), "the laptop's p2, taken by the desktop's Kite, is renumbered: \(merged)")
                let received = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
                #expect(received.status == 0, "\(received)")

                let exports = try await [laptop, desktop].asyncMap { device in
                    try await device.run(["export", "--journal", device.journal], input: "secret-pw\n", environment: trust)
                }
                #expect(exports[0].status == 0 && exports[0].stdout == exports[1].stdout, "the devices' exports differ")
                for title in ["Lego set", "Blue scarf", "Kite"] {
                    #expect(exports[0].stdout.components(separatedBy: "\"\(title)\"").count == 2, "\(title) once: \(exports[0].stdout)")
                }
            }
        }
    }

    @Test("a shell that caught its service lying sends it nothing more until a sync checks out")
    func nothingIsSentAfterALie() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        try await withOwnDatabase { database in
            try await withService(port: 0, database: database) { address, _ in
                _ = try await sharedLaptop(laptop, service: address)
                try await enrolAndClone(from: laptop, to: desktop)
                let tmux = try await signedInShell(desktop)
                // The server makes up a device's head.
                try await psql(
                    database,
                    "INSERT INTO gk_heads (account_id, journal_id, device, record) SELECT account_id, id, "
                        + "'\\x00112233445566778899aabbccddeeff'::bytea, 'made up on the server'::bytea FROM gk_journals")
                try await tmux.enter("desktop", "add Eve Drum")
                try await tmux.waitFor("desktop", text: "does not authenticate", timeout: 15)
                let held = try await frameCount(database)
                try await tmux.enter("desktop", "add Eve Kite")
                try await tmux.waitFor("desktop", text: "Saved p3", timeout: 15)
                try await Task.sleep(for: .seconds(2))
                #expect(try await frameCount(database) == held, "the shell sent frames to a service caught lying")

                // Honest again: a sync that checks out sends them.
                try await psql(database, "DELETE FROM gk_heads WHERE record = 'made up on the server'::bytea")
                try await tmux.enter("desktop", "sync")
                try await tmux.waitFor("desktop", text: "Synced with", timeout: 15)
                #expect(try await frameCount(database) > held)
                try await close(tmux)
            }
        }
    }

    @Test("an open shell hears of an announced restore by itself and sends back what the backup lacks")
    func openShellHearsOfARestore() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let dump = laptop.root + "/service.dump"
        var shell: Tmux?
        try await withOwnDatabase { database in
            let port = try await withService(port: 0, database: database) { address, _ in
                _ = try await sharedLaptop(laptop, service: address)
                try await enrolAndClone(from: laptop, to: desktop)
                shell = try await signedInShell(desktop)
                let dumped = try await runProgram("/usr/bin/pg_dump", ["-Fc", "-f", dump, database], environment: laptop.environment)
                #expect(dumped.status == 0, "\(dumped)")
                try await add("Blue scarf", for: "Mum", on: laptop, heardIn: try #require(shell), timeout: 15)
            }
            let restored = try await runProgram(
                "/usr/bin/pg_restore", ["--clean", "--if-exists", "-d", database, dump], environment: laptop.environment)
            #expect(restored.status == 0, "\(restored)")
            let step = try await runProgram(try Self.serverBinary(), ["restored", "--database", database], environment: ["LANG": "C.UTF-8"])
            #expect(step.status == 0, "\(step)")
            let tmux = try #require(shell)
            try await withService(port: port, database: database) { _, _ in
                try await tmux.waitFor("desktop", text: "was restored from a backup; this device sent what it lacked", timeout: 45)
                // The laptop finds its frame there again: nothing to merge.
                let synced = try await laptop.run(["sync", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(synced.status == 0 && synced.stdout.contains("was restored from a backup"), "\(synced)")
                try await close(tmux)
            }
        }
    }

    /// The device id `device` posts its head under for its one journal (its record of the server).
    func deviceID(of device: Sandbox) throws -> String {
        let files = FileManager.default.enumerator(atPath: device.state)?.compactMap { $0 as? String } ?? []
        let record = try #require(files.first { $0.hasSuffix(".remote") }, "no record of the server in \(device.state)")
        let lines = try String(contentsOfFile: device.state + "/" + record, encoding: .utf8).split(separator: "\n")
        return String(try #require(lines.dropFirst(3).first))
    }

    @Test("a service that shows a device an older head of another than a third device saw is caught when their views cross")
    func hiddenProgressIsCaughtEndToEnd() async throws {
        let (laptop, desktop, tablet) = (try Sandbox(), try Sandbox(), try Sandbox())
        try await withOwnDatabase { database in
            try await withService(port: 0, database: database) { address, _ in
                _ = try await sharedLaptop(laptop, service: address)
                try await enrolAndClone(from: laptop, to: desktop)
                try await enrolAndClone(from: laptop, to: tablet)
                for device in [desktop, tablet, laptop] {
                    let synced = try await device.run(["list", "--journal", device.journal], input: "secret-pw\n", environment: trust)
                    #expect(synced.status == 0, "\(synced)")
                }
                let laptopID = try deviceID(of: laptop)
                let head = "FROM gk_heads WHERE device = '\\x\(laptopID)'::bytea"
                let older = try await psql(database, "SELECT encode(record, 'hex') \(head)")
                let added = try await laptop.run(
                    ["add", "Gran", "Drum", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(added.status == 0, "\(added)")
                // The desktop verifies the laptop's newer head and posts that it saw it.
                let seen = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
                #expect(seen.stdout.contains("Drum"), "\(seen)")
                // The service shows the laptop's older head again.
                try await psql(database, "UPDATE gk_heads SET record = decode('\(older)', 'hex') WHERE device = '\\x\(laptopID)'::bytea")
                let caught = try await tablet.run(["list", "--journal", tablet.journal], input: "secret-pw\n", environment: trust)
                #expect(caught.status == 1 && caught.stderr.contains("hides that device's progress"), "\(caught)")
            }
        }
    }
}

extension Array {
    /// `transform` of each element, in order, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
