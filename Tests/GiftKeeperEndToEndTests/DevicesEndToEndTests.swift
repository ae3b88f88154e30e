import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, devices: two sandboxes (each its own home, state and journal) share one journal
/// through the test PostgreSQL server `make test` starts (``PostgresFixture``).
@Suite("Two devices through a PostgreSQL server", .programSlot, .needsPostgres)
struct DevicesEndToEndTests {
    let url = PostgresFixture.url ?? ""
    /// A server nobody listens on: a device offline.
    let nowhere = "postgres://giftkeeper@127.0.0.1:1/giftkeeper"

    /// The laptop's journal, shared through the server; returns the URL naming its copy there.
    func sharedLaptop(_ laptop: Sandbox) async throws -> String {
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Dad 'Lego set'\nquit\n")
        #expect(outcome.status == 0, "\(outcome)")
        let line = try #require(outcome.stderr.split(separator: "\n").first { $0.hasPrefix("Shared through ") })
        return String(line.dropFirst("Shared through ".count).prefix { $0 != " " }.dropLast())
    }

    @Test("added on the laptop, cloned and seen on the desktop; a change on the desktop told on the laptop")
    func cloneAndSeeChanges() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        #expect(copy.hasPrefix(url + "#"))

        let cloned = try await desktop.run(["clone", copy, "--journal", desktop.journal])
        #expect(cloned.status == 0, "\(cloned)")
        #expect(permissions(of: desktop.journal) == 0o600)
        let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("Lego set"), "\(list)")

        let added = try await desktop.run(["add", "Mum", "Blue scarf", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(added.status == 0, "\(added)")
        let seen = try await laptop.run(["list", "--journal", laptop.journal], input: "secret-pw\n")
        #expect(seen.stdout.contains("Blue scarf"), "\(seen)")
        #expect(seen.stderr.contains("↓ p2 \"Blue scarf\" for Mum was added elsewhere"), "\(seen)")

        // The same frames, byte for byte, on both devices once both have synced.
        _ = try await desktop.run(["sync", "--journal", desktop.journal])
        _ = try await laptop.run(["sync", "--journal", laptop.journal])
        let same = fileBytes(laptop.journal) == fileBytes(desktop.journal)
        #expect(same, "the two devices' journals differ")
    }

    @Test("offline on both, then sync: the same list and the same journal on each, the taken id renumbered and told")
    func offlineChangesMerge() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        #expect(try await desktop.run(["clone", copy, "--journal", desktop.journal]).status == 0)

        // Both offline: their changes are acknowledged and wait.
        let marked = try await laptop.run(
            ["mark", "p1", "bought", "--journal", laptop.journal, "--remote", nowhere], input: "secret-pw\n")
        #expect(marked.status == 0, "\(marked)")
        #expect(marked.stderr.contains("Offline ("), "\(marked)")
        let book = try await laptop.run(
            ["add", "Mum", "Book", "--journal", laptop.journal, "--remote", nowhere], input: "secret-pw\n")
        #expect(book.stdout.contains("Saved p2"), "\(book)")
        let kite = try await desktop.run(
            ["add", "Gran", "Kite", "--journal", desktop.journal, "--remote", nowhere], input: "secret-pw\n")
        #expect(kite.stdout.contains("Saved p2"), "\(kite)")

        // Back online (the remembered server): the laptop sends; the desktop must merge.
        let sent = try await laptop.run(["sync", "--journal", laptop.journal])
        #expect(sent.status == 0, "\(sent)")
        let merged = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout.contains("⇄ p2 \"Kite\" is now p3 (p2 was taken on another device)"), "\(merged)")
        let back = try await laptop.run(["sync", "--journal", laptop.journal])
        #expect(back.status == 0, "\(back)")

        let laptopList = try await laptop.run(["list", "--json", "--journal", laptop.journal], input: "secret-pw\n")
        let desktopList = try await desktop.run(["list", "--json", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(laptopList.stdout.contains("\"Kite\"") && laptopList.stdout.contains("\"bought\""), "\(laptopList)")
        #expect(laptopList.stdout == desktopList.stdout)
        // The listings' sign-ins and sign-outs went to the server too; one more sync each way.
        _ = try await laptop.run(["sync", "--journal", laptop.journal])
        let same = fileBytes(laptop.journal) == fileBytes(desktop.journal)
        #expect(same, "the two devices' journals differ")
        #expect(try await laptop.verifies())
        #expect(try await desktop.verifies())
    }

    @Test("a present removed on the laptop and edited on the desktop offline comes back, edited, and that is told")
    func editBringsBackARemovedPresent() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        #expect(try await desktop.run(["clone", copy, "--journal", desktop.journal]).status == 0)

        let removed = try await laptop.run(["remove", "p1", "--journal", laptop.journal], input: "secret-pw\n")
        #expect(removed.status == 0, "\(removed)")
        let edited = try await desktop.run(
            ["edit", "p1", "price=35", "--journal", desktop.journal, "--remote", nowhere], input: "secret-pw\n")
        #expect(edited.status == 0, "\(edited)")

        let merged = try await desktop.run(["sync", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout.contains("⇄ p1 \"Lego set\" was removed on another device; your change brought it back"), "\(merged)")
        let seen = try await laptop.run(["list", "--json", "--journal", laptop.journal], input: "secret-pw\n")
        #expect(seen.status == 0, "\(seen)")
        #expect(seen.stdout.contains("\"Lego set\"") && seen.stdout.contains("\"35.00\""), "\(seen)")
    }

    @Test("a dump of the server's database holds no name, title or note, in clear or in hex")
    func serverDumpHoldsOnlyCiphertext() async throws {
        let laptop = try Sandbox()
        let outcome = try await laptop.run(
            ["--journal", laptop.journal, "--remote", url],
            input: "setup Rosalind --kdf interactive\nsecret-pw\nsecret-pw\n"
                + "add 'Grandmother Ingrid' 'Brass telescope' --notes 'hidden in the attic'\nquit\n")
        #expect(outcome.status == 0, "\(outcome)")
        let dump = try await runProgram("/usr/bin/pg_dump", [url], environment: laptop.environment)
        #expect(dump.status == 0, "\(dump)")
        #expect(dump.stdout.contains("giftkeeper_frames"))
        for secret in ["Rosalind", "Grandmother Ingrid", "Brass telescope", "hidden in the attic", "secret-pw"] {
            let hex = secret.utf8.map { String(format: "%02x", $0) }.joined()
            #expect(!dump.stdout.contains(secret) && !dump.stdout.contains(hex), "\(secret) is in the server's dump")
        }
    }

    @Test("a server rolled back after the laptop saw its frames is caught by a new device through the laptop's posted head")
    func rollbackCaughtByAnotherDevice() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        let added = try await laptop.run(["add", "Mum", "Blue scarf", "--journal", laptop.journal], input: "secret-pw\n")
        #expect(added.status == 0, "\(added)")
        // The server goes back to its first three frames (as a restored backup, or a lie).
        let id = String(copy.split(separator: "#").last ?? "")
        let journal = "(SELECT id FROM giftkeeper_journals WHERE encode(id, 'hex') LIKE '\(id)%')"
        let psql = try await runProgram(
            "/usr/bin/psql",
            [
                url, "-q", "-v", "ON_ERROR_STOP=1", "-c",
                "DELETE FROM giftkeeper_frames WHERE journal_id = \(journal) AND sequence > 3; "
                    + "UPDATE giftkeeper_journals SET head_sequence = 3, head_hash = (SELECT substring(frame FROM octet_length(frame) - 31) "
                    + "FROM giftkeeper_frames WHERE journal_id = \(journal) AND sequence = 3) WHERE id = \(journal)",
            ], environment: laptop.environment)
        #expect(psql.status == 0, "\(psql)")

        let cloned = try await desktop.run(["clone", copy, "--journal", desktop.journal])
        #expect(cloned.status == 0, "\(cloned)")
        let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n")
        #expect(list.status == 1, "\(list)")
        #expect(list.stderr.contains("but another device saw"), "\(list)")
        // The laptop's own memory says the same of the server.
        let sync = try await laptop.run(["sync", "--journal", laptop.journal])
        #expect(sync.status == 1, "\(sync)")
    }

    @Test("the server sees frame sizes that do not tell how long a title is")
    func frameSizesHideTitleLengths() async throws {
        let laptop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        for title in ["A", "A much longer title of forty characters!"] {
            let added = try await laptop.run(["add", "Mum", title, "--journal", laptop.journal], input: "secret-pw\n")
            #expect(added.status == 0, "\(added)")
        }
        let id = String(copy.split(separator: "#").last ?? "")
        let sizes = try await runProgram(
            "/usr/bin/psql",
            [
                url, "-At", "-c",
                "SELECT DISTINCT (octet_length(frame) - 53 - 40) % 64 FROM giftkeeper_frames f JOIN giftkeeper_journals j "
                    + "ON f.journal_id = j.id WHERE encode(j.id, 'hex') LIKE '\(id)%' AND get_byte(frame, 12) = 1",
            ], environment: laptop.environment)
        #expect(sizes.status == 0, "\(sizes)")
        #expect(sizes.stdout.split(separator: "\n") == ["0"], "\(sizes)")
    }
}
