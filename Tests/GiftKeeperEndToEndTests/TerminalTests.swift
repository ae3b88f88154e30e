import Foundation
import Glibc
import Testing

/// A private tmux server (its own socket), for driving the REPL on a real terminal.
final class Tmux {
    let executable: String
    let socket: String
    private let environment: [String: String]

    /// A server on a socket of its own, named `prefix`-pid-random.
    init(prefix: String = "gk-e2e") throws {
        socket = "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        executable = try #require(
            findOnPath("tmux"),
            "tmux is not installed: the terminal tests need it ('make test' installs it; or apt-get install tmux)")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TMUX")
        environment["LANG"] = "C.UTF-8"
        self.environment = environment
    }

    deinit {
        _ = try? command(["kill-server"])
    }

    @discardableResult
    func command(_ arguments: [String]) throws -> Outcome {
        try runProgram(executable, ["-u", "-L", socket, "-f", "/dev/null"] + arguments, environment: environment, timeout: 15)
    }

    /// Starts `shellCommand` in a detached 120×40 session; the pane stays on screen 10 minutes
    /// after the command ends, printing its exit code as `GK-EXIT=<n>`.
    func start(session: String, _ shellCommand: String) throws {
        let outcome = try command([
            "new-session", "-d", "-s", session, "-x", "120", "-y", "40",
            "\(shellCommand); echo GK-EXIT=$?; sleep 600",
        ])
        try #require(outcome.status == 0, "tmux new-session failed: \(outcome)")
    }

    /// Types `text` literally (no key names).
    func type(_ session: String, _ text: String) throws {
        try command(["send-keys", "-t", session, "-l", text])
    }

    /// Types `text`, then Enter.
    func enter(_ session: String, _ text: String) throws {
        try type(session, text)
        try press(session, "Enter")
    }

    /// Presses keys by tmux name: Enter, Tab, C-c, C-d.
    func press(_ session: String, _ keys: String...) throws {
        try command(["send-keys", "-t", session] + keys)
    }

    /// The pane's whole text, scrollback included.
    func screen(_ session: String) throws -> String {
        try command(["capture-pane", "-p", "-J", "-S", "-", "-t", session]).stdout
    }

    /// The last non-blank line of the pane (where the cursor's prompt is), without trailing blanks.
    func currentLine(_ session: String) throws -> String {
        guard let line = try screen(session).split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) })
        else { return "" }
        return String(line.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// Polls the pane until `predicate` holds; fails the test with the screen after `timeout`.
    @discardableResult
    func waitFor(
        _ session: String, _ what: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline {
            text = try screen(session)
            if predicate(text) { return text }
            usleep(50_000)
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(text)", sourceLocation: sourceLocation)
        throw SpawnError(message: "timed out waiting for \(what)")
    }

    @discardableResult
    func waitFor(_ session: String, text: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitFor(session, "'\(text)'", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Waits until the cursor's line is exactly `line`: a bare prompt (wait for it before
    /// typing: keys typed before the program reads again would be echoed twice, by the
    /// terminal and by readline), or a prompt and what Tab completed there.
    func waitForLine(_ session: String, _ line: String = "giftkeeper>", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try waitFor(session, "the line '\(line)'", sourceLocation: sourceLocation) { _ in
            (try? self.currentLine(session)) == line
        }
    }

    /// Types `typed`, presses Tab and waits until the cursor's line is `completed`.
    func complete(_ session: String, _ typed: String, to completed: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if !typed.isEmpty { try type(session, typed) }
        try press(session, "Tab")
        try waitForLine(session, completed, sourceLocation: sourceLocation)
    }

    /// Runs `action`, then waits for one more `text` on the pane than there was before it: text
    /// already on screen from earlier (an earlier prompt, an earlier message) does not count.
    @discardableResult
    func waitForAnother(
        _ session: String, text: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        after action: () throws -> Void
    ) throws -> String {
        let before = try screen(session).occurrences(of: text)
        try action()
        return try waitFor(session, "another '\(text)' (there were \(before))", timeout: timeout, sourceLocation: sourceLocation) {
            $0.occurrences(of: text) > before
        }
    }
}

extension String {
    func occurrences(of text: String) -> Int {
        components(separatedBy: text).count - 1
    }
}

@Suite("Terminal (tmux)")
struct TerminalTests {
    @Test("setup without echo, tab completion, history (Up, Ctrl-R, no passwords), Ctrl-C, Ctrl-D, the password asked at start, echo restored")
    func interactiveSession() throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        let journal = sandbox.journal
        let launch = Self.launch(sandbox)

        // A new journal: setup, the password typed twice and never shown.
        try tmux.start(session: "first", launch)
        try tmux.waitFor("first", text: "giftkeeper (new)> ")
        try tmux.enter("first", "setup \(Secrets.name) --kdf interactive")
        try tmux.waitFor("first", text: "New password:")
        try tmux.enter("first", Secrets.password)
        try tmux.waitFor("first", text: "Repeat the password:")
        try tmux.enter("first", Secrets.password)
        var screen = try tmux.waitFor("first", text: "🔓 Signed in as \(Secrets.name)")
        try tmux.waitFor("first", text: "Journal created at \(journal)")
        try tmux.waitForLine("first")
        #expect(!screen.contains(Secrets.password), "the password was echoed:\n\(screen)")

        try tmux.enter("first", "add \(Secrets.recipient) \(Secrets.title)")
        try tmux.waitFor("first", text: "Saved p1:")
        try tmux.waitForLine("first")

        // Tab completion: a command name, then a present id.
        try tmux.type("first", "ma")
        try tmux.press("first", "Tab")
        try tmux.waitForLine("first", "giftkeeper> mark")
        try tmux.type("first", "p")
        try tmux.press("first", "Tab")
        try tmux.waitForLine("first", "giftkeeper> mark p1")
        try tmux.enter("first", " bought")
        try tmux.waitFor("first", text: "Saved p1: marked bought.")
        try tmux.waitForLine("first")
        // Recipients complete whatever the case typed.
        try tmux.type("first", "list aunt")
        try tmux.press("first", "Tab")
        try tmux.waitForLine("first", "giftkeeper> list \(Secrets.recipient)")
        try tmux.press("first", "C-c")
        try tmux.waitForLine("first")

        // Ctrl-C drops a half-typed line; the session goes on.
        try tmux.type("first", "add Dad Half-typed-line")
        try tmux.waitFor("first", text: "Half-typed-line")
        try tmux.press("first", "C-c")
        try tmux.waitForLine("first", "giftkeeper>")
        try tmux.enter("first", "list")
        screen = try tmux.waitFor("first", text: "1 present, total 0.00")
        #expect(!screen.contains("Saved p2"), "the interrupted line was run:\n\(screen)")
        #expect(!screen.contains("GK-EXIT="), "Ctrl-C ended the session:\n\(screen)")
        try tmux.waitForLine("first")

        // Signing out forgets the session's history: Up at the locked prompt gives back
        // nothing typed while signed in. A word that is no command (a password typed at
        // the wrong prompt) never enters the history at all.
        try tmux.enter("first", "signout")
        try tmux.waitForLine("first", "giftkeeper (signed out)>")
        try tmux.waitForAnother("first", text: "Type 'help' to see the commands.") {
            try tmux.enter("first", "Typed-At-The-Wrong-Prompt")
        }
        try tmux.waitForLine("first", "giftkeeper (signed out)>")
        try tmux.press("first", "Up")
        usleep(300_000)
        #expect((try? tmux.currentLine("first")) == "giftkeeper (signed out)>", "Up recalled a line after signout")

        // Ctrl-D leaves.
        try tmux.press("first", "C-d")
        screen = try tmux.waitFor("first", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // A later session on the same journal asks for the password at once.
        try tmux.start(session: "second", launch)
        try tmux.waitFor("second", text: "(signed out).")
        try tmux.waitFor("second", text: "Password:")
        try tmux.enter("second", Secrets.password)
        screen = try tmux.waitFor("second", text: "🔓 Signed in as \(Secrets.name)")
        #expect(!screen.contains(Secrets.password), "the password was echoed:\n\(screen)")
        try tmux.waitForLine("second")
        try tmux.enter("second", "list")
        try tmux.waitFor("second", text: "1 present, total 0.00")
        try tmux.waitForLine("second")
        // In-session history: Up recalls the last line; Ctrl-R finds one by a few letters.
        try tmux.press("second", "Up")
        try tmux.waitForLine("second", "giftkeeper> list")
        try tmux.press("second", "C-c")
        try tmux.waitForLine("second")
        try tmux.press("second", "C-r")
        try tmux.type("second", "lis")
        try tmux.waitFor("second", "Ctrl-R finds 'list'") { _ in
            (try? tmux.currentLine("second"))?.hasSuffix("`lis': list") == true
        }
        try tmux.waitForAnother("second", text: "1 present, total 0.00") {
            try tmux.press("second", "Enter")
        }
        try tmux.waitForLine("second")
        try tmux.enter("second", "quit")
        screen = try tmux.waitFor("second", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // Ctrl-C at a password prompt cancels that prompt, not the program: at start-up it
        // leaves the session locked at its prompt; inside a session it cancels the command.
        try tmux.start(session: "third", launch)
        try tmux.waitFor("third", text: "Password:")
        try tmux.type("third", "abc")
        try tmux.press("third", "C-c")
        screen = try tmux.waitFor("third", text: "giftkeeper (signed out)>")
        try tmux.waitForLine("third", "giftkeeper (signed out)>")
        #expect(screen.contains("Cancelled."), "\(screen)")
        #expect(!screen.contains("abc"), "the cancelled password was echoed:\n\(screen)")
        // The start-up "Password:" is still on screen: wait for the new prompt before typing;
        // keys typed ahead of a password prompt are shown by the terminal and then dropped.
        try tmux.waitForAnother("third", text: "Password:") {
            try tmux.enter("third", "login")
        }
        // Backspace edits the hidden line: a typo fixed before Enter still signs in.
        try tmux.type("third", Secrets.password + "x")
        try tmux.press("third", "BSpace")
        try tmux.press("third", "Enter")
        try tmux.waitFor("third", text: "🔓 Signed in as \(Secrets.name)")
        try tmux.waitForLine("third")
        // Password lines never enter the history: the line Up recalls is 'login', not the
        // password typed after it.
        try tmux.press("third", "Up")
        try tmux.waitForLine("third", "giftkeeper> login")
        try tmux.press("third", "C-c")
        try tmux.waitForLine("third")
        // passwd checks the current password before asking for a new one.
        try tmux.enter("third", "passwd")
        try tmux.waitFor("third", text: "Current password:")
        try tmux.enter("third", "not-the-password")
        screen = try tmux.waitFor("third", text: "Wrong password")
        #expect(!screen.contains("New password:"), "a new password was asked for first:\n\(screen)")
        try tmux.waitForLine("third")
        try tmux.waitForAnother("third", text: "Current password:") {
            try tmux.enter("third", "passwd")
        }
        try tmux.waitForAnother("third", text: "Cancelled.") {
            try tmux.press("third", "C-c")
        }
        try tmux.waitForLine("third")
        try tmux.enter("third", "quit")
        screen = try tmux.waitFor("third", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        // Echo is back on after the program left.
        try tmux.type("third", "typed-after-exit")
        try tmux.waitFor("third", text: "typed-after-exit")

        // Readline kept its history in memory only.
        #expect(Secrets.historyFiles(in: sandbox) == [])
        #expect(Secrets.leaks(in: sandbox) == [])
        #expect(try sandbox.verifies())
    }

    /// Ctrl-C while a command runs cancels it and the session goes on: here during the
    /// wait after failed logins, before the password is checked (nothing is recorded).
    @Test("Ctrl-C during the wait after failed logins cancels the login, not the session")
    func interruptDuringTheWait() throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try sandbox.createJournal(presents: ["Mum Hat"])
        // Three failures cost nothing; after four the next try waits 2 s (SPEC §1).
        let failures = try sandbox.script(["login", "wrong-1", "login", "wrong-2", "login", "wrong-3", "login", "wrong-4"])
        #expect(failures.status == 3, "\(failures)")

        try tmux.start(session: "wait", Self.launch(sandbox))
        try tmux.waitFor("wait", text: "Password:")
        try tmux.enter("wait", "wrong-5")
        try tmux.waitFor("wait", text: "Waiting 2 s before checking the password (keys typed now are dropped)")
        try tmux.press("wait", "C-c")
        var screen = try tmux.waitFor("wait", text: "Cancelled.")
        try tmux.waitForLine("wait", "giftkeeper (signed out)>")
        #expect(!screen.contains("GK-EXIT="), "Ctrl-C ended the session:\n\(screen)")
        try tmux.enter("wait", "quit")
        screen = try tmux.waitFor("wait", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // The cancelled attempt was never checked, so it was not recorded.
        let audit = try sandbox.audits()
        #expect(audit.stdoutLines.filter { $0.contains("loginFailed") }.count == 4, "\(audit)")

        // Keys typed while the password is checked (a password typed again in impatience)
        // are not shown, and do not run as a command once signed in.
        try tmux.start(session: "ahead", Self.launch(sandbox))
        try tmux.waitFor("ahead", text: "Password:")
        try tmux.enter("ahead", "secret-pw")
        try tmux.waitFor("ahead", text: "Waiting 2 s before checking")
        // The wait counts down on its line (SPEC §1).
        try tmux.waitFor("ahead", text: "Waiting 1 s before checking")
        try tmux.enter("ahead", "typed-ahead-secret")
        try tmux.waitFor("ahead", text: "🔓 Signed in as Alice")
        try tmux.waitForLine("ahead")
        try tmux.enter("ahead", "list")
        screen = try tmux.waitFor("ahead", text: "1 present, total 0.00")
        #expect(!screen.contains("typed-ahead-secret"), "typed-ahead keys were shown or run:\n\(screen)")
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
        try tmux.waitForLine("ahead")
        try tmux.enter("ahead", "quit")
        try tmux.waitFor("ahead", text: "GK-EXIT=0")
    }

    /// Completion writes recipients as the shell's quoting reads them back: a name with a
    /// space after a backslash-escaped start, a name with an apostrophe in double quotes.
    @Test("Tab completion of recipients with spaces and apostrophes gives lines that parse")
    func completionQuoting() throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try sandbox.createJournal(presents: [#""Uncle Bob" Kite"#, #""O'Brien Family" Tea"#])
        try tmux.start(session: "quote", Self.launch(sandbox))
        try tmux.waitFor("quote", text: "Password:")
        try tmux.enter("quote", "secret-pw")
        try tmux.waitForLine("quote")
        try tmux.type("quote", #"list Uncle\ B"#)
        try tmux.press("quote", "Tab")
        try tmux.waitForLine("quote", "giftkeeper> list 'Uncle Bob'")
        try tmux.press("quote", "Enter")
        try tmux.waitFor("quote", text: "1 present")
        try tmux.waitForLine("quote")
        try tmux.type("quote", "list o")
        try tmux.press("quote", "Tab")
        try tmux.waitForLine("quote", #"giftkeeper> list "O'Brien Family""#)
        let screen = try tmux.waitForAnother("quote", text: "1 present") {
            try tmux.press("quote", "Enter")
        }
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
    }

    /// Planning on a terminal: occasions complete after `--occasion` and `occasion remove`,
    /// and `summary` draws its chart in Unicode blocks on a UTF-8 terminal.
    @Test("Completion of occasions, and the summary's bar chart on a UTF-8 terminal")
    func planningOnATerminal() throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try sandbox.createJournal(presents: [#"Mum Scarf --price 30 --occasion "Christmas 2026""#, "Dad Pen --price 10"])
        let occasions = try sandbox.script(["login", "secret-pw", #"occasion add "Christmas 2026" --date 2026-12-24"#, "mark p2 bought"])
        #expect(occasions.status == 0, "\(occasions)")
        try tmux.start(session: "plan", Self.launch(sandbox))
        try tmux.waitFor("plan", text: "Password:")
        try tmux.enter("plan", "secret-pw")
        try tmux.waitForLine("plan")
        try tmux.type("plan", "list --occasion Chr")
        try tmux.press("plan", "Tab")
        try tmux.waitForLine("plan", "giftkeeper> list --occasion 'Christmas 2026'")
        try tmux.press("plan", "Enter")
        try tmux.waitFor("plan", text: "1 present, total 30.00")
        try tmux.waitForLine("plan")
        let screen = try tmux.waitForAnother("plan", text: "2 presents for 2 people") {
            try tmux.enter("plan", "summary")
        }
        #expect(screen.contains("Mum               1    30.00   0.00       -  ░░░░░░░░░░░░░░░░░░░░"), "\(screen)")
        #expect(screen.contains("Dad               1     0.00  10.00       -  ███████"), "\(screen)")
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
        // A typo at the prompt names the command it most likely meant.
        try tmux.waitForLine("plan")
        try tmux.enter("plan", "lst")
        _ = try tmux.waitFor("plan", text: "Unknown command 'lst'. Did you mean 'list'? Type 'help' to see the commands.")
    }

    /// The shell on the sandbox's journal, as a person starts it.
    static func launch(_ sandbox: Sandbox) -> String {
        "env -u GIFTKEEPER_JOURNAL HOME='\(sandbox.home)' XDG_STATE_HOME='\(sandbox.state)' "
            + "XDG_DATA_HOME='\(sandbox.data)' LANG=C.UTF-8 '\(sandbox.binary)' --journal '\(sandbox.journal)'"
    }
}
