import Foundation
import GiftKeeperTestSupport
import SwiftCSV
import TestProcesses
import Testing

/// Every shell command that reads or changes the list, one-shot (SPEC §11): signed in,
/// run, signed out; results alone on standard output.
@Suite("One-shot commands", .programSlot)
struct OneShotTests {
    @Test("add, edit, mark, list, show with --password-file: results on standard output, notifications on standard error")
    func withAPasswordFile() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let passwordFile = sandbox.home + "/password"
        #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("secret-pw\n".utf8), attributes: [.posixPermissions: 0o600]))
        func oneShot(_ words: [String]) async throws -> Outcome {
            try await sandbox.run(words + ["--journal", sandbox.journal, "--password-file", passwordFile], input: "")
        }
        let added = try await oneShot(["add", "Mum", "Blue scarf", "--price", "25"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout == "Saved p1: \"Blue scarf\" for Mum.\n", "\(added)")
        #expect(added.stderr.contains("Signed in") && added.stderr.contains("Signed out"), "\(added)")
        #expect(try await oneShot(["edit", "p1", "price=22.50"]).status == 0)
        #expect(try await oneShot(["mark", "p1", "bought"]).status == 0)
        let listed = try await oneShot(["list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines.contains { $0.hasPrefix("p1") && $0.contains("22.50") && $0.contains("bought") }, "\(listed)")
        #expect(!listed.stdout.contains("Signed"), "no notification on standard output")
        let shown = try await oneShot(["show", "p1"])
        #expect(shown.stdout.contains("Blue scarf"), "\(shown)")

        // Each one-shot signed in and out, recorded like a shell session.
        let audit = try await sandbox.audits()
        #expect(audit.stdout.components(separatedBy: "\tloginSucceeded\t").count - 1 == 6, "\(audit)")
        #expect(audit.stdout.components(separatedBy: "\tsignedOut\t").count - 1 == 6, "\(audit)")
    }

    @Test("The password from the first line of standard input; refused, one line, when there is none")
    func passwordFromStandardInput() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let listed = try await sandbox.run(["list", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines.contains { $0.hasPrefix("p1") && $0.contains("Hat") }, "\(listed)")

        let none = try await sandbox.run(["list", "--journal", sandbox.journal], input: "")
        #expect(none.status == 2, "\(none)")
        #expect(none.errorLines.count == 1, "\(none)")
        #expect(none.stdout.isEmpty)
        let wrong = try await sandbox.run(["add", "Dad", "Book", "--journal", sandbox.journal], input: "nope\n")
        #expect(wrong.status == 3, "\(wrong)")
        #expect(try await sandbox.run(["list", "--journal", sandbox.journal], input: "secret-pw\n").stdout.contains("Book") == false)
    }

    @Test("list --json and show --json: one JSON document, amounts as decimal strings, times ISO-8601")
    func json() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [#"Mum "Blue \"scarf\"" --price 25 --notes "two words""#, "Dad Book"])
        let listed = try await sandbox.run(["list", "--json", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(listed.status == 0, "\(listed)")
        let presents = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
        #expect(presents.count == 2)
        #expect(presents[0]["id"] as? String == "p1")
        #expect(presents[0]["title"] as? String == #"Blue "scarf""#)
        #expect(presents[0]["price"] as? String == "25.00")
        #expect(presents[0]["notes"] as? String == "two words")
        #expect(presents[1]["price"] is NSNull)
        let created = try #require(presents[0]["createdAt"] as? String)
        #expect((try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(created)) != nil, "\(created)")

        let shown = try await sandbox.run(["show", "p2", "--json", "--journal", sandbox.journal], input: "secret-pw\n")
        let present = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdoutBytes)) as? [String: Any])
        #expect(present["title"] as? String == "Book")
        // Absent values are null, never "".
        for field in ["notes", "price", "occasion", "url", "store", "givenAt"] {
            #expect(present[field] is NSNull, "\(field): \(present)")
        }
        #expect(present["status"] as? String == "idea")
    }

    @Test("--json on history, budget, upcoming, summary, gifts and occasion list: one JSON document each")
    func jsonEverywhere() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf --price 25 --occasion Christmas", "Dad Book --price 12.50"])
        let planned = try await sandbox.script([
            "login", "secret-pw", "occasion add Christmas --date 2099-12-24 --yearly", "budget set 30 --for Mum",
            "mark p2 given",
        ])
        #expect(planned.status == 0, "\(planned)")
        func document(_ words: [String]) async throws -> Any {
            let outcome = try await sandbox.run(words + ["--json", "--journal", sandbox.journal], input: "secret-pw\n")
            #expect(outcome.status == 0, "\(words): \(outcome)")
            return try JSONSerialization.jsonObject(with: Data(outcome.stdoutBytes))
        }
        let history = try #require(try await document(["history", "p1"]) as? [[String: Any]])
        #expect(history.first?["event"] as? String == "presentAdded", "\(history)")
        let budgets = try #require(try await document(["budget"]) as? [String: Any])
        let budget = try #require((budgets["budgets"] as? [[String: Any]])?.first)
        #expect(budget["recipient"] as? String == "Mum" && budget["budget"] as? String == "30.00")
        #expect(budget["planned"] as? String == "25.00" && budget["over"] as? Bool == false)
        let upcoming = try #require(try await document(["upcoming", "--days", "36600"]) as? [[String: Any]])
        #expect(upcoming.first?["occasion"] as? String == "Christmas", "\(upcoming)")
        #expect((upcoming.first?["toBuy"] as? [[String: Any]])?.map { $0["id"] as? String } == ["p1"], "\(upcoming)")
        #expect(upcoming.first?["toSpend"] as? String == "25.00", "\(upcoming)")
        let summary = try #require(try await document(["summary"]) as? [String: Any])
        #expect((summary["recipients"] as? [[String: Any]])?.count == 2)
        let gifts = try #require(try await document(["gifts", "Dad"]) as? [[String: Any]])
        #expect(gifts.first?["title"] as? String == "Book" && gifts.first?["givenAt"] is String)
        let occasions = try #require(try await document(["occasion", "list"]) as? [[String: Any]])
        #expect(occasions.first?["name"] as? String == "Christmas" && occasions.first?["yearly"] as? Bool == true)
    }

    @Test("export FILE and export --output FILE both work, in the shell and on the command line")
    func exportSpellings() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let positional = sandbox.home + "/positional.json"
        let option = sandbox.home + "/option.json"
        let command = try await sandbox.run(["export", positional, "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(command.status == 0, "\(command)")
        let shell = try await sandbox.script(["login", "secret-pw", "export --output \(option)"])
        #expect(shell.status == 0, "\(shell)")
        for path in [positional, option] {
            let bytes = try #require(fileBytes(path), "\(path) was written")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let presents = try #require(document["presents"] as? [[String: Any]])
            #expect(presents.first?["title"] as? String == "Hat", "\(path)")
        }
        let both = try await sandbox.run(["export", positional, "--output", option, "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(both.status == 2 && both.errorLines.count == 1, "\(both)")
    }

    @Test("list --csv is RFC 4180 a CSV parser reads back: quotes, commas, no formula")
    func csv() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [
            #"Mum "Scarf, \"blue\"" --price 25 --notes "one; two, three""#, #"Dad "=SUM(A1:A2)""#,
        ])
        let listed = try await sandbox.run(["list", "--csv", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout.hasPrefix("id,recipient,title,occasion,price,status,"))
        #expect(listed.stdout.hasSuffix("\r\n"))
        let table = try EnumeratedCSV(string: listed.stdout, delimiter: .comma, loadColumns: false)
        #expect(table.header.prefix(6) == ["id", "recipient", "title", "occasion", "price", "status"])
        #expect(table.rows.count == 2)
        #expect(table.rows[0].prefix(6) == ["p1", "Mum", #"Scarf, "blue""#, "", "25.00", "idea"])
        #expect(table.rows[0][7] == "one; two, three")
        #expect(table.rows[1][2] == "'=SUM(A1:A2)", "a formula is shown, never run")
    }

    @Test("Bad one-shot input is one line with its exit code, and nothing is appended, not even a sign-in")
    func badInput() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let before = fileBytes(sandbox.journal)
        for words in [["list", "--json", "--csv"], ["list", "--bogus"], ["show", "p1", "extra"], ["lst"]] {
            let outcome = try await sandbox.run(words + ["--journal", sandbox.journal], input: "secret-pw\n")
            #expect(outcome.status == 2, "\(words): \(outcome)")
            #expect(outcome.errorLines.count == 1, "\(words): \(outcome)")
            #expect(outcome.stdout.isEmpty, "\(words): \(outcome)")
        }
        let typo = try await sandbox.run(["lst"], input: "")
        #expect(typo.errorLines.first?.contains("Did you mean 'list'?") == true, "\(typo)")
        #expect(fileBytes(sandbox.journal) == before, "nothing recorded")
        let help = try await sandbox.run(["list", "--help"], input: "")
        #expect(help.status == 0 && help.stdout.contains("--csv") && help.stdout.contains("ONE-SHOT"), "\(help)")
        #expect(try await sandbox.run(["help", "list"], input: "").stdout == help.stdout)
        // Every one-shot is a subcommand in the top-level help (and so in the man page and
        // the completion scripts made from it).
        let top = try await sandbox.run(["--help"], input: "")
        for name in [
            "add", "list", "show", "edit", "mark", "remove", "restore", "occasion", "budget", "upcoming", "summary", "gifts",
            "history",
        ] {
            #expect(top.stdoutLines.contains { $0.hasPrefix("  \(name) ") }, "--help lacks \(name)")
        }
    }

    /// Every one-shot command, each way a password can come (SPEC §2, §11): from
    /// `--password-file`, from standard input's first line, and refused, one line, exit 2,
    /// nothing recorded, when there is neither.
    static let everyOneShot: [[String]] = [
        ["add", "Dad", "Book"], ["list"], ["show", "p1"], ["edit", "p1", "price=30"], ["mark", "p1", "bought"],
        ["remove", "p1"], ["restore", "p1"], ["occasion", "list"], ["budget"], ["upcoming"], ["summary"], ["gifts", "Mum"],
        ["history"],
    ]

    @Test("Every one-shot command runs with --password-file and with standard input, and is refused without a password", arguments: everyOneShot)
    func everyCommandEachPasswordSource(words: [String]) async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat --price 25"])
        if words == ["restore", "p1"] {
            #expect(try await sandbox.run(["remove", "p1", "--journal", sandbox.journal], input: "secret-pw\n").status == 0)
        }
        let passwordFile = sandbox.home + "/password"
        #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("secret-pw\n".utf8), attributes: [.posixPermissions: 0o600]))

        let before = fileBytes(sandbox.journal)
        let refused = try await sandbox.run(words + ["--journal", sandbox.journal], input: "")
        #expect(refused.status == 2, "\(words): \(refused)")
        #expect(refused.errorLines.count == 1 && refused.stdout.isEmpty, "\(words): \(refused)")
        #expect(fileBytes(sandbox.journal) == before, "\(words): nothing recorded without a password")

        let fromFile = try await sandbox.run(words + ["--journal", sandbox.journal, "--password-file", passwordFile], input: "")
        #expect(fromFile.status == 0, "\(words): \(fromFile)")
        #expect(!fromFile.stdout.contains("🔓") && !fromFile.stdout.contains("🔒"), "\(words): no notification on standard output")
        #expect(fromFile.stderr.contains("Signed in") && fromFile.stderr.contains("Signed out"), "\(words): \(fromFile)")

        // The same command on a journal in the same state, the password from standard input,
        // prints the same (history and show hold the times, which differ).
        let again = try Sandbox()
        try await again.createJournal(presents: ["Mum Hat --price 25"])
        if words == ["restore", "p1"] {
            #expect(try await again.run(["remove", "p1", "--journal", again.journal], input: "secret-pw\n").status == 0)
        }
        let fromInput = try await again.run(words + ["--journal", again.journal], input: "secret-pw\n")
        #expect(fromInput.status == 0, "\(words): \(fromInput)")
        #expect(fromInput.stdout == fromFile.stdout || words.first == "history" || words.first == "show", "\(words): \(fromInput)")
    }
}
