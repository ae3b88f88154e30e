import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// The shell in process (``Transcript``): script lines in, the exact output and errors out.
/// Most shell behaviour is pinned here; the end-to-end suites keep what needs a real
/// process (a terminal, signals, files, exit codes of the binary).
@Suite struct ShellTranscriptTests {
    static let setUp = ["setup Alice --kdf interactive", "correct horse", "correct horse"]

    @Test("Setup, add, list, show, edit, mark, remove and history, word for word")
    func aFirstSession() throws {
        let transcript = try Transcript()
        let outcome = try transcript.run(
            Self.setUp + [
                #"add Mum "Blue scarf" --price 25 --occasion Christmas"#,
                "add Dad Vinyl",
                "list",
                "show p1",
                #"edit p1 price=22.50 notes="wool, red""#,
                "mark p1 bought",
                "remove p2",
                "history --last 4",
                "quit",
            ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.errors == "", "\(outcome)")
        // In a script, standard output holds only results; the notifications are on standard error.
        #expect(outcome.notifications == ["🔓 Signed in as Alice", "🔒 Signed out"], "\(outcome)")
        #expect(
            outcome.output == """
                Journal created at /journals/gifts.journal (mode 0600). Type 'add <recipient> <title>' to add a present.
                Saved p1: "Blue scarf" for Mum.
                Saved p2: "Vinyl" for Dad.
                ID  RECIPIENT  TITLE       OCCASION   PRICE  STATUS
                --  ---------  ----------  ---------  -----  ------
                p1  Mum        Blue scarf  Christmas  25.00  idea
                p2  Dad        Vinyl       -              -  idea
                2 presents, total 25.00 (2 idea)
                id         p1
                recipient  Mum
                title      Blue scarf
                price      25.00
                status     idea
                occasion   Christmas
                url        -
                store      -
                notes      -
                created    2026-11-24 09:00
                updated    2026-11-24 09:00
                Saved p1: price, notes changed.
                Saved p1: marked bought.
                Saved p2: removed (the history keeps it).
                WHEN              WHAT
                ----------------  --------------------------------------------------
                2026-11-24 09:00  Added p2 "Vinyl" for Dad
                2026-11-24 09:00  p1 price 25.00 → 22.50, notes (none) → "wool, red"
                2026-11-24 09:00  p1 "Blue scarf" idea → bought
                2026-11-24 09:00  Removed p2 "Vinyl"
                """ + "\n", "\(outcome)")
    }

    @Test("A restarted shell signs in to the same journal; a wrong password is recorded and announced")
    func laterSessions() throws {
        let transcript = try Transcript()
        _ = try transcript.run(Self.setUp + ["add Mum Scarf --price 10"])
        let outcome = try transcript.run(["login", "wrong horse", "login", "correct horse", "list", "signout", "list"])
        #expect(outcome.status == 3, "\(outcome)")
        #expect(
            outcome.output == """
                ID  RECIPIENT  TITLE  OCCASION  PRICE  STATUS
                --  ---------  -----  --------  -----  ------
                p1  Mum        Scarf  -         10.00  idea
                1 present, total 10.00 (1 idea)
                """ + "\n", "\(outcome)")
        #expect(
            outcome.notifications == [
                "⚠️  Failed sign-in recorded.",
                "🔓 Signed in as Alice (1 failed attempt reported since your last visit)", "🔒 Signed out",
            ], "\(outcome)")
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: Wrong password. The attempt was recorded; try again.",
                "giftkeeper: error: You are signed out. Type 'login' first.",
            ])
    }

    @Test("Missing arguments are read from the next lines of a script, in order")
    func scriptAnswers() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(["add", "Sam", "Kite", "edit p1", "title=\"Big kite\"", "mark", "p1", "wrapped", "show", "p1"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved p1: "Kite" for Sam."#))
        #expect(outcome.outputLines.contains("Saved p1: title changed."))
        #expect(outcome.outputLines.contains("Saved p1: marked wrapped."))
        #expect(outcome.outputLines.contains("title      Big kite"))
        #expect(outcome.errors == "")
    }

    @Test("Every error is one line and the script goes on; the exit code is the first failure's")
    func errorsAreOneLine() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            "lst", "show p9", "mark p1 sold", "add Mum Hat --price -5", "add Mum Hat --colour red",
            "history --last 0", #"add "unterminated"#, "add Mum Hat", "list",
        ])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: Line 3 is not a command (it is not repeated here: it may be a misplaced answer, such as a password). Type 'help' to see the commands.",
                "giftkeeper: error: No present 'p9'. Type 'list' to see ids.",
                "giftkeeper: error: Unknown status 'sold'. Type one of: idea, bought, wrapped, given.",
                "giftkeeper: error: '-5' is not a price: it is negative. Type an amount such as 25, 25.50 or 25,50.",
                "giftkeeper: error: Unknown option '--colour'. Type 'help add' for its usage.",
                "giftkeeper: error: '--last 0' must be 1 or more. Type e.g. 'history --last 10'.",
                "giftkeeper: error: Unterminated quote: a \" was opened but not closed. Close it with \".",
            ], "\(outcome)")
        #expect(
            outcome.outputLines.suffix(5) == [
                #"Saved p1: "Hat" for Mum."#,
                "ID  RECIPIENT  TITLE  OCCASION  PRICE  STATUS",
                "--  ---------  -----  --------  -----  ------",
                "p1  Mum        Hat    -             -  idea",
                "1 present, total 0.00 (1 idea)",
            ], "\(outcome)")
        #expect(outcome.notifications.last == "🔒 Signed out", "\(outcome)")
    }

    @Test("A password never runs as a command nor appears in an error, even when the command fails first")
    func answersOfAFailedCommandAreSkipped() throws {
        let transcript = try Transcript()
        _ = try transcript.run(Self.setUp)
        let outcome = try transcript.run(["login --now", "Secret-Pass-77", "login", "correct horse", "passwd extra", "a", "b", "c", "list"])
        #expect(!outcome.errors.contains("Secret-Pass-77"))
        #expect(
            outcome.errorLines.first
                == "giftkeeper: error: 'login' takes no arguments: the password is asked for after it (in a script, on the next line), never typed on the command line."
        )
        #expect(outcome.errorLines.count == 2, "\(outcome)")
        #expect(outcome.outputLines.contains("No presents yet. Add one with: add <recipient> <title> [--price 25]"))
    }

    @Test("Help lists every command from the one registry; 'help add' and 'add --help' agree")
    func help() throws {
        let transcript = try Transcript()
        let outcome = try transcript.run(["help", "help add", "add --help", "help nope"])
        #expect(outcome.outputLines.first == "Commands (type 'help <command>' for details):")
        for type in ShellCommands.all {
            #expect(outcome.outputLines.contains { $0.hasPrefix("  " + type.names.joined(separator: ", ") + " ") }, "\(type)")
        }
        let addHelp = outcome.output.components(separatedBy: "OVERVIEW: Add a present (status 'idea').")
        #expect(addHelp.count == 3, "help add and add --help both print the command's help")
        #expect(addHelp[1] == addHelp[2].prefix(addHelp[1].count))
        #expect(outcome.errorLines == ["giftkeeper: error: Unknown command 'nope'. Type 'help' to see the commands."])
    }

    @Test("Completion reads the registry and the list: commands, ids in order, recipients, statuses, fields")
    func completion() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn((1...11).map { "add \($0 % 2 == 0 ? "mum" : "Dad") Thing\($0)" })
        let session = try transcript.session()
        try session.service.open(access: .readWrite)
        let secret = try SecureBytes(capacity: 13, count: 0)
        for byte in "correct horse".utf8 { secret.append(byte) }
        try session.service.login(password: secret)
        func complete(_ words: [String]) -> [String] {
            session.completions(for: CompletionRequest(line: words.joined(separator: " ") + " ", precedingWords: words, word: ""))
        }
        #expect(session.completions(for: CompletionRequest(line: "", precedingWords: [], word: "")) == ShellCommands.names.sorted())
        #expect(complete(["show"]) == (1...11).map { "p\($0)" })
        #expect(complete(["mark", "p1"]) == ["idea", "bought", "wrapped", "given"])
        #expect(complete(["add"]) == ["Dad", "mum"])
        #expect(complete(["list", "--status"]) == ["idea", "bought", "wrapped", "given"])
        #expect(complete(["edit", "p2"]) == ["title=", "recipient=", "notes=", "price=", "occasion=", "url=", "store="])
        #expect(complete(["help"]) == ShellCommands.names.sorted())
        try session.service.close()
    }

    @Test("A typed price has a maximum, said in the error; totals add up exactly")
    func priceMaximumAndTotals() throws {
        let transcript = try Transcript()
        let outcome = try transcript.signedIn([
            "add Mum Yacht --price 1000000000.01", "add Mum Island --price 1000000000", "add Mum Castle --price 1000000000",
            "list",
        ])
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: '1000000000.01' is not a price: it is over the largest price, 1000000000.00. Type an amount such as 25, 25.50 or 25,50."
            ], "\(outcome)")
        #expect(outcome.outputLines.contains("2 presents, total 2000000000.00 (2 idea)"), "\(outcome)")
    }
}

/// "Did you mean": the name a typo most likely meant, on a terminal (a script never repeats
/// a line that is no command: it may be a password).
@Suite struct DidYouMeanTests {
    @Test(arguments: [
        ("lst", "list"), ("lsit", "list"), ("histroy", "history"), ("hist", "history"), ("SHOW", "show"), ("upcomming", "upcoming"),
        ("budgt", "budget"), ("ocasion", "occasion"), ("qiut", "quit"), ("rmeove", "remove"),
    ])
    func aTypoNamesTheCommand(typed: String, meant: String) {
        #expect(ShellCommands.closestName(to: typed) == meant)
    }

    @Test func somethingElseNamesNothing() {
        for typed in ["x", "zz", "password123", "correct horse", "🎁"] {
            #expect(ShellCommands.closestName(to: typed) == nil, "\(typed)")
        }
    }
}
