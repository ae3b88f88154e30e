import Foundation
import GiftKeeperJournal
import GiftKeeperService
import Glibc
import Testing

@testable import GiftKeeperREPL

/// Planning (SPEC §10) in the shell, in process: occasions, budgets, upcoming, summary,
/// gift memory, undo and restore, history in words and time travel. The clock starts on
/// 2026-11-24 09:00 UTC and ticks a second per reading; `TZ` is UTC in transcripts.
@Suite(.serialized) struct PlanningTranscriptTests {
    /// Ten people's Christmas and a birthday, as a new user would type them.
    static let christmas = [
        #"occasion add "Christmas 2026" --date 2026-12-24"#,
        #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#,
        #"add Mum "Blue scarf" --price 25 --occasion "christmas 2026" --notes "wool, blue" --store "Harrods""#,
        #"add mum "Tea sampler" --price 12,50 --occasion "Mum's Birthday""#,
        #"add Zoë Kite --price 30 --occasion "Christmas 2026" --url https://example.org/kite"#,
        #"add zoe "Book of knots" --occasion "Christmas 2026""#,
        #"add Dad "Chess clock" --price 42.50"#,
    ]

    @Test("Occasions: dated, yearly, listed with their next date; names ignore case and accents")
    func occasions() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(Self.christmas + ["occasion list", "occasion", "list", "list zoe mum --sort price"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved occasion "Christmas 2026" on 2026-12-24."#))
        #expect(outcome.outputLines.contains(#"Saved occasion "Mum's birthday" on 1961-12-10, every year."#))
        // `mum` is Mum, `zoe` is Zoë: the first spelling is kept and shown.
        #expect(outcome.outputLines.contains(#"Saved p2: "Tea sampler" for Mum."#))
        #expect(outcome.outputLines.contains(#"Saved p4: "Book of knots" for Zoë."#))
        let occasionTable = [
            "OCCASION        DATE               NEXT        PRESENTS  OPEN",
            "--------------  -----------------  ----------  --------  ----",
            "Mum's birthday  1961-12-10 yearly  in 16 days         1     1",
            "Christmas 2026  2026-12-24         in 30 days         3     3",
        ]
        #expect(outcome.output.components(separatedBy: occasionTable.joined(separator: "\n")).count == 3, "\(outcome)")
        #expect(
            outcome.output.contains(
                """
                ID  RECIPIENT  TITLE          OCCASION        PRICE  STATUS
                --  ---------  -------------  --------------  -----  ------
                p1  Mum        Blue scarf     Christmas 2026  25.00  idea
                p2  Mum        Tea sampler    Mum's birthday  12.50  idea
                p3  Zoë        Kite           Christmas 2026  30.00  idea
                p4  Zoë        Book of knots  Christmas 2026      -  idea
                p5  Dad        Chess clock    -               42.50  idea
                5 presents, total 110.00 (5 idea)
                """), "\(outcome)")
        // Cheapest first, no price last; Dad not asked for.
        let sorted = outcome.outputLines.suffix(8).filter { $0.hasPrefix("p") }.map { String($0.prefix(2)) }
        #expect(sorted == ["p2", "p1", "p3", "p4"], "\(outcome)")
    }

    @Test("list: open by default, --all, several statuses and recipients, --occasion, --search, --sort")
    func listFilters() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(
            Self.christmas + [
                "mark p1 bought", "mark p3 given", "remove p5",
                "list", "list --all", "list --status idea,bought", "list --occasion CHRISTMAS 2026 --status bought",
                "list --search BLUE", "list --search harrods", "list --search zoe --all", "list --sort title --all",
            ])
        #expect(outcome.status == 0, "\(outcome)")
        let totals = outcome.outputLines.filter { $0.contains(" total ") || $0.hasPrefix("No presents") }
        #expect(
            totals == [
                "3 presents, total 37.50 (2 idea, 1 bought)",
                "5 presents, total 67.50 (2 idea, 1 bought, 1 given, 1 removed)",
                "3 presents, total 37.50 (2 idea, 1 bought)",
                "No presents match. ('list --all' shows given and removed ones too.)",
                "1 present, total 25.00 (1 bought)",
                "1 present, total 25.00 (1 bought)",
                "2 presents, total 30.00 (1 idea, 1 given)",
                "5 presents, total 67.50 (2 idea, 1 bought, 1 given, 1 removed)",
            ], "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix("p5") && $0.hasSuffix("removed") })
        let byTitle = outcome.outputLines.suffix(8).filter { $0.first == "p" }.map { String($0.prefix(2)) }
        #expect(byTitle == ["p1", "p4", "p5", "p3", "p2"], "\(outcome)")
    }

    @Test("Budgets: set per person, occasion or both; planned, spent, remaining; a change that goes over says so")
    func budgets() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(
            Self.christmas + [
                "budget set 40 --for MUM", #"budget set 50 --occasion "Christmas 2026""#, "mark p1 bought",
                #"add Mum "Gloves" --price 10"#, "budget", "budget set 60 --for mum", "budget clear --for Mum", "budget",
            ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains("Saved budget for Mum (2026): 40.00, 2.50 left after 37.50 planned and spent."))
        #expect(outcome.outputLines.contains("Saved budget for 'Christmas 2026': 50.00, 5.00 over after 55.00 planned and spent."))
        // Setting a budget already says whether it is over; the add that takes Mum's over says so.
        #expect(!outcome.outputLines.contains { $0.hasPrefix("Over budget: 'Christmas 2026'") }, "\(outcome)")
        #expect(outcome.outputLines.contains("Over budget: Mum (2026) has 40.00, planned and spent 47.50 (7.50 over)."))
        #expect(
            outcome.output.contains(
                """
                BUDGET FOR        BUDGET  PLANNED  SPENT  REMAINING  STATUS
                ----------------  ------  -------  -----  ---------  ------
                Mum (2026)         40.00    22.50  25.00      -7.50  OVER
                'Christmas 2026'   50.00    30.00  25.00      -5.00  OVER
                2 budgets, 2 over.
                """), "\(outcome)")
        #expect(outcome.outputLines.contains("Saved budget for Mum (2026): 60.00, 12.50 left after 47.50 planned and spent."))
        #expect(outcome.outputLines.contains("Cleared the budget for Mum (2026)."))
        #expect(outcome.outputLines.contains { $0.hasPrefix("'Christmas 2026'") && $0.hasSuffix("OVER") })
        #expect(outcome.outputLines.last(where: { $0.hasSuffix("over.") }) == "1 budget, 1 over.")
    }

    @Test("Budgets per year: a yearly occasion's and a recipient's budget count one year's presents, over two Christmases and two birthdays")
    func budgetsPerYear() throws {
        let transcript = try Transcript()
        let first = try transcript.signedIn([
            "occasion add Christmas --date 2026-12-24 --yearly", #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#,
            "add Mum Scarf --price 64.99 --occasion Christmas", "mark p1 given", "budget set 100 --occasion Christmas",
            #"add Mum Tea --price 10 --occasion "Mum's birthday""#, #"budget set 15 --occasion "mum's birthday""#,
            "budget set 80 --for Mum",
        ])
        #expect(first.status == 0, "\(first)")
        #expect(first.outputLines.contains("Saved budget for 'Christmas' (2026): 100.00, 35.01 left after 64.99 planned and spent."), "\(first)")
        #expect(first.outputLines.contains("Saved budget for 'Mum's birthday' (2026): 15.00, 5.00 left after 10.00 planned and spent."), "\(first)")
        #expect(first.outputLines.contains("Saved budget for Mum (2026): 80.00, 5.01 left after 74.99 planned and spent."), "\(first)")
        // A year on (2027-11-30): the same budgets for 2027 count only 2027's presents.
        transcript.clock.advance(days: 371)
        let next = try transcript.signedIn([
            "add Mum Slippers --price 30 --occasion Christmas", "budget set 100 --occasion Christmas",
            #"budget set 20 --occasion "Mum's birthday""#, "budget set 50 --for Mum", "budget set 90 --for Mum --year 2026",
            "budget", "upcoming --days 30", "summary", "summary --year 2026", "budget set 10 --year 20267",
        ])
        #expect(next.status == 2, "\(next)")
        #expect(next.outputLines.contains("Saved budget for 'Christmas' (2027): 100.00, 70.00 left after 30.00 planned and spent."), "\(next)")
        #expect(next.outputLines.contains("Saved budget for 'Mum's birthday' (2027): 20.00, 20.00 left after 0.00 planned and spent."), "\(next)")
        #expect(next.outputLines.contains("Saved budget for Mum (2027): 50.00, 20.00 left after 30.00 planned and spent."), "\(next)")
        #expect(next.outputLines.contains("Saved budget for Mum (2026): 90.00, 15.01 left after 74.99 planned and spent."), "\(next)")
        #expect(
            next.output.contains(
                """
                BUDGET FOR               BUDGET  PLANNED  SPENT  REMAINING  STATUS
                -----------------------  ------  -------  -----  ---------  ------
                'Christmas' (2026)       100.00     0.00  64.99      35.01  ok
                'Mum's birthday' (2026)   15.00    10.00   0.00       5.00  ok
                Mum (2026)                90.00    10.00  64.99      15.01  ok
                'Christmas' (2027)       100.00    30.00   0.00      70.00  ok
                'Mum's birthday' (2027)   20.00     0.00   0.00      20.00  ok
                Mum (2027)                50.00    30.00   0.00      20.00  ok
                6 budgets, none over.
                """), "\(next)")
        // upcoming names the year and what is still to spend of the occasion's budget.
        #expect(next.outputLines.contains("  Budget for 'Mum's birthday' (2027): 20.00; planned and spent 0.00, 20.00 left."), "\(next)")
        #expect(next.outputLines.contains("  Budget for 'Christmas' (2027): 100.00; planned and spent 30.00, 70.00 left."), "\(next)")
        #expect(next.outputLines.contains("1 present for 1 person in 2027: planned 30.00, spent 0.00."), "\(next)")
        #expect(next.outputLines.contains("2 presents for 1 person in 2026: planned 10.00, spent 64.99."), "\(next)")
        #expect(next.outputLines.contains { $0.hasPrefix("Mum") && $0.contains("50.00") }, "summary shows Mum's 2027 budget: \(next)")
        #expect(next.outputLines.contains { $0.hasPrefix("Mum") && $0.contains("90.00") }, "summary --year 2026 shows 2026's: \(next)")
        #expect(
            next.errorLines == [
                "giftkeeper: error: '--year 20267' is not a year. Type e.g. 'summary --year 2026' or 'budget set 100 --for Mum --year 2027'."
            ], "\(next)")
    }

    @Test(
        "occasion close: a yearly occasion's open ideas carry over to its next date, a past one's are kept without it; two Christmases, two birthdays"
    )
    func closingOccasions() throws {
        let transcript = try Transcript()
        let first = try transcript.signedIn([
            "occasion add Christmas --date 2026-12-24 --yearly", #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#,
            #"occasion add "Party 2026" --date 2026-12-20"#, "add Mum Scarf --price 25 --occasion Christmas",
            "add Dad Book --price 10 --occasion Christmas", "mark p2 given", #"add Zoë Kite --occasion "Party 2026""#,
            #"add Zoë Ball --occasion "Party 2026""#, "mark p4 bought", #"add Mum Tea --price 8 --occasion "Mum's birthday""#,
            #"occasion close "Party 2026""#,
        ])
        #expect(
            first.errorLines == ["giftkeeper: error: 'Party 2026' is not over yet: it falls on 2026-12-20. Close it once that day has come."],
            "\(first)")
        // 2026-12-28: this year's days are over.
        transcript.clock.advance(days: 34)
        let after = try transcript.signedIn([
            "occasion close christmas", #"occasion close "party 2026""#, #"occasion close "Mum's birthday" --keep"#,
            "occasion close Christmas", "undo", #"occasion close "Mum's birthday" --carry-over"#, "list", "occasion list",
            "upcoming --days 365", "budget set 50 --occasion Christmas",
        ])
        #expect(after.status == 0, "\(after)")
        let said = after.outputLines.filter { $0.hasPrefix("Closed") || $0.contains("already closed") || $0.hasPrefix("Undone") }
        #expect(
            said == [
                #"Closed "Christmas" for 2026-12-24: 1 open idea carried over to 2027-12-24 (p1)."#,
                #"Closed "Party 2026" for 2026-12-20: 1 open idea kept without an occasion (p3)."#,
                #"Closed "Mum's birthday" for 2026-12-10: 1 open idea kept without an occasion (p5)."#,
                #""Christmas" is already closed for 2026-12-24; nothing changed."#,
                #"Undone: Occasion "Mum's birthday" closed (2026-12-10 is over); p5 occasion "Mum's birthday" → (none)."#,
                #"Closed "Mum's birthday" for 2026-12-10: 1 open idea carried over to 2027-12-10 (p5)."#,
            ], "\(after)")
        // The bought ball stays with the party, shown as past; the kite has no occasion now.
        #expect(after.outputLines.contains { $0.hasPrefix("p4") && $0.contains("Party 2026 (past)") }, "\(after)")
        #expect(after.outputLines.contains { $0.hasPrefix("p3") && $0.contains("Kite") && !$0.contains("Party") }, "\(after)")
        #expect(after.outputLines.contains { $0.hasPrefix("Party 2026") && $0.contains("past") }, "\(after)")
        #expect(after.outputLines.contains("Mum's birthday: 2027-12-10, in 347 days"), "\(after)")
        #expect(after.outputLines.contains { $0.hasPrefix("  p5") && $0.hasSuffix("buy") }, "\(after)")
        #expect(after.outputLines.contains("Christmas: 2027-12-24, in 361 days"), "\(after)")
        #expect(after.outputLines.contains { $0.hasPrefix("  p1") && $0.hasSuffix("buy") }, "\(after)")
        // The carried idea counts for next year's budget.
        #expect(after.outputLines.contains("Saved budget for 'Christmas' (2027): 50.00, 25.00 left after 25.00 planned and spent."), "\(after)")
        // A year on: the second Christmas and birthday close too, the ideas carried again.
        transcript.clock.advance(days: 365)
        let second = try transcript.signedIn(["occasion close Christmas", #"occasion close "Mum's birthday""#])
        #expect(
            second.outputLines.filter { $0.hasPrefix("Closed") } == [
                #"Closed "Christmas" for 2027-12-24: 1 open idea carried over to 2028-12-24 (p1)."#,
                #"Closed "Mum's birthday" for 2027-12-10: 1 open idea carried over to 2028-12-10 (p5)."#,
            ], "\(second)")
    }

    @Test("upcoming: soonest first with countdowns and what is left to buy and wrap; yearly occasions recur")
    func upcoming() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(Self.christmas + ["mark p1 bought", "mark p3 wrapped"])
        let outcome = try transcript.signedIn(["upcoming", "upcoming --days 20", "upcoming --days x"])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.output.contains(
                """
                Mum's birthday: 2026-12-10, in 16 days
                  ID  RECIPIENT  TITLE        PRICE  TO DO
                  --  ---------  -----------  -----  -----
                  p2  Mum        Tea sampler  12.50  buy
                  1 to buy (12.50 still to spend).
                Christmas 2026: 2026-12-24, in 30 days
                  ID  RECIPIENT  TITLE          PRICE  TO DO
                  --  ---------  -------------  -----  -----
                  p4  Zoë        Book of knots      -  buy
                  p1  Mum        Blue scarf     25.00  wrap
                  p3  Zoë        Kite           30.00  give
                  1 to buy (0.00 still to spend), 1 to wrap, 1 ready to give.
                Mum's birthday: 2026-12-10, in 16 days
                  ID  RECIPIENT  TITLE        PRICE  TO DO
                  --  ---------  -----------  -----  -----
                  p2  Mum        Tea sampler  12.50  buy
                  1 to buy (12.50 still to spend).
                🔒
                """.dropLast(2)), "\(outcome)")
        #expect(outcome.errorLines == ["giftkeeper: error: '--days x' must be a number of days, 0 or more. Type e.g. 'upcoming --days 30'."])
        // A year on: the birthday comes back, the dated Christmas does not.
        transcript.clock.advance(days: 365)
        let later = try transcript.signedIn(["upcoming --days 30"])
        #expect(later.outputLines.contains("Mum's birthday: 2027-12-10, in 16 days"), "\(later)")
        #expect(!later.output.contains("Christmas 2026"), "\(later)")
    }

    @Test("upcoming --check exits 10 when an occasion is due and 0 when none is; --ics writes an iCalendar file")
    func reminders() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(Self.christmas + [#"occasion add "Leap day" --date 2024-02-29 --yearly"#])
        let quiet = try transcript.signedIn(["upcoming --days 5 --check"])
        #expect(quiet.status == 0 && quiet.outputLines.contains { $0.hasPrefix("Nothing in the next 5 days") }, "\(quiet)")
        let due = try transcript.signedIn(["upcoming --days 20 --check"])
        #expect(due.status == 10 && due.errorLines.isEmpty, "\(due)")
        #expect(due.outputLines.first == "Mum's birthday: 2026-12-10, in 16 days", "\(due)")

        let path = NSTemporaryDirectory() + "giftkeeper-\(getpid())-reminders.ics"
        defer { unlink(path) }
        let written = try transcript.signedIn(["upcoming --ics \(path)"])
        #expect(written.status == 0, "\(written)")
        #expect(
            written.outputLines == [
                "Wrote 3 occasions to \(path) (mode 0600). Import it into your calendar app; writing it again updates the same events."
            ], "\(written)")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && text.hasSuffix("END:VCALENDAR\r\n"), "\(text)")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 75 }, "\(text)")
        // Mum's birthday repeats from the day she was born; Christmas 2026 falls once; a leap
        // day falls on the last day of February in other years.
        #expect(text.contains("SUMMARY:Mum's birthday\r\nDESCRIPTION:GiftKeeper: 1 to buy (12.50 still to spend).\r\n"), "\(text)")
        #expect(text.contains("DTSTART;VALUE=DATE:19611210\r\nDTEND;VALUE=DATE:19611211\r\n"), "\(text)")
        #expect(lines.filter { $0 == "RRULE:FREQ=YEARLY" }.count == 1, "\(text)")
        #expect(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1"), "\(text)")
        #expect(text.contains("DTSTART;VALUE=DATE:20261224\r\n"), "\(text)")
        // No present's title goes into a calendar.
        #expect(!text.contains("Tea sampler") && !text.contains("Blue scarf"), "\(text)")
    }

    @Test("summary: per recipient with a bar chart, Unicode blocks or # when the terminal is not UTF-8")
    func summary() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(
            Self.christmas + [
                "mark p5 bought", "budget set 30 --for Mum", #"budget set 40 --occasion "Christmas 2026""#, "budget set 500",
            ])
        setenv("LC_ALL", "C.UTF-8", 1)
        let unicode = try transcript.signedIn(["summary"])
        setenv("LC_ALL", "C", 1)
        let ascii = try transcript.signedIn([#"summary --occasion "christmas 2026""#, "summary --year 2026", "summary --year 20x6"])
        unsetenv("LC_ALL")
        #expect(
            unicode.output.contains(
                """
                RECIPIENT  PRESENTS  PLANNED  SPENT      BUDGET  CHART
                ---------  --------  -------  -----  ----------  --------------------
                Dad               1     0.00  42.50           -  ████████████████████
                Mum               2    37.50   0.00  30.00 OVER  ░░░░░░░░░░░░░░░░░░
                Zoë               2    30.00   0.00           -  ░░░░░░░░░░░░░░
                5 presents for 3 people in 2026: planned 67.50, spent 42.50.
                Budget for 'Christmas 2026': 40.00; planned and spent 55.00, 15.00 over.
                Budget for everything: 500.00; planned and spent 110.00, 390.00 left.
                """), "\(unicode)")
        #expect(
            ascii.output.contains(
                """
                RECIPIENT  PRESENTS  PLANNED  SPENT  BUDGET  CHART
                ---------  --------  -------  -----  ------  --------------------
                Mum               1    25.00   0.00       -  -----------------
                Zoë               2    30.00   0.00       -  --------------------
                3 presents for 2 people in 2026: planned 55.00, spent 0.00.
                Budget for 'Christmas 2026': 40.00; planned and spent 55.00, 15.00 over.
                """), "\(ascii)")
        #expect(ascii.outputLines.contains { $0.hasPrefix("Dad") && $0.hasSuffix("####################") }, "\(ascii)")
        #expect(
            ascii.errorLines == [
                "giftkeeper: error: '--year 20x6' is not a year. Type e.g. 'summary --year 2026' or 'budget set 100 --for Mum --year 2027'."
            ])
    }

    @Test("Gift memory names the three most alike presents, the same title first, and counts the rest in one line")
    func giftMemoryNamesAFew() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            #"add Mum "Warm wool socks""#, #"add Mum "Wool socks, grey""#, #"add Mum "Socks for hiking""#,
            #"add Mum "Striped socks""#, #"add Mum "Wool socks""#, #"add Mum "Book""#, #"add Mum "wool SOCKS""#,
        ])
        #expect(outcome.status == 0, "\(outcome)")
        let last = try #require(outcome.outputLines.lastIndex { $0.hasPrefix("Saved p7") })
        #expect(
            Array(outcome.outputLines[last...].prefix(5)) == [
                #"Saved p7: "wool SOCKS" for Mum."#,
                #"Note: Mum already has "Wool socks" planned (p5, idea)."#,
                #"Note: Mum already has "Warm wool socks" planned (p1, idea)."#,
                #"Note: Mum already has "Wool socks, grey" planned (p2, idea)."#,
                "Note: 2 more of Mum's presents have a similar title ('gifts Mum' lists what was given).",
            ], "\(outcome)")
        #expect(!outcome.output.contains(#"already has "Book""#))
    }

    @Test("Gift memory: gifts <recipient> by year and occasion; add notes a similar present given or planned")
    func giftMemory() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(Self.christmas + ["mark p1 given", "mark p3 given"])
        transcript.clock.advance(days: 365)
        let outcome = try transcript.signedIn([
            #"occasion add "Christmas 2027" --date 2027-12-24"#,
            #"add MUM "Scarf, blue wool" --occasion "Christmas 2027""#, #"add Zoe "Red kite""#, #"add Mum "Tea cosy""#,
            "gifts mum", "gifts Zoe", "gifts Sam",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains(#"Note: Mum got "Blue scarf" for Christmas 2026 on 2026-11-24 (p1)."#), "\(outcome)")
        #expect(outcome.outputLines.contains(#"Note: Zoë got "Kite" for Christmas 2026 on 2026-11-24 (p3)."#), "\(outcome)")
        #expect(outcome.outputLines.contains(#"Note: Mum already has "Tea sampler" for Mum's birthday planned (p2, idea)."#), "\(outcome)")
        #expect(
            outcome.output.contains(
                """
                2026
                  Christmas 2026
                    p1 Blue scarf (given 2026-11-24, 25.00)
                1 present given to Mum.
                """), "\(outcome)")
        #expect(outcome.outputLines.contains("Nothing given to Sam yet. ('mark <id> given' records a present as given.)"))
    }

    @Test("undo reverses this session's changes one by one, as new events; restore brings back a removed present")
    func undoAndRestore() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            #"add Mum "Blue scarf" --price 25"#, "edit p1 price=22.50 title=Scarf", "mark p1 bought", "remove p1",
            "undo", "undo", "show p1", "undo", "undo", "undo", "undo", "list --all", "add Dad Pen", "remove p2", "restore p2",
            "restore p2", "history p1",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.outputLines.filter { $0.hasPrefix("Undone") } == [
                #"Undone: Removed p1 "Scarf"."#, #"Undone: p1 "Scarf" idea → bought."#,
                #"Undone: p1 price 25.00 → 22.50, title "Blue scarf" → "Scarf"."#,
                #"Undone: Added p1 "Blue scarf" for Mum (25.00)."#,
            ], "\(outcome)")
        #expect(outcome.outputLines.contains("price      22.50"))
        #expect(outcome.outputLines.contains { $0.hasPrefix("p1") && $0.hasSuffix("removed") })
        #expect(outcome.outputLines.contains(#"Saved p2: "Pen" for Dad is back (idea)."#))
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: Nothing to undo: this session has made no change that is not undone yet.",
                "giftkeeper: error: Nothing to undo: this session has made no change that is not undone yet.",
                "giftkeeper: error: Present 'p2' is not removed, so there is nothing to restore. Type 'show p2' to see it.",
            ], "\(outcome)")
        // The history keeps every step, the reversals included, with old and new values.
        let life = outcome.outputLines.drop { !$0.hasPrefix("WHEN") }.dropFirst(2).prefix { !$0.hasPrefix("🔒") }
        #expect(
            life.map { String($0.dropFirst(18)) } == [
                #"Added p1 "Blue scarf" for Mum (25.00)"#, #"p1 price 25.00 → 22.50, title "Blue scarf" → "Scarf""#,
                #"p1 "Scarf" idea → bought"#, #"Removed p1 "Scarf""#, #"Restored p1 "Scarf""#, #"p1 "Scarf" bought → idea"#,
                #"p1 price 22.50 → 25.00, title "Scarf" → "Blue scarf""#, #"Removed p1 "Blue scarf""#,
            ], "\(outcome)")
        // Undo is per session: a new session has nothing to undo.
        let next = try transcript.signedIn(["undo"])
        #expect(next.errorLines.count == 1 && next.status == 2, "\(next)")
    }

    @Test("undo says what the next undo would reverse; redo makes an undone change again until a new change")
    func undoYouCanSee() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            #"add Mum "Blue scarf" --price 25"#, "mark p1 bought", "undo", "redo", "show p1", "undo", "undo", "redo", "redo",
            "list", "undo", "add Dad Pen", "redo",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        let said = outcome.outputLines.filter { $0.hasPrefix("Undone") || $0.hasPrefix("Redone") || $0.hasPrefix("Next") || $0.hasPrefix("Nothing") }
        #expect(
            said == [
                #"Undone: p1 "Blue scarf" idea → bought."#,
                #"Next 'undo' would reverse: Added p1 "Blue scarf" for Mum (25.00) (2026-11-24 09:00). 'redo' makes the undone change again."#,
                #"Redone: p1 "Blue scarf" idea → bought."#,
                #"Undone: p1 "Blue scarf" idea → bought."#,
                #"Next 'undo' would reverse: Added p1 "Blue scarf" for Mum (25.00) (2026-11-24 09:00). 'redo' makes the undone change again."#,
                #"Undone: Added p1 "Blue scarf" for Mum (25.00)."#,
                "Nothing more to undo in this session. 'redo' makes the undone change again.",
                #"Redone: Added p1 "Blue scarf" for Mum (25.00)."#,
                #"Next 'redo' would make again: p1 "Blue scarf" idea → bought."#,
                #"Redone: p1 "Blue scarf" idea → bought."#,
                #"Undone: p1 "Blue scarf" idea → bought."#,
                // The add, made again by redo, is the present restored.
                #"Next 'undo' would reverse: Restored p1 "Blue scarf" (2026-11-24 09:00). 'redo' makes the undone change again."#,
            ], "\(outcome)")
        #expect(outcome.outputLines.contains("status     bought"), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix("p1") && $0.hasSuffix("bought") }, "\(outcome)")
        // A new change ends what redo can make again.
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: Nothing to redo: 'redo' makes again what 'undo' reversed, until a new change is made."
            ], "\(outcome)")
    }

    @Test("history leaves sign-ins and sign-outs out unless --logins; --recipient, --since and --until filter")
    func historyFilters() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([#"add Mum "Blue scarf" --price 25"#, "add Dad Pen", "budget set 40 --for mum"])
        transcript.clock.advance(days: 2)
        _ = try transcript.signedIn(["edit p2 recipient=Mum", "mark p1 bought", "add Zoë Kite"])
        let outcome = try transcript.signedIn([
            "history", "history --logins", "history --recipient MUM", "history --since 2026-11-26",
            "history --until 2026-11-24 --recipient dad", "history --since 2026-11-25T23:59 --until 2026-11-26 --logins",
            "history --since 26.11.2026",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        let tables = outcome.output.components(separatedBy: "WHEN              WHAT\n").dropFirst().map { table in
            table.split(separator: "\n").dropFirst().map { String($0.dropFirst(18)) }
        }
        try #require(tables.count == 6, "\(outcome)")
        let changes = [
            #"Added p1 "Blue scarf" for Mum (25.00)"#, #"Added p2 "Pen" for Dad"#, "Budget for Mum (2026) set to 40.00",
            #"p2 recipient "Dad" → "Mum""#, #"p1 "Blue scarf" idea → bought"#, #"Added p3 "Kite" for Zoë"#,
        ]
        #expect(tables[0] == ["Keys wrapped under the password", "Account created for Alice"] + changes, "\(outcome)")
        #expect(tables[1].filter { $0 == "Signed in" }.count == 4 && tables[1].filter { $0 == "Signed out" }.count == 3, "\(outcome)")
        #expect(tables[1].filter { !$0.hasPrefix("Signed") } == tables[0], "\(outcome)")
        // Mum's: p2 counts from when it became hers.
        #expect(tables[2] == changes.prefix(5).filter { !$0.contains("Pen") }, "\(outcome)")
        #expect(tables[3] == Array(changes.suffix(3)), "\(outcome)")
        #expect(tables[4] == [#"Added p2 "Pen" for Dad"#], "\(outcome)")
        #expect(tables[5] == ["Signed in"] + changes.suffix(3) + ["Signed out", "Signed in"], "\(outcome)")
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: '26.11.2026' is not a date for --since. Type YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], today, yesterday or -7d, e.g. 2025-12-24 or 2025-12-24T18:00."
            ], "\(outcome)")
    }

    @Test("A new occasion that looks like a typo of a known one is saved with a note: 'Did you mean …?'")
    func occasionTypo() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(
            Self.christmas + [
                #"add Mum Hat --occasion "Chrismas 2026""#, #"add Dad Tie --occasion "Christmas 2027""#,
                #"add Dad Sock --occasion "christmas 2026""#, #"edit p5 occasion="Mums birthday""#, "add Zoë Pen --occasion Easter",
            ])
        #expect(outcome.status == 0, "\(outcome)")
        let notes = outcome.outputLines.filter { $0.hasPrefix("Note:") }
        #expect(
            notes == [
                "Note: 'Chrismas 2026' is a new occasion. Did you mean 'Christmas 2026'? To move it there: edit p6 occasion='Christmas 2026'",
                #"Note: 'Mums birthday' is a new occasion. Did you mean 'Mum's birthday'? To move it there: edit p5 occasion="Mum's birthday""#,
            ], "\(outcome)")
        // Saved as typed all the same: a script is never asked.
        #expect(outcome.outputLines.contains(#"Saved p6: "Hat" for Mum."#), "\(outcome)")
        #expect(outcome.outputLines.contains("Saved p5: occasion changed."), "\(outcome)")
    }

    @Test("--as-of shows the list, a present, the budgets and the summary as they were then; export too")
    func timeTravel() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([#"add Mum "Blue scarf" --price 25"#, "budget set 20 --for Mum"])
        transcript.clock.advance(days: 40)
        _ = try transcript.signedIn(["edit p1 price=30 title=Shawl", "mark p1 given", "add Dad Pen", "budget set 50 --for Mum"])
        let outcome = try transcript.signedIn([
            "list --all --as-of 2026-11-30", "show p1 --as-of 2026-11-30", "budget --as-of 2026-11-30",
            "summary --as-of 2026-11-30T23:59", "export --as-of 2026-11-30", "list --as-of 2026-11-23", "list --as-of 30.11.2026",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.output.contains("p1  Mum        Blue scarf  -         25.00  idea"), "\(outcome)")
        #expect(outcome.outputLines.contains("1 present, total 25.00 (1 idea)"), "\(outcome)")
        #expect(outcome.outputLines.contains("title      Blue scarf"))
        #expect(outcome.outputLines.contains { $0.hasPrefix("Mum") && $0.contains("20.00") && $0.hasSuffix("OVER") })
        #expect(outcome.output.contains(#""title" : "Blue scarf""#) && !outcome.output.contains("Shawl"), "\(outcome)")
        #expect(
            outcome.errorLines.filter { $0.hasPrefix("giftkeeper:") } == [
                "giftkeeper: error: The journal began on 2026-11-24 09:00; there is nothing before it. Choose a later --as-of date.",
                "giftkeeper: error: '30.11.2026' is not a date for --as-of. Type YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], today, yesterday or -7d, e.g. 2025-12-24 or 2025-12-24T18:00.",
            ], "\(outcome)")
        #expect(outcome.errors.contains("As of 2026-11-30 23:59:"))
    }

    @Test("--as-of takes seconds and days counted back: today, yesterday, -7d, -2w")
    func asOfSecondsAndRelativeDays() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([#"add Mum "Blue scarf" --price 25"#])
        transcript.clock.advance(days: 40)
        _ = try transcript.signedIn(["edit p1 price=30"])
        let outcome = try transcript.signedIn([
            "show p1 --as-of yesterday", "show p1 --as-of -7d", "show p1 --as-of -2W", "show p1 --as-of today",
            "list --as-of 2026-11-24T08:59:59", "list --as-of 2026-11-24T09:00:00", "list --as-of 2026-11-24T09:00:61",
            "list --as-of tomorrow",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.outputLines.filter { $0.hasPrefix("price") } == ["price      25.00", "price      25.00", "price      25.00", "price      30.00"],
            "\(outcome)")
        #expect(outcome.errors.contains("As of 2027-01-02 23:59:"), "\(outcome)")
        #expect(outcome.errors.contains("As of 2026-12-27 23:59:"), "\(outcome)")
        #expect(outcome.errors.contains("As of 2026-11-24 09:00:"), "\(outcome)")
        let usage = "Type YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], today, yesterday or -7d, e.g. 2025-12-24 or 2025-12-24T18:00."
        #expect(
            outcome.errorLines.filter { $0.hasPrefix("giftkeeper:") } == [
                "giftkeeper: error: The journal began on 2026-11-24 09:00; there is nothing before it. Choose a later --as-of date.",
                "giftkeeper: error: '2026-11-24T09:00:61' is not a date for --as-of. " + usage,
                "giftkeeper: error: 'tomorrow' is not a date for --as-of. " + usage,
            ], "\(outcome)")
    }

    @Test("A title with quotes is shown with them escaped, never as two quoted strings")
    func quotesInTitles() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            #"add Mum 'Orchid, white "Phalaenopsis"'"#, #"add Mum 'Orchid \ "white"'"#, "remove p1", "restore p1", "history --last 3",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved p1: "Orchid, white \"Phalaenopsis\"" for Mum."#), "\(outcome)")
        #expect(outcome.outputLines.contains(#"Note: Mum already has "Orchid, white \"Phalaenopsis\"" planned (p1, idea)."#), "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved p1: "Orchid, white \"Phalaenopsis\"" for Mum is back (idea)."#), "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved p2: "Orchid \\ \"white\"" for Mum."#), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasSuffix(#"Restored p1 "Orchid, white \"Phalaenopsis\"""#) }, "\(outcome)")
    }

    @Test("--json: an absent value is null, never \"\"; upcoming gives its presents whole and what is still to spend")
    func jsonShape() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(Self.christmas + ["mark p1 bought"])
        let shown = try transcript.signedIn(["show p4 --json"])
        let present = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any], "\(shown)")
        for field in ["notes", "price", "url", "store", "givenAt"] {
            #expect(present[field] is NSNull, "\(field): \(present)")
        }
        #expect(present["occasion"] as? String == "Christmas 2026", "\(present)")
        let upcoming = try transcript.signedIn(["upcoming --json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(upcoming.output.utf8)) as? [[String: Any]], "\(upcoming)")
        let christmas = try #require(items.first { $0["occasion"] as? String == "Christmas 2026" }, "\(items)")
        #expect((christmas["toBuy"] as? [[String: Any]])?.map { $0["id"] as? String } == ["p3", "p4"], "\(christmas)")
        #expect((christmas["toWrap"] as? [[String: Any]])?.first?["title"] as? String == "Blue scarf", "\(christmas)")
        #expect(christmas["toSpend"] as? String == "30.00", "\(christmas)")
    }

    @Test("Each bad planning input is one clear line, exit 2, and appends nothing")
    func badInputAppendsNothing() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([#"add Mum Scarf --occasion "Christmas 2026""#, "remove p1", "add Dad Pen"])
        let cases: [(String, String)] = [
            ("occasion remove Easter", "No occasion 'Easter'. Type 'occasion list' to see them."),
            (#"occasion add Easter --date 2026-02-30"#, "'2026-02-30' is not a date. Type it as YYYY-MM-DD, e.g. 2026-12-24."),
            (#"occasion add Easter --yearly"#, "A yearly occasion needs its date: add --date YYYY-MM-DD (for a birthday, the date of birth)."),
            (
                "occasion rename Easter",
                "'occasion rename' is not a command: 'occasion' takes 'add', 'list', 'remove', 'close'. Type 'help occasion' for its usage."
            ),
            ("budget set -5 --for Mum", "'-5' is not a price: it is negative. Type an amount such as 25, 25.50 or 25,50."),
            (
                "add Mum Hat --price 1,000",
                "'1,000' is not a price: a comma is read as the decimal comma, with one or two decimals after it (12,50), "
                    + "and thousands take no separator (1000). Type an amount such as 25, 25.50 or 25,50."
            ),
            ("budget set", "'budget set' needs an amount, e.g. 'budget set 100 --for Mum'."),
            ("budget clear --for Dad", "There is no budget for Dad (2026). Type 'budget' to see the budgets."),
            ("restore p2", "Present 'p2' is not removed, so there is nothing to restore. Type 'show p2' to see it."),
            ("restore p9", "No present 'p9'. Type 'list' to see ids."),
            ("undo", "Nothing to undo: this session has made no change that is not undone yet."),
            ("list --as-of 2020-01-01", "The journal began on 2026-11-24 09:00; there is nothing before it. Choose a later --as-of date."),
            ("list --sort colour", "Unknown sort 'colour'. Type one of: price, recipient, occasion, status, created, title."),
            ("list --status idea,sold", "Unknown status 'sold'. Type one of: idea, bought, wrapped, given."),
            (
                "setup Bob --currency euro",
                "This journal already has an account, and you are signed in to it. For a new journal, quit and start giftkeeper with --journal NEW-PATH."
            ),
        ]
        for (line, error) in cases {
            let before = transcript.frameCount
            let outcome = try transcript.run(["login", "correct horse", line])
            #expect(outcome.status == 2, "\(line): \(outcome)")
            #expect(outcome.errorLines == ["giftkeeper: error: " + error], "\(line)")
            // login and the sign-out at the end are the only frames added.
            #expect((transcript.frameCount) == before + 2, "\(line) appended something")
        }
        let occasionInUse = try transcript.signedIn([
            #"occasion add "Christmas 2026" --date 2026-12-24"#, "restore p1", #"occasion remove "christmas 2026""#,
        ])
        #expect(
            occasionInUse.errorLines == [
                "giftkeeper: error: 1 present is for 'Christmas 2026' (p1). Give it another occasion first, e.g. 'edit p1 occasion=…'."
            ], "\(occasionInUse)")
        let fresh = try Transcript()
        let currency = try fresh.run(["setup Bob --currency euro", "pw-1234567", "pw-1234567"])
        #expect(currency.errorLines == ["giftkeeper: error: 'euro' is not a currency code. Type three letters, e.g. EUR, USD or GBP."])
        #expect(fresh.location.store == nil, "a refused setup creates no journal")
        let withCurrency = try fresh.run(["setup Bob --currency eur", "pw-1234567", "pw-1234567", "add Mum Hat --price 2,5", "list", "show p1"])
        #expect(withCurrency.outputLines.contains("1 present, total 2.50 EUR (1 idea)"), "\(withCurrency)")
        #expect(withCurrency.outputLines.contains("price      2.50 EUR"), "\(withCurrency)")
        #expect(withCurrency.outputLines.contains { $0.contains("PRICE EUR") })
    }

    @Test("Completion offers occasions, sort orders, actions and removed ids where they are expected")
    func completion() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(Self.christmas + ["remove p5"])
        let session = try transcript.session()
        try session.service.open(access: .readWrite)
        try session.service.login(password: Transcript.secret("correct horse"))
        func complete(_ words: [String], _ word: String = "") -> [String] {
            session.completions(for: CompletionRequest(line: words.joined(separator: " ") + " " + word, precedingWords: words, word: word))
        }
        #expect(complete(["add", "Mum", "Hat", "--occasion"]) == ["Mum's birthday", "Christmas 2026"])
        #expect(complete(["list", "--occasion"]) == ["Mum's birthday", "Christmas 2026"])
        #expect(complete(["list", "--sort"]) == ["price", "recipient", "occasion", "status", "created", "title"])
        #expect(complete(["list"]) == ["Mum", "Zoë"])
        #expect(complete(["occasion"]) == ["add", "list", "remove", "close"])
        #expect(complete(["occasion", "remove"]) == ["Mum's birthday", "Christmas 2026"])
        #expect(complete(["budget"]) == ["set", "clear", "show"])
        #expect(complete(["budget", "set", "10", "--for"]) == ["Mum", "Zoë"])
        #expect(complete(["restore"]) == ["p5"])
        #expect(complete(["edit", "p1"], "occasion=") == ["occasion=Mum's birthday", "occasion=Christmas 2026"])
        #expect(complete(["gifts"]) == ["Mum", "Zoë"])
        try session.service.close()
    }
}
