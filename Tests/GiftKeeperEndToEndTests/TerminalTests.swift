import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// A private tmux server (its own socket), for driving the REPL on a real terminal. tmux
/// itself runs through `runProgram` like every other program the tests start.
final class Tmux {
    let executable: String
    let socket: String
    private let environment: [String: String]
    /// The server's process, once a session started it; sent SIGTERM when the tests are done.
    private var server: pid_t?

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
        // A signal, not `tmux kill-server`: a deinit cannot wait for a program.
        if let server { kill(server, SIGTERM) }
    }

    @discardableResult
    func command(_ arguments: [String]) async throws -> Outcome {
        try await runProgram(executable, ["-u", "-L", socket, "-f", "/dev/null"] + arguments, environment: environment, timeout: .seconds(15))
    }

    /// Starts `shellCommand` in a detached 120×40 session; the pane stays on screen 10 minutes
    /// after the command ends, printing its exit code as `GK-EXIT=<n>`.
    func start(session: String, _ shellCommand: String) async throws {
        let outcome = try await command([
            "new-session", "-d", "-s", session, "-x", "120", "-y", "40",
            "\(shellCommand); echo GK-EXIT=$?; sleep 600",
        ])
        try #require(outcome.status == 0, "tmux new-session failed: \(outcome)")
        if server == nil {
            let pid = try await command(["display-message", "-p", "#{pid}"])
            server = pid_t(pid.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Types `text` literally (no key names).
    func type(_ session: String, _ text: String) async throws {
        try await command(["send-keys", "-t", session, "-l", text])
    }

    /// Types `text`, then Enter.
    func enter(_ session: String, _ text: String) async throws {
        try await type(session, text)
        try await press(session, "Enter")
    }

    /// Presses keys by tmux name: Enter, Tab, C-c, C-d.
    func press(_ session: String, _ keys: String...) async throws {
        try await command(["send-keys", "-t", session] + keys)
    }

    /// The pane's whole text, scrollback included.
    func screen(_ session: String) async throws -> String {
        try await command(["capture-pane", "-p", "-J", "-S", "-", "-t", session]).stdout
    }

    /// The last non-blank line of the pane (where the cursor's prompt is), without trailing blanks.
    func currentLine(_ session: String) async throws -> String {
        Self.lastLine(of: try await screen(session))
    }

    /// The last non-blank line of `screen`, without trailing blanks.
    static func lastLine(of screen: String) -> String {
        guard let line = screen.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        return String(line.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// Polls the pane until `predicate` holds; fails the test with the screen after `timeout`.
    @discardableResult
    func waitFor(
        _ session: String, _ what: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: (String) -> Bool
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline {
            text = try await screen(session)
            if predicate(text) { return text }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(text)", sourceLocation: sourceLocation)
        throw TestSupportError("timed out waiting for \(what)")
    }

    @discardableResult
    func waitFor(_ session: String, text: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        try await waitFor(session, "'\(text)'", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// Waits until the cursor's line is exactly `line`: a bare prompt (wait for it before
    /// typing: keys typed before the program reads again would be echoed twice, by the
    /// terminal and by readline), or a prompt and what Tab completed there.
    func waitForLine(_ session: String, _ line: String = "giftkeeper>", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitFor(session, "the line '\(line)'", sourceLocation: sourceLocation) { Self.lastLine(of: $0) == line }
    }

    /// Types `typed`, presses Tab and waits until the cursor's line is `completed`.
    func complete(_ session: String, _ typed: String, to completed: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if !typed.isEmpty { try await type(session, typed) }
        try await press(session, "Tab")
        try await waitForLine(session, completed, sourceLocation: sourceLocation)
    }

    /// Runs `action`, then waits for one more `text` on the pane than there was before it: text
    /// already on screen from earlier (an earlier prompt, an earlier message) does not count.
    @discardableResult
    func waitForAnother(
        _ session: String, text: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
        after action: () async throws -> Void
    ) async throws -> String {
        let before = try await screen(session).occurrences(of: text)
        try await action()
        return try await waitFor(session, "another '\(text)' (there were \(before))", timeout: timeout, sourceLocation: sourceLocation) {
            $0.occurrences(of: text) > before
        }
    }
}

extension String {
    func occurrences(of text: String) -> Int {
        components(separatedBy: text).count - 1
    }
}

@Suite("Terminal (tmux)", .programSlot)
struct TerminalTests {
    @Test("setup without echo, tab completion, history (Up, Ctrl-R, no passwords), Ctrl-C, Ctrl-D, the password asked at start, echo restored")
    func interactiveSession() async throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        let journal = sandbox.journal
        let launch = Self.launch(sandbox)

        // A new journal: setup, the password typed twice and never shown.
        try await tmux.start(session: "first", launch)
        try await tmux.waitFor("first", text: "giftkeeper (new)> ")
        try await tmux.enter("first", "setup \(Secrets.name) --kdf interactive")
        try await tmux.waitFor("first", text: "New password:")
        try await tmux.enter("first", Secrets.password)
        try await tmux.waitFor("first", text: "Repeat the password:")
        try await tmux.enter("first", Secrets.password)
        var screen = try await tmux.waitFor("first", text: "🔓 Signed in as \(Secrets.name)")
        try await tmux.waitFor("first", text: "Journal created at \(journal)")
        try await tmux.waitForLine("first")
        #expect(!screen.contains(Secrets.password), "the password was echoed:\n\(screen)")

        try await tmux.enter("first", "add \(Secrets.recipient) \(Secrets.title)")
        try await tmux.waitFor("first", text: "Saved p1:")
        try await tmux.waitForLine("first")

        // Tab completion: a command name, then a present id.
        try await tmux.type("first", "ma")
        try await tmux.press("first", "Tab")
        try await tmux.waitForLine("first", "giftkeeper> mark")
        try await tmux.type("first", "p")
        try await tmux.press("first", "Tab")
        try await tmux.waitForLine("first", "giftkeeper> mark p1")
        try await tmux.enter("first", " bought")
        try await tmux.waitFor("first", text: "Saved p1: marked bought.")
        try await tmux.waitForLine("first")
        // Recipients complete whatever the case typed.
        try await tmux.type("first", "list aunt")
        try await tmux.press("first", "Tab")
        try await tmux.waitForLine("first", "giftkeeper> list \(Secrets.recipient)")
        try await tmux.press("first", "C-c")
        try await tmux.waitForLine("first")

        // Ctrl-C drops a half-typed line; the session goes on.
        try await tmux.type("first", "add Dad Half-typed-line")
        try await tmux.waitFor("first", text: "Half-typed-line")
        try await tmux.press("first", "C-c")
        try await tmux.waitForLine("first", "giftkeeper>")
        try await tmux.enter("first", "list")
        screen = try await tmux.waitFor("first", text: "1 present, total 0.00")
        #expect(!screen.contains("Saved p2"), "the interrupted line was run:\n\(screen)")
        #expect(!screen.contains("GK-EXIT="), "Ctrl-C ended the session:\n\(screen)")
        try await tmux.waitForLine("first")

        // Signing out forgets the session's history: Up at the locked prompt gives back
        // nothing typed while signed in. A word that is no command (a password typed at
        // the wrong prompt) never enters the history at all.
        try await tmux.enter("first", "signout")
        try await tmux.waitForLine("first", "giftkeeper (signed out)>")
        try await tmux.waitForAnother("first", text: "Type 'help' to see the commands.") {
            try await tmux.enter("first", "Typed-At-The-Wrong-Prompt")
        }
        try await tmux.waitForLine("first", "giftkeeper (signed out)>")
        try await tmux.press("first", "Up")
        try await Task.sleep(for: .milliseconds(300))
        #expect((try? await tmux.currentLine("first")) == "giftkeeper (signed out)>", "Up recalled a line after signout")

        // Ctrl-D leaves.
        try await tmux.press("first", "C-d")
        screen = try await tmux.waitFor("first", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // A later session on the same journal asks for the password at once.
        try await tmux.start(session: "second", launch)
        try await tmux.waitFor("second", text: "(signed out).")
        try await tmux.waitFor("second", text: "Password:")
        try await tmux.enter("second", Secrets.password)
        screen = try await tmux.waitFor("second", text: "🔓 Signed in as \(Secrets.name)")
        #expect(!screen.contains(Secrets.password), "the password was echoed:\n\(screen)")
        try await tmux.waitForLine("second")
        try await tmux.enter("second", "list")
        try await tmux.waitFor("second", text: "1 present, total 0.00")
        try await tmux.waitForLine("second")
        // In-session history: Up recalls the last line; Ctrl-R finds one by a few letters.
        try await tmux.press("second", "Up")
        try await tmux.waitForLine("second", "giftkeeper> list")
        try await tmux.press("second", "C-c")
        try await tmux.waitForLine("second")
        try await tmux.press("second", "C-r")
        try await tmux.type("second", "lis")
        try await tmux.waitFor("second", "Ctrl-R finds 'list'") { screen in
            Tmux.lastLine(of: screen).hasSuffix("`lis': list")
        }
        try await tmux.waitForAnother("second", text: "1 present, total 0.00") {
            try await tmux.press("second", "Enter")
        }
        try await tmux.waitForLine("second")
        try await tmux.enter("second", "quit")
        screen = try await tmux.waitFor("second", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // Ctrl-C at a password prompt cancels that prompt, not the program: at start-up it
        // leaves the session locked at its prompt; inside a session it cancels the command.
        try await tmux.start(session: "third", launch)
        try await tmux.waitFor("third", text: "Password:")
        try await tmux.type("third", "abc")
        try await tmux.press("third", "C-c")
        screen = try await tmux.waitFor("third", text: "giftkeeper (signed out)>")
        try await tmux.waitForLine("third", "giftkeeper (signed out)>")
        #expect(screen.contains("Cancelled."), "\(screen)")
        #expect(!screen.contains("abc"), "the cancelled password was echoed:\n\(screen)")
        // The start-up "Password:" is still on screen: wait for the new prompt before typing;
        // keys typed ahead of a password prompt are shown by the terminal and then dropped.
        try await tmux.waitForAnother("third", text: "Password:") {
            try await tmux.enter("third", "login")
        }
        // Backspace edits the hidden line: a typo fixed before Enter still signs in.
        try await tmux.type("third", Secrets.password + "x")
        try await tmux.press("third", "BSpace")
        try await tmux.press("third", "Enter")
        try await tmux.waitFor("third", text: "🔓 Signed in as \(Secrets.name)")
        try await tmux.waitForLine("third")
        // Password lines never enter the history: the line Up recalls is 'login', not the
        // password typed after it.
        try await tmux.press("third", "Up")
        try await tmux.waitForLine("third", "giftkeeper> login")
        try await tmux.press("third", "C-c")
        try await tmux.waitForLine("third")
        // passwd checks the current password before asking for a new one.
        try await tmux.enter("third", "passwd")
        try await tmux.waitFor("third", text: "Current password:")
        try await tmux.enter("third", "not-the-password")
        screen = try await tmux.waitFor("third", text: "Wrong password")
        #expect(!screen.contains("New password:"), "a new password was asked for first:\n\(screen)")
        try await tmux.waitForLine("third")
        try await tmux.waitForAnother("third", text: "Current password:") {
            try await tmux.enter("third", "passwd")
        }
        try await tmux.waitForAnother("third", text: "Cancelled.") {
            try await tmux.press("third", "C-c")
        }
        try await tmux.waitForLine("third")
        try await tmux.enter("third", "quit")
        screen = try await tmux.waitFor("third", text: "GK-EXIT=")
        #expect(screen.contains("🔒 Signed out"), "\(screen)")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        // Echo is back on after the program left.
        try await tmux.type("third", "typed-after-exit")
        try await tmux.waitFor("third", text: "typed-after-exit")

        // Readline kept its history in memory only.
        #expect(Secrets.historyFiles(in: sandbox) == [])
        #expect(Secrets.leaks(in: sandbox) == [])
        #expect(try await sandbox.verifies())
    }

    /// Ctrl-C while a command runs cancels it and the session goes on: here during the
    /// wait after failed logins, before the password is checked (nothing is recorded).
    @Test("Ctrl-C during the wait after failed logins cancels the login, not the session")
    func interruptDuringTheWait() async throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        // Three failures cost nothing; after four the next try waits 2 s (SPEC §1).
        let failures = try await sandbox.script(["login", "wrong-1", "login", "wrong-2", "login", "wrong-3", "login", "wrong-4"])
        #expect(failures.status == 3, "\(failures)")

        try await tmux.start(session: "wait", Self.launch(sandbox))
        try await tmux.waitFor("wait", text: "Password:")
        try await tmux.enter("wait", "wrong-5")
        try await tmux.waitFor("wait", text: "Waiting 2 s before checking the password (keys typed now are dropped)")
        try await tmux.press("wait", "C-c")
        var screen = try await tmux.waitFor("wait", text: "Cancelled.")
        try await tmux.waitForLine("wait", "giftkeeper (signed out)>")
        #expect(!screen.contains("GK-EXIT="), "Ctrl-C ended the session:\n\(screen)")
        try await tmux.enter("wait", "quit")
        screen = try await tmux.waitFor("wait", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")

        // The cancelled attempt was never checked, so it was not recorded.
        let audit = try await sandbox.audits()
        #expect(audit.stdoutLines.filter { $0.contains("loginFailed") }.count == 4, "\(audit)")

        // Keys typed while the password is checked (a password typed again in impatience)
        // are not shown, and do not run as a command once signed in.
        try await tmux.start(session: "ahead", Self.launch(sandbox))
        try await tmux.waitFor("ahead", text: "Password:")
        try await tmux.enter("ahead", "secret-pw")
        try await tmux.waitFor("ahead", text: "Waiting 2 s before checking")
        // The wait counts down on its line (SPEC §1).
        try await tmux.waitFor("ahead", text: "Waiting 1 s before checking")
        try await tmux.enter("ahead", "typed-ahead-secret")
        try await tmux.waitFor("ahead", text: "🔓 Signed in as Alice")
        try await tmux.waitForLine("ahead")
        try await tmux.enter("ahead", "list")
        screen = try await tmux.waitFor("ahead", text: "1 present, total 0.00")
        #expect(!screen.contains("typed-ahead-secret"), "typed-ahead keys were shown or run:\n\(screen)")
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
        try await tmux.waitForLine("ahead")
        try await tmux.enter("ahead", "quit")
        try await tmux.waitFor("ahead", text: "GK-EXIT=0")
    }

    /// Completion writes recipients as the shell's quoting reads them back: a name with a
    /// space after a backslash-escaped start, a name with an apostrophe in double quotes.
    @Test("Tab completion of recipients with spaces and apostrophes gives lines that parse")
    func completionQuoting() async throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try await sandbox.createJournal(presents: [#""Uncle Bob" Kite"#, #""O'Brien Family" Tea"#])
        try await tmux.start(session: "quote", Self.launch(sandbox))
        try await tmux.waitFor("quote", text: "Password:")
        try await tmux.enter("quote", "secret-pw")
        try await tmux.waitForLine("quote")
        try await tmux.type("quote", #"list Uncle\ B"#)
        try await tmux.press("quote", "Tab")
        try await tmux.waitForLine("quote", "giftkeeper> list 'Uncle Bob'")
        try await tmux.press("quote", "Enter")
        try await tmux.waitFor("quote", text: "1 present")
        try await tmux.waitForLine("quote")
        try await tmux.type("quote", "list o")
        try await tmux.press("quote", "Tab")
        try await tmux.waitForLine("quote", #"giftkeeper> list "O'Brien Family""#)
        let screen = try await tmux.waitForAnother("quote", text: "1 present") {
            try await tmux.press("quote", "Enter")
        }
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
    }

    /// Planning on a terminal: occasions complete after `--occasion` and `occasion remove`,
    /// and `summary` draws its chart in Unicode blocks on a UTF-8 terminal.
    @Test("Completion of occasions, and the summary's bar chart on a UTF-8 terminal")
    func planningOnATerminal() async throws {
        let sandbox = try Sandbox()
        let tmux = try Tmux()
        try await sandbox.createJournal(presents: [#"Mum Scarf --price 30 --occasion "Christmas 2026""#, "Dad Pen --price 10"])
        let occasions = try await sandbox.script(["login", "secret-pw", #"occasion add "Christmas 2026" --date 2026-12-24"#, "mark p2 bought"])
        #expect(occasions.status == 0, "\(occasions)")
        try await tmux.start(session: "plan", Self.launch(sandbox))
        try await tmux.waitFor("plan", text: "Password:")
        try await tmux.enter("plan", "secret-pw")
        try await tmux.waitForLine("plan")
        try await tmux.type("plan", "list --occasion Chr")
        try await tmux.press("plan", "Tab")
        try await tmux.waitForLine("plan", "giftkeeper> list --occasion 'Christmas 2026'")
        try await tmux.press("plan", "Enter")
        try await tmux.waitFor("plan", text: "1 present, total 30.00")
        try await tmux.waitForLine("plan")
        let screen = try await tmux.waitForAnother("plan", text: "2 presents for 2 people") {
            try await tmux.enter("plan", "summary")
        }
        #expect(screen.contains("Mum               1    30.00   0.00       -  ░░░░░░░░░░░░░░░░░░░░"), "\(screen)")
        #expect(screen.contains("Dad               1     0.00  10.00       -  ███████"), "\(screen)")
        #expect(!screen.contains("giftkeeper: error:"), "\(screen)")
        // A typo at the prompt names the command it most likely meant.
        try await tmux.waitForLine("plan")
        try await tmux.enter("plan", "lst")
        _ = try await tmux.waitFor("plan", text: "Unknown command 'lst'. Did you mean 'list'? Type 'help' to see the commands.")
    }

    /// The shell on the sandbox's journal, as a person starts it.
    static func launch(_ sandbox: Sandbox) -> String {
        "env -u GIFTKEEPER_JOURNAL HOME='\(sandbox.home)' XDG_STATE_HOME='\(sandbox.state)' "
            + "XDG_DATA_HOME='\(sandbox.data)' LANG=C.UTF-8 '\(sandbox.binary)' --journal '\(sandbox.journal)'"
    }
}
