import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// Planning through the built binary, with its clock moved by `faketime` (SPEC §10): plan
/// one Christmas, give the presents, move a year on and see the gift memory, the repeat
/// note and the yearly occasions come back.
@Suite(.programSlot, .enabled(if: FileManager.default.isExecutableFile(atPath: Sandbox.faketime), "needs faketime (make deps installs it)"))
struct PlanningEndToEndTests {
    static let password = "correct horse"

    /// Alice's new journal on 2026-11-24 at 09:00 with a yearly Christmas, then `lines`.
    static func firstSession(_ sandbox: Sandbox, setup: String, _ lines: [String]) async throws -> Outcome {
        try await sandbox.script(
            at: "2026-11-24 09:00:00",
            [setup, password, password, "occasion add Christmas --date 2026-12-24 --yearly"] + lines + ["quit"])
    }

    @Test("One Christmas planned, given, and a year later: gifts, the repeat note and upcoming recur")
    func aYearOfPresents() async throws {
        let sandbox = try Sandbox()
        let planning = try await Self.firstSession(
            sandbox, setup: "setup Alice --kdf interactive --currency EUR",
            [
                #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#,
                #"add Mum "Blue scarf" --price 25 --occasion christmas --store Harrods"#,
                #"add Zoë Kite --price 30 --occasion Christmas"#,
                #"add zoe "Book of knots" --price 12,50 --occasion Christmas"#,
                "budget set 60 --occasion Christmas",
                "mark p1 bought",
                "upcoming",
            ])
        #expect(planning.status == 0, "\(planning)")
        #expect(planning.stdoutLines.contains(#"Saved p3: "Book of knots" for Zoë."#), "\(planning)")
        #expect(planning.stdoutLines.contains("Saved budget for 'Christmas' (2026): 60.00 EUR, 7.50 EUR over after 67.50 EUR planned and spent."))
        #expect(planning.stdoutLines.contains("Mum's birthday: 2026-12-10, in 16 days"), "\(planning)")
        #expect(planning.stdoutLines.contains("Christmas: 2026-12-24, in 30 days"), "\(planning)")
        // A table per occasion: what is left to do for each present, with its price.
        let rows = planning.stdoutLines
        #expect(rows.contains { $0.hasPrefix("  ID  RECIPIENT") && $0.contains("PRICE EUR") && $0.hasSuffix("TO DO") }, "\(planning)")
        for (id, title, price, task) in [
            ("p2", "Kite", "30.00", "buy"), ("p3", "Book of knots", "12.50", "buy"), ("p1", "Blue scarf", "25.00", "wrap"),
        ] {
            #expect(rows.contains { $0.hasPrefix("  \(id)") && $0.contains(title) && $0.contains(price) && $0.hasSuffix(task) }, "\(planning)")
        }
        #expect(rows.contains("  2 to buy (42.50 EUR still to spend), 1 to wrap."), "\(planning)")

        // Christmas Eve: everything is given.
        let given = try await sandbox.script(
            at: "2026-12-24 18:00:00",
            ["login", Self.password, "mark p1 given", "mark p2 given", "mark p3 given", "upcoming --days 0", "quit"])
        #expect(given.status == 0, "\(given)")
        #expect(given.stdoutLines.contains("Christmas: 2026-12-24, today"), "\(given)")

        // A year on: what was given, the note when the same idea comes back, and the
        // yearly occasions with their next dates.
        let nextYear = try await sandbox.script(
            at: "2027-12-01 10:00:00",
            [
                "login", Self.password, "gifts mum", #"add Mum "Scarf, blue" --occasion Christmas"#, "upcoming",
                "list --all --as-of 2026-12-01", "history p1", "quit",
            ])
        #expect(nextYear.status == 0, "\(nextYear)")
        #expect(
            nextYear.stdout.contains(
                """
                2026
                  Christmas
                    p1 Blue scarf (given 2026-12-24, 25.00 EUR)
                1 present given to Mum.
                """), "\(nextYear)")
        #expect(nextYear.stdoutLines.contains(#"Note: Mum got "Blue scarf" for Christmas on 2026-12-24 (p1)."#), "\(nextYear)")
        #expect(nextYear.stdoutLines.contains("Mum's birthday: 2027-12-10, in 9 days"), "\(nextYear)")
        #expect(nextYear.stdoutLines.contains("Christmas: 2027-12-24, in 23 days"), "\(nextYear)")
        #expect(nextYear.stdoutLines.contains { $0.hasPrefix("  p4") && $0.contains("Scarf, blue") && $0.hasSuffix("buy") }, "\(nextYear)")
        // As the journal had it a year ago: p1 bought, nothing given.
        #expect(nextYear.stdoutLines.contains { $0.hasPrefix("p1") && $0.hasSuffix("bought") }, "\(nextYear)")
        #expect(nextYear.stderr.contains("As of 2026-12-01 23:59:"), "\(nextYear)")
        // p1's life in words, with local times.
        for line in [
            #"2026-11-24 09:00  Added p1 "Blue scarf" for Mum (25.00, Christmas)"#,
            #"2026-11-24 09:00  p1 "Blue scarf" idea → bought"#,
            #"2026-12-24 18:00  p1 "Blue scarf" bought → given"#,
        ] {
            #expect(nextYear.stdoutLines.contains(line), "history lacks \(line): \(nextYear)")
        }
        #expect(try await sandbox.verifies())
    }

    @Test("Budgets per year through the binary: a year on, a yearly occasion's budget counts that year's presents only")
    func budgetsPerYear() async throws {
        let sandbox = try Sandbox()
        let first = try await Self.firstSession(
            sandbox, setup: "setup Alice --kdf interactive",
            [
                "add Mum Scarf --price 64.99 --occasion Christmas", "mark p1 given", "budget set 100 --occasion Christmas",
                "budget set 80 --for Mum",
            ])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdoutLines.contains("Saved budget for 'Christmas' (2026): 100.00, 35.01 left after 64.99 planned and spent."), "\(first)")
        // The issue's case: a year on, 2026's scarf is not counted against 2027.
        let next = try await sandbox.script(
            at: "2027-11-30 10:00:00",
            [
                "login", Self.password, "add Mum Slippers --price 30 --occasion Christmas", "budget set 100 --occasion Christmas",
                "budget", "summary", "quit",
            ])
        #expect(next.status == 0, "\(next)")
        #expect(next.stdoutLines.contains("Saved budget for 'Christmas' (2027): 100.00, 70.00 left after 30.00 planned and spent."), "\(next)")
        #expect(next.stdoutLines.contains { $0.hasPrefix("'Christmas' (2026)") && $0.contains("64.99") }, "\(next)")
        #expect(next.stdoutLines.contains { $0.hasPrefix("'Christmas' (2027)") && $0.contains("30.00") && $0.contains("70.00") }, "\(next)")
        // Mum's 2026 budget stays 2026's; summary speaks of 2027.
        #expect(next.stdoutLines.contains { $0.hasPrefix("Mum (2026)") && $0.contains("80.00") && $0.contains("64.99") }, "\(next)")
        #expect(next.stdoutLines.contains("1 present for 1 person in 2027: planned 30.00, spent 0.00."), "\(next)")
        #expect(try await sandbox.verifies())
    }

    @Test("upcoming --check for cron: exit 10 when due, 0 when not; upcoming --ics: a file Python's icalendar reads, yearly rule included")
    func reminders() async throws {
        let sandbox = try Sandbox()
        let first = try await Self.firstSession(
            sandbox, setup: "setup Alice --kdf interactive",
            [#"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#, "add Mum Scarf --price 25 --occasion Christmas"])
        #expect(first.status == 0, "\(first)")
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array((Self.password + "\n").utf8), to: passwordFile)
        func oneShot(_ words: [String], at time: String) async throws -> Outcome {
            try await runProgram(
                Sandbox.faketime, ["-f", "@" + time, sandbox.binary] + words + ["--journal", sandbox.journal, "--password-file", passwordFile],
                environment: sandbox.environment.merging(["TZ": "UTC"]) { $1 })
        }
        let quiet = try await oneShot(["upcoming", "--days", "7", "--check"], at: "2026-11-24 09:00:00")
        #expect(quiet.status == 0, "\(quiet)")
        let due = try await oneShot(["upcoming", "--days", "20", "--check"], at: "2026-11-24 09:00:00")
        #expect(due.status == 10 && due.stdoutLines.first == "Mum's birthday: 2026-12-10, in 16 days", "\(due)")

        let calendar = sandbox.home + "/gifts.ics"
        let written = try await oneShot(["upcoming", "--ics", calendar], at: "2026-11-24 09:00:00")
        #expect(written.status == 0, "\(written)")
        let script = #"""
            import sys, icalendar
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
            for event in calendar.walk("VEVENT"):
                rule = event.get("RRULE")
                print(event["SUMMARY"], event.decoded("DTSTART").isoformat(), rule.to_ical().decode() if rule else "once", sep="|")
            """#
        let parsed = try await runProgram("/usr/bin/python3", ["-c", script, calendar])
        #expect(parsed.status == 0, "\(parsed)")
        #expect(
            parsed.stdoutLines.filter { !$0.isEmpty }.sorted() == ["Christmas|2026-12-24|FREQ=YEARLY", "Mum's birthday|1961-12-10|FREQ=YEARLY"],
            "\(parsed)")
    }

    /// How many frames `giftkeeper verify` counts in the sandbox's journal.
    func frames(_ sandbox: Sandbox) async throws -> Int {
        let outcome = try await sandbox.run(["verify", "--journal", sandbox.journal])
        return Int(outcome.stdout.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    @Test("Bad planning input through the binary: one line, exit 2, the journal unchanged")
    func badInput() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(password: Self.password, presents: ["Mum Scarf"])
        for (line, words) in [
            ("occasion remove Easter", "No occasion 'Easter'."),
            ("occasion add Easter --date 2026-13-01", "'2026-13-01' is not a date."),
            ("budget set -5", "it is negative"),
            ("restore p1", "Present 'p1' is not removed"),
            ("undo", "Nothing to undo"),
            ("list --as-of 1999-01-01", "there is nothing before it"),
        ] {
            let before = try await frames(sandbox)
            let outcome = try await sandbox.script(["login", Self.password, line])
            #expect(outcome.status == 2, "\(line): \(outcome)")
            #expect(outcome.errorLines.count == 1 && outcome.errorLines.first?.contains(words) == true, "\(line): \(outcome)")
            // The sign-in and the sign-out are all that was appended.
            #expect(try await frames(sandbox) == before + 2, "\(line) appended something")
        }
    }

    @Test("giftkeeper export --as-of: the document as the journal had it then; a bad date before the password")
    func exportAsOf() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(password: Self.password, presents: [#"Mum "Blue scarf""#])
        let now = try await sandbox.run(["export", "--journal", sandbox.journal, "--as-of", "9999-12-31"], input: Self.password + "\n")
        #expect(now.status == 0 && now.stdout.contains(#""title" : "Blue scarf""#), "\(now)")
        let before = try await sandbox.run(["export", "--journal", sandbox.journal, "--as-of", "1999-01-01"], input: Self.password + "\n")
        #expect(before.status == 2 && before.errorLines.first?.contains("there is nothing before it") == true, "\(before)")
        let bad = try await sandbox.run(["export", "--journal", sandbox.journal, "--as-of", "tomorrow"])
        #expect(
            bad.status == 2
                && bad.errorLines == [
                    "giftkeeper: error: 'tomorrow' is not a date for --as-of. Type YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], today, yesterday or -7d, e.g. 2025-12-24 or 2025-12-24T18:00."
                ], "\(bad)")
    }
}
