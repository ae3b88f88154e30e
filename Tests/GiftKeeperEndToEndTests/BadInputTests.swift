import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// One bad command line of SPEC §7, typed into a script session.
struct BadLine: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    /// A fragment of the one error line it must produce.
    let message: String
    /// Typed while signed in (else while locked).
    let signedIn: Bool
    /// The script's exit code: 2 (usage) unless said otherwise.
    let exitCode: Int32
    /// The answer lines the script gives after the command (passwords, prompted arguments):
    /// the failed command must use them up, so none is run as a command or shown.
    let answers: [String]

    init(
        _ name: String, _ line: String, _ message: String, signedIn: Bool = true, exitCode: Int32 = 2,
        answers: [String] = []
    ) {
        self.init(name, Array(line.utf8), message, signedIn: signedIn, exitCode: exitCode, answers: answers)
    }

    init(
        _ name: String, _ bytes: [UInt8], _ message: String, signedIn: Bool = true, exitCode: Int32 = 2,
        answers: [String] = []
    ) {
        self.name = name
        self.bytes = bytes
        self.message = message
        self.signedIn = signedIn
        self.exitCode = exitCode
        self.answers = answers
    }

    var testDescription: String { name }

    static let all: [BadLine] = [
        BadLine("empty title", #"add Mum """#, "The title cannot be empty"),
        BadLine("whitespace-only title", #"add Mum "   ""#, "The title cannot be empty"),
        BadLine("empty recipient", #"add "" Book"#, "The recipient cannot be empty"),
        BadLine("whitespace-only recipient", #"add "  " Book"#, "The recipient cannot be empty"),
        BadLine("title edited to empty", "edit p1 title=", "The title cannot be empty"),
        BadLine("title over 1,000 characters", "add Mum " + String(repeating: "x", count: 1001), "the limit is 1000"),
        BadLine("line over 64 KiB", "add Mum " + String(repeating: "y", count: 70_000), "64 KiB"),
        BadLine("invalid UTF-8", Array("add Mum ".utf8) + [0xFF, 0xFE, 0xC3], "not valid UTF-8"),
        BadLine("negative price", "add Mum Scarf --price -5", "'-5' is not a price"),
        BadLine("negative price (=)", "add Mum Scarf --price=-5", "'-5' is not a price"),
        BadLine("letters as price", "add Mum Scarf --price abc", "'abc' is not a price"),
        BadLine("three decimals", "add Mum Scarf --price 1.234", "'1.234' is not a price"),
        BadLine("exponent price", "add Mum Scarf --price 1e3", "'1e3' is not a price"),
        BadLine("negative price in edit", "edit p1 price=-1", "'-1' is not a price"),
        BadLine("unknown command", "frobnicate now", "Line 3 is not a command"),
        BadLine("unknown option", "add Mum Scarf --colour red", "Unknown option '--colour'"),
        BadLine("unknown id (show)", "show p9", "'p9'"),
        BadLine("unknown id (edit)", "edit p9 title=Hat", "'p9'"),
        BadLine("unknown id (mark)", "mark p9 bought", "'p9'"),
        BadLine("unknown id (remove)", "remove p9", "'p9'"),
        BadLine("not an id", "show banana", "'banana' is not a present id"),
        BadLine("unknown field", "edit p1 colour=red", "Unknown field 'colour'"),
        BadLine("edit without field=value", "edit p1 red", "Expected field=value, not 'red'"),
        BadLine("unknown status (mark)", "mark p1 lost", "Unknown status 'lost'"),
        BadLine("unknown status (list)", "list --status lost", "Unknown status 'lost'"),
        BadLine("history --last 0", "history --last 0", "'--last 0' must be 1 or more"),
        BadLine("history --last -1", "history --last -1", "'--last -1' must be 1 or more"),
        BadLine("history --last abc", "history --last abc", "'abc' is invalid"),
        BadLine("help for an unknown command", "help frob", "Unknown command 'frob'"),
        BadLine(
            "import of a missing file", "import /nonexistent/giftkeeper-e2e.json", "Could not open '/nonexistent/giftkeeper-e2e.json'", exitCode: 5),
        BadLine(
            "setup on an existing journal", "setup Bob --kdf interactive", "A journal already exists", signedIn: false,
            answers: ["Pw-Answer-1", "Pw-Answer-1"]),
        BadLine(
            "setup without a name on an existing journal", "setup", "A journal already exists", signedIn: false,
            answers: ["Bob", "Pw-Answer-1", "Pw-Answer-1"]),
        BadLine(
            "setup with a bad --kdf", "setup Bob --kdf ultra", "'ultra'", signedIn: false,
            answers: ["Pw-Answer-1", "Pw-Answer-1"]),
        BadLine("login while signed in", "login", "You are already signed in", answers: ["Pw-Answer-1"]),
        BadLine(
            "a password on the command line", "login Pw-Answer-2", "never typed on the command line",
            signedIn: false, answers: ["Pw-Answer-1"]),
        BadLine(
            "add with prompted answers while locked", "add", "You are signed out. Type 'login' first.",
            signedIn: false, answers: ["Answer-Recipient", "Answer-Title"]),
        BadLine(
            "a bad option, and the answer the command would have asked for", "add Mum --bogus", "Unknown option '--bogus'",
            answers: ["Answer-Title"]),
        BadLine("setup while signed in", "setup Bob", "you are signed in to it", answers: ["Pw-Answer-1", "Pw-Answer-1"]),
        BadLine(
            "passwd with an empty current password", "passwd", "The password is empty",
            answers: ["", "Pw-Answer-2", "Pw-Answer-2"]),
        BadLine("list while locked", "list", "You are signed out. Type 'login' first.", signedIn: false),
        BadLine("add while locked", "add Dad Hat", "You are signed out. Type 'login' first.", signedIn: false),
        BadLine("show while locked", "show p1", "You are signed out. Type 'login' first.", signedIn: false),
        BadLine("history while locked", "history", "You are signed out. Type 'login' first.", signedIn: false),
        BadLine("export while locked", "export", "You are signed out. Type 'login' first.", signedIn: false),
        BadLine(
            "passwd while locked", "passwd", "You are signed out. Type 'login' first.", signedIn: false,
            answers: ["Pw-Answer-1", "Pw-Answer-2", "Pw-Answer-2"]),
    ]
}

/// SPEC §7: every bad input gets one clear `giftkeeper: error:` line, the session goes on,
/// nothing is lost, and the script's exit code says something failed.
@Suite("Bad input", .programSlot)
struct BadInputTests {
    @Test("a bad command line", arguments: BadLine.all)
    func badLine(_ bad: BadLine) async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Keep --price 5"])
        let newline: [UInt8] = [0x0A]
        let login = Array("login\nsecret-pw\n".utf8)
        var script = bad.signedIn ? login : []
        script += bad.bytes + newline
        for answer in bad.answers { script += Array(answer.utf8) + newline }
        if !bad.signedIn { script += login }
        script += Array("add Dad After\nlist\nquit\n".utf8)
        let outcome = try await sandbox.run(["--journal", sandbox.journal], bytes: script)

        #expect(outcome.status == bad.exitCode, "\(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains(bad.message) == true, "\(outcome)")
        for answer in bad.answers + ["Pw-Answer-2"] {
            #expect(!outcome.stdout.contains(answer) && !outcome.stderr.contains(answer), "\(answer) was shown: \(outcome)")
        }
        // The session went on: the later commands ran, and nothing was lost.
        #expect(outcome.stdout.contains(#"Saved p2: "After" for Dad."#), "\(outcome)")
        #expect(outcome.stdoutLines.contains { $0.hasPrefix("p1") && $0.contains("Keep") && $0.contains("5.00") })
        #expect(outcome.stdout.contains("2 presents, total 5.00"), "\(outcome)")
        #expect(try await sandbox.verifies())
    }

    @Test("empty and whitespace-only names at setup", arguments: [#"setup "" --kdf interactive"#, #"setup "   " --kdf interactive"#])
    func emptyName(_ line: String) async throws {
        let sandbox = try Sandbox()
        // The name is checked before any password is asked for; the script's password lines
        // for the failed setup are used up all the same, not run as commands.
        let outcome = try await sandbox.script(
            [line, "Pw-Answer-1", "Pw-Answer-1", "setup Alice --kdf interactive", "secret-pw", "secret-pw", "add Mum Hat", "quit"])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.stderrLines == ["giftkeeper: error: The name cannot be empty. Type a name with at least one visible character."], "\(outcome)")
        #expect(outcome.notifications.contains("🔓 Signed in as Alice"))
        #expect(outcome.stdout.contains(#"Saved p1: "Hat" for Mum."#))
        #expect(try await sandbox.verifies())
    }

    @Test("A new password under 8 characters is refused at setup and passwd (one line, exit 2, nothing changed); old journals open as before")
    func shortPassword() async throws {
        let sandbox = try Sandbox()
        let setup = try await sandbox.script(["setup Alice --kdf interactive", "short", "short", "quit"])
        #expect(setup.status == 2, "\(setup)")
        #expect(
            setup.errorLines == [
                "giftkeeper: error: That password is too short: a new password has at least 8 characters. Nothing was changed; try a longer one, such as a few words."
            ], "\(setup)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal), "no journal was created")
        #expect(!setup.stdout.contains("short") && !setup.stderr.contains("short\n"), "the password is not shown: \(setup)")

        try await sandbox.createJournal(presents: ["Mum Hat"])
        let passwd = try await sandbox.script(["login", "secret-pw", "passwd", "secret-pw", "1234567", "1234567", "quit"])
        #expect(passwd.status == 2, "\(passwd)")
        #expect(passwd.errorLines.count == 1 && passwd.errorLines[0].contains("too short"), "\(passwd)")
        #expect(try await sandbox.audits().status == 0, "the old password still opens it")
        // Eight characters, counted as characters: four of them two bytes each.
        let accented = try await sandbox.script(["login", "secret-pw", "passwd", "secret-pw", "ééééèèèè", "ééééèèèè", "quit"])
        #expect(accented.status == 0, "\(accented)")
        #expect(try await sandbox.audits(password: "ééééèèèè").status == 0)
    }

    @Test("a wrong password: exit 3, recorded, and a retry works")
    func wrongPassword() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Keep"])
        let outcome = try await sandbox.script(["login", "not-the-password", "login", "secret-pw", "list", "quit"])
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.stderrLines == ["giftkeeper: error: Wrong password. The attempt was recorded; try again."], "\(outcome)")
        #expect(outcome.notifications.contains("⚠️  Failed sign-in recorded."), "the first three failures cost nothing")
        #expect(outcome.notifications.contains("🔓 Signed in as Alice (1 failed attempt reported since your last visit)"))
        #expect(outcome.stdoutLines.contains { $0.hasPrefix("p1") && $0.contains("Keep") })
        let audit = try await sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(audit.stdout.contains("loginFailed"))
        #expect(
            audit.stdoutLines.last { !$0.isEmpty } == "OK: 11 frames verified; 1 failed login reported"
                || audit.stdout.contains("1 failed login reported"), "\(audit)")
    }
}

/// SPEC §7's bad journals: the program refuses them with one line and the right exit code,
/// and leaves the file exactly as it was.
@Suite("Bad journals", .programSlot)
struct BadJournalTests {
    /// Runs a REPL on `journal` and checks a one-line refusal with `code`.
    private func expectRefusal(
        _ sandbox: Sandbox, journal: String, code: Int32, message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = fileBytes(journal)
        let outcome = try await sandbox.script(["login", "secret-pw", "list"], journal: journal)
        #expect(outcome.status == code, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stderrLines.count == 1, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.errorLines.first?.contains(message) == true, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stdout.isEmpty, "\(outcome)", sourceLocation: sourceLocation)
        #expect(fileBytes(journal) == before, "the refused journal was changed", sourceLocation: sourceLocation)
    }

    @Test("a journal path that is a directory: exit 4")
    func directory() async throws {
        let sandbox = try Sandbox()
        try await expectRefusal(sandbox, journal: sandbox.home, code: 4, message: "is a directory")
    }

    @Test("an empty --journal is a usage error; a path through a file says to check the path")
    func impossiblePaths() async throws {
        let sandbox = try Sandbox()
        let empty = try await sandbox.run(["--journal", ""], input: "list\n")
        #expect(empty.status == 2, "\(empty)")
        #expect(empty.errorLines.count == 1 && empty.errorLines.first?.contains("--journal needs a path") == true, "\(empty)")

        let file = sandbox.root + "/plain-file"
        try writeNewFile(Array("not a directory".utf8), to: file)
        let through = try await sandbox.script(["setup Alice --kdf interactive", "secret-pw", "secret-pw"], journal: file + "/gifts.journal")
        #expect(through.status == 5, "\(through)")
        #expect(through.errorLines.count == 1, "\(through)")
        #expect(through.errorLines.first?.contains("Check the path") == true, "\(through)")
        #expect(fileBytes(file) == Array("not a directory".utf8))
        let verify = try await sandbox.run(["verify", "--journal", file + "/gifts.journal"])
        #expect(verify.status == 4, "\(verify)")
        #expect(verify.errorLines.first?.contains("No journal at") == true, "\(verify)")
    }

    @Test("a file that is not a GiftKeeper journal: exit 4")
    func notAJournal() async throws {
        let sandbox = try Sandbox()
        let path = sandbox.root + "/notes.txt"
        try writeNewFile(Array(String(repeating: "Dear diary, nothing to see here.\n", count: 8).utf8), to: path)
        try await expectRefusal(sandbox, journal: path, code: 4, message: "is not a GiftKeeper journal")
        let empty = sandbox.root + "/empty.journal"
        try writeNewFile([], to: empty)
        try await expectRefusal(sandbox, journal: empty, code: 4, message: "is not a GiftKeeper journal")
    }

    @Test("a journal of a newer format version: exit 4, upgrade")
    func newerVersion() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Keep"])
        let newer = sandbox.root + "/newer.journal"
        var bytes = try #require(fileBytes(sandbox.journal))
        bytes[8] = 4  // version 3 is a household's journal
        bytes[9] = 0
        let hash = try await blake2b256(Array(bytes[0..<28]))
        bytes.replaceSubrange(28..<60, with: hash)
        try writeNewFile(bytes, to: newer)
        try await expectRefusal(sandbox, journal: newer, code: 4, message: "has newer format version 4. Upgrade giftkeeper")
        let verify = try await sandbox.run(["verify", "--journal", newer])
        #expect(verify.status == 4, "\(verify)")
        #expect(verify.errorLines.first?.contains("newer format version 4") == true, "\(verify)")
    }

    @Test("a group-readable journal: exit 4 and how to fix it")
    func groupReadable() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Keep"])
        chmod(sandbox.journal, 0o640)
        try await expectRefusal(sandbox, journal: sandbox.journal, code: 4, message: "To fix it, run: chmod 600 '\(sandbox.journal)'")
        chmod(sandbox.journal, 0o600)
        let fixed = try await sandbox.script(["login", "secret-pw", "list"])
        #expect(fixed.status == 0, "\(fixed)")
        #expect(fixed.stdoutLines.contains { $0.hasPrefix("p1") && $0.contains("Keep") })
    }

    // SPEC §2: a journal that exists but cannot be read is "unreadable", exit 4.
    @Test("an unreadable journal (chmod 000): exit 4", .enabled(if: !runningAsRoot, "root reads a file whatever its mode"))
    func unreadable() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Keep"])
        chmod(sandbox.journal, 0o000)
        let outcome = try await sandbox.script(["login", "secret-pw", "list"])
        chmod(sandbox.journal, 0o600)
        #expect(outcome.status == 4, "\(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("permission denied") == true, "\(outcome)")
        #expect(try await sandbox.verifies())
    }

    @Test(
        "a new journal in a read-only directory: one line, the session goes on",
        .enabled(if: !runningAsRoot, "root writes a directory whatever its mode"))
    func readOnlyDirectory() async throws {
        let sandbox = try Sandbox()
        let directory = sandbox.root + "/readonly"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o500)
        defer { chmod(directory, 0o700) }
        let outcome = try await sandbox.script(
            ["setup Alice --kdf interactive", "secret-pw", "secret-pw", "help quit"], journal: directory + "/gifts.journal")
        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("permission denied") == true, "\(outcome)")
        #expect(outcome.stdout.contains("OVERVIEW: Sign out and leave"), "\(outcome)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true)
    }

    @Test("a new journal where nothing can be created, even by root (/proc): exit 5, the session goes on")
    func uncreatable() async throws {
        let sandbox = try Sandbox()
        let outcome = try await sandbox.script(
            ["setup Alice --kdf interactive", "secret-pw", "secret-pw", "help quit"], journal: "/proc/giftkeeper-e2e/gifts.journal")
        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(outcome)")
        // It names the directory that could not be made.
        #expect(outcome.errorLines.first?.contains("'/proc/giftkeeper-e2e'") == true, "\(outcome)")
        #expect(outcome.stdout.contains("OVERVIEW: Sign out and leave"), "\(outcome)")
    }
}

/// BLAKE2b-256 of `bytes`, by coreutils' `b2sum` (the tests do not link GiftKeeperCrypto).
func blake2b256(_ bytes: [UInt8]) async throws -> [UInt8] {
    let b2sum = try #require(findOnPath("b2sum"), "b2sum (coreutils) is needed to recompute a header hash")
    let outcome = try await runProgram(b2sum, ["--length=256", "-"], input: bytes)
    #expect(outcome.status == 0, "\(outcome)")
    let hex = Array(outcome.stdout.utf8.prefix(64))
    guard hex.count == 64, outcome.stdout.dropFirst(64).hasPrefix(" ") else { throw TestSupportError("b2sum gave '\(outcome.stdout)'") }
    return stride(from: 0, to: 64, by: 2).map { UInt8(String(decoding: hex[$0..<($0 + 2)], as: UTF8.self), radix: 16) ?? 0 }
}
