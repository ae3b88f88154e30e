import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// Script mode (standard input not a terminal): every REPL command, one per line,
/// answers on the following lines, against the real binary.
@Suite("Script sessions", .programSlot)
struct ScriptSessionTests {
    @Test("setup, add with every option, list filters, show, edit, mark, remove, history")
    func presentsThroughTheirLife() async throws {
        let sandbox = try Sandbox()
        let outcome = try await sandbox.script([
            "setup Alice --kdf interactive", "secret-pw", "secret-pw",
            #"add Mum "Blue scarf" --price 25 --notes "wool, not itchy" --occasion Christmas"#,
            "add Dad Book --price 12.50",
            "add Mum Tea",
            "list",
            "list Mum",
            "list --status idea",
            "show p1",
            #"edit p1 title="Red scarf" price= notes=silk occasion=Birthday recipient=Mother"#,
            "show p1",
            "mark p1 bought",
            "list --status bought",
            "mark p1 wrapped",
            "mark p1 given",
            "list --status given",
            "list Dad --status idea",
            "remove p2",
            "show p2",
            "list",
            "history --logins",
            "history --last 2",
            "quit",
            "list",  // never read: quit ends the session
        ])
        #expect(outcome.status == 0, "\(outcome)")
        // Standard output holds only results: the notifications are on standard error.
        #expect(outcome.stderrLines.isEmpty, "\(outcome)")
        #expect(outcome.notifications == ["🔓 Signed in as Alice", "🔒 Signed out"], "\(outcome)")
        let out = outcome.stdout
        let lines = outcome.stdoutLines
        #expect(lines.first?.hasPrefix("Journal created at") == true, "\(outcome)")
        #expect(out.contains("Journal created at \(sandbox.journal) (mode 0600)."))
        #expect(out.contains(#"Saved p1: "Blue scarf" for Mum."#))
        #expect(out.contains(#"Saved p2: "Book" for Dad."#))
        #expect(out.contains(#"Saved p3: "Tea" for Mum."#))
        // The first `list`: all three, with the total of the prices.
        #expect(lines.contains { $0.hasPrefix("ID") && $0.contains("RECIPIENT") && $0.contains("STATUS") })
        #expect(out.contains("3 presents, total 37.50 (3 idea)"))
        // `list Mum`: p1 and p3 only.
        #expect(out.contains("2 presents, total 25.00"))
        // `show p1` before the edit: every field.
        #expect(lines.contains { $0.hasPrefix("notes") && $0.hasSuffix("wool, not itchy") })
        #expect(lines.contains { $0.hasPrefix("occasion") && $0.hasSuffix("Christmas") })
        // Times in local time, to the minute: `created    2026-11-25 14:03`.
        let localTime = #/^(created|updated) +\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/#
        #expect(lines.filter { $0.wholeMatch(of: localTime) != nil }.count >= 2)
        // The edit of five fields, price cleared.
        let edited = lines.first { $0.hasPrefix("Saved p1: ") && $0.hasSuffix(" changed.") }
        for field in ["title", "recipient", "notes", "price", "occasion"] {
            #expect(edited?.contains(field) == true, "edit did not report \(field): \(edited ?? "nothing")")
        }
        let afterEdit = out.components(separatedBy: "changed.").last ?? ""
        #expect(afterEdit.contains("Red scarf"))
        #expect(afterEdit.split(separator: "\n").contains { $0.hasPrefix("price") && $0.hasSuffix("-") })
        #expect(afterEdit.split(separator: "\n").contains { $0.hasPrefix("recipient") && $0.hasSuffix("Mother") })
        // Its life: idea → bought → wrapped → given.
        for status in ["bought", "wrapped", "given"] {
            #expect(out.contains("Saved p1: marked \(status)."))
        }
        #expect(lines.contains { $0.hasPrefix("p1") && $0.contains("Red scarf") && $0.hasSuffix("bought") })
        #expect(lines.contains { $0.hasPrefix("p1") && $0.contains("Red scarf") && $0.hasSuffix("given") })
        #expect(lines.contains { $0.hasPrefix("p2") && $0.contains("Dad") && $0.hasSuffix("idea") })
        // Removed: recorded, shown as removed, gone from the list.
        #expect(out.contains("Saved p2: removed (the history keeps it)."))
        #expect(lines.contains { $0.hasPrefix("id") && $0.contains("p2 (removed)") })
        let finalList = out.components(separatedBy: "p2 (removed)").last ?? ""
        // The open presents: p1 was given and p2 removed, so p3 is left.
        #expect(finalList.contains("1 present, total"))
        #expect(!finalList.split(separator: "\n").contains { $0.hasPrefix("p2 ") || $0.hasPrefix("p1 ") })
        // History in words, old → new, then the last two only.
        for sentence in [
            "Keys wrapped under the password", "Account created for Alice", "Signed in", #"Added p1 "Blue scarf" for Mum"#,
            #"p1 title "Blue scarf" → "Red scarf""#, #"p1 "Red scarf" idea → bought"#, #"Removed p2 "Book""#,
        ] {
            #expect(out.contains(sentence), "history lacks \(sentence)")
        }
        let historyHeaders = lines.indices.filter { lines[$0].hasPrefix("WHEN") }
        #expect(historyHeaders.count == 2)
        if let last = historyHeaders.last {
            let rows = lines[(last + 2)...].prefix { !$0.hasPrefix("🔒") && !$0.isEmpty }
            #expect(rows.count == 2, "history --last 2 gave: \(rows)")
            #expect(rows.last?.contains("Removed p2") == true)
        }
        // quit signs out; nothing after it ran.
        #expect(lines.filter { !$0.isEmpty }.last?.contains("Removed p2") == true, "\(outcome)")
        #expect(try await sandbox.verifies())
    }

    @Test("a removed present: show marks it removed; edit, mark and remove refuse it; its id is never reused")
    func removedPresent() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf", "Dad Book"])
        let outcome = try await sandbox.script([
            "login", "secret-pw", "remove p2", "show p2", "edit p2 title=Hat", "mark p2 bought", "remove p2",
            "add Sis Hat", "list", "quit",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.stdout.contains("Saved p2: removed (the history keeps it)."))
        #expect(outcome.stdoutLines.contains { $0.hasPrefix("id") && $0.hasSuffix("p2 (removed)") })
        #expect(outcome.stdoutLines.contains { $0.hasPrefix("title") && $0.hasSuffix("Book") })
        #expect(outcome.errorLines.count == 3, "\(outcome)")
        #expect(outcome.stderrLines.count == 3, "\(outcome)")
        #expect(outcome.errorLines.allSatisfy { $0.contains("'p2' was removed") }, "\(outcome)")
        #expect(outcome.stdout.contains(#"Saved p3: "Hat" for Sis."#))
        #expect(outcome.stdout.contains("2 presents, total 0.00"))
        #expect(try await sandbox.verifies())
    }

    @Test("signout, logout, login, passwd, and the new password opens the journal")
    func accountCommands() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf"])
        let outcome = try await sandbox.script([
            "login", "secret-pw",
            "list",
            "signout",
            "login", "secret-pw",
            "logout",
            "login", "secret-pw",
            "passwd", "secret-pw", "n3w-Password", "n3w-Password",
            "signout",
            "login", "n3w-Password",
            "list",
            "exit",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderrLines.isEmpty, "\(outcome)")
        let lines = outcome.stdoutLines
        #expect(outcome.notifications.filter { $0 == "🔓 Signed in as Alice" }.count == 4)
        #expect(outcome.notifications.filter { $0 == "🔒 Signed out" }.count == 4)  // signout, logout, signout, exit
        #expect(outcome.stdout.contains("Password changed."))
        #expect(lines.filter { $0.hasPrefix("p1") && $0.contains("Scarf") }.count == 2)

        // A new session: the old password no longer opens the journal, the new one does.
        let later = try await sandbox.run(["audit", "--journal", sandbox.journal], input: "n3w-Password\n")
        #expect(later.status == 0, "\(later)")
        #expect(later.stdout.contains("passwordChanged"))
        #expect(later.stdout.split(separator: "\n").last?.hasPrefix("OK: ") == true)
    }

    @Test("export to the screen and to a file (mode 0600), import into another journal")
    func exportAndImport() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [#"Mum "Blue scarf" --price 25 --notes wool --occasion Christmas"#, "Dad Book"])
        let exportPath = sandbox.root + "/export.json"
        let outcome = try await sandbox.script(["login", "secret-pw", "mark p2 bought", "export", "export \(exportPath)", "quit"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("\"format\" : \"giftkeeper.export.v2\""))
        #expect(outcome.stdout.contains("Exported 2 presents to \(exportPath) (mode 0600)."))
        #expect(permissions(of: exportPath) == 0o600)
        let document = try #require(fileBytes(exportPath))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document)) as? [String: Any])
        #expect(json["format"] as? String == "giftkeeper.export.v2")
        let presents = try #require(json["presents"] as? [[String: Any]])
        #expect(presents.count == 2)
        #expect(presents.first?["title"] as? String == "Blue scarf")
        #expect(presents.first?["price"] as? String == "25.00")
        #expect(presents.last?["status"] as? String == "bought")

        // Into a second journal with its own account.
        let second = sandbox.root + "/second/other.journal"
        try await sandbox.createJournal(name: "Bob", password: "other-password", journal: second)
        let imported = try await sandbox.script(["login", "other-password", "import \(exportPath)", "list", "quit"], journal: second)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("Imported 2 presents"))
        #expect(imported.stdoutLines.contains { $0.contains("Blue scarf") && $0.contains("25.00") && $0.hasSuffix("idea") })
        #expect(imported.stdoutLines.contains { $0.contains("Book") && $0.hasSuffix("bought") })
        #expect(try await sandbox.verifies(second))
    }

    @Test("imported notes of several lines: show prints each on its own row; control characters are refused")
    func multiLineNotes() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let document = sandbox.root + "/notes.json"
        let present = { (id: String, title: String, notes: String) in
            #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"\#(id)","notes":"\#(notes)","occasion":"","price":null,"#
                + #""recipient":"Mum","status":"idea","title":"\#(title)","updatedAt":"2026-12-01T09:00:01.000Z"}"#
        }
        try writeNewFile(
            Array(
                (#"{"account":{"name":"Alice"},"format":"giftkeeper.export.v1","presents":["#
                    + present("p1", "Scarf", #"first line\n\tindented"#) + "]}").utf8), to: document)
        let outcome = try await sandbox.script(["login", "secret-pw", "import \(document)", "show p1"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdoutLines.contains("notes      first line"), "\(outcome.stdout)")
        #expect(outcome.stdoutLines.contains("               indented"), "\(outcome.stdout)")

        let escape = sandbox.root + "/escape.json"
        try writeNewFile(
            Array(
                (#"{"account":{"name":"Alice"},"format":"giftkeeper.export.v1","presents":["#
                    + present("p2", #"Red\u001b[31m"#, "") + "]}").utf8), to: escape)
        let refused = try await sandbox.script(["login", "secret-pw", "import \(escape)"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errorLines.first?.contains("presents[0].title") == true, "\(refused)")
        #expect(refused.errorLines.first?.contains("U+001B") == true, "\(refused)")
        #expect(!refused.stderr.contains("\u{1B}"), "\(refused)")
    }

    @Test("small conveniences: edit's prompt takes several changes, ~ in paths, signout twice, status via mark, an empty password at once")
    func conveniences() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let outcome = try await sandbox.script([
            "login", "secret-pw",
            "edit p1", #"price=5 notes="wool, red""#,
            "show p1",
            "export ~/gifts-export.json",
            "edit p1 status=bought",
            "signout", "signout",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.stdoutLines.contains("price      5.00"), "\(outcome.stdout)")
        #expect(outcome.stdoutLines.contains("notes      wool, red"), "\(outcome.stdout)")
        #expect(permissions(of: sandbox.home + "/gifts-export.json") == 0o600, "\(outcome)")
        #expect(outcome.stdout.contains("Already signed out."), "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("'mark p3 bought'") == true, "\(outcome)")

        let fresh = try Sandbox()
        let setup = try await fresh.script(["setup Alice --kdf interactive", "", "never-used", "help quit"])
        #expect(setup.status == 2, "\(setup)")
        #expect(setup.errorLines.count == 1 && setup.errorLines.first?.contains("empty") == true, "\(setup)")
        #expect(!setup.stderr.contains("never-used") && !setup.stdout.contains("never-used"), "\(setup)")
        #expect(setup.stdout.contains("OVERVIEW: Sign out and leave"), "\(setup)")
    }

    @Test("help, help <command>, end of input signs out")
    func helpAndEndOfInput() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let outcome = try await sandbox.script(["help", "help add", "help logout", "login", "secret-pw"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stderrLines.isEmpty, "\(outcome)")
        let out = outcome.stdout
        #expect(out.contains("Commands (type 'help <command>' for details):"))
        for command in [
            "setup", "login", "signout, logout", "add", "list", "show", "edit", "mark", "remove", "restore", "undo",
            "occasion", "budget", "upcoming", "summary", "gifts", "history", "export", "import", "passwd", "help", "quit, exit",
        ] {
            #expect(outcome.stdoutLines.contains { $0.hasPrefix("  " + command + " ") }, "help lacks \(command)")
        }
        #expect(out.contains("USAGE: add <recipient> <title> [--price 25.00] [--notes TEXT] [--occasion NAME] [--url URL] [--store TEXT]"))
        #expect(out.contains("--occasion <occasion>"))
        #expect(out.contains("OVERVIEW: Lock the journal and wipe every key from memory."))
        // The script ended without quit: the session signed out on its own.
        #expect(outcome.notifications == ["🔓 Signed in as Alice", "🔒 Signed out"], "\(outcome)")
        let audit = try await sandbox.audits()
        #expect(audit.stdout.split(separator: "\n").dropLast().last?.contains("signedOut") == true, "\(audit)")
    }

    @Test("help <name> shows a usage line naming the command, aliases included")
    func helpForEveryCommand() async throws {
        let sandbox = try Sandbox()
        let names = [
            ("setup", "setup"), ("login", "login"), ("signout", "signout"), ("logout", "signout"), ("add", "add"),
            ("list", "list"), ("show", "show"), ("edit", "edit"), ("mark", "mark"), ("remove", "remove"),
            ("history", "history"), ("export", "export"), ("import", "import"), ("passwd", "passwd"),
            ("help", "help"), ("quit", "quit"), ("exit", "quit"),
        ]
        for (name, canonical) in names {
            let outcome = try await sandbox.script(["help \(name)"])
            #expect(outcome.status == 0, "\(name): \(outcome)")
            let usage = outcome.stdoutLines.filter { $0.hasPrefix("USAGE:") }
            #expect(usage.count == 1, "\(name): \(outcome.stdout)")
            #expect(
                usage.first == "USAGE: \(canonical)" || usage.first?.hasPrefix("USAGE: \(canonical) ") == true,
                "\(name): \(usage)")
            if name != canonical {
                #expect(outcome.stdout.contains("'\(name)' does the same."), "\(name): \(outcome.stdout)")
            }
        }
        // `<name> --help` and `-h` are `help <name>`, and take no answer line (a script goes on).
        let lines = names.map { "\($0.0) --help" } + names.map { "\($0.0) -h" }
        // (`help --help` is help's own usage.)
        let outcome = try await sandbox.script(lines)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdoutLines.filter { $0.hasPrefix("USAGE:") }.count == lines.count, "\(outcome.stdout)")
    }
}
