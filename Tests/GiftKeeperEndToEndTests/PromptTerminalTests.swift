import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// The shell on a real terminal, in an interactive bash with job control (Ctrl-Z and `fg`
/// need one): the prompts that ask for missing arguments, suspending and resuming, and the
/// sign-out after an idle time.
@Suite("Prompts, Ctrl-Z and idle sign-out (tmux)", .programSlot)
struct PromptTerminalTests {
    /// An interactive bash in the pane, its prompt `gk-shell$`, with the giftkeeper command
    /// typed at it; returns when the shell asks for the password.
    static func startInBash(_ tmux: Tmux, _ session: String, _ sandbox: Sandbox, options: String = "") async throws {
        try await tmux.start(session: session, "env PS1='gk-shell$ ' HISTFILE=/dev/null bash --norc --noprofile -i")
        try await tmux.waitForLine(session, "gk-shell$")
        try await tmux.enter(session, TerminalTests.launch(sandbox) + options)
        try await tmux.waitFor(session, text: "Password:")
    }

    @Test("Ctrl-Z then fg: the prompt is redrawn with the half-typed line, Enter runs it, Tab and arrows work; the password prompt stays hidden")
    func suspendAndResume() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat", "Dad Pen"])
        let tmux = try Tmux(prefix: "gk-cli")
        try await Self.startInBash(tmux, "job", sandbox)
        try await tmux.enter("job", "secret-pw")
        try await tmux.waitForLine("job")

        // Half a line typed, then Ctrl-Z: bash has the terminal back.
        try await tmux.type("job", "list Mum")
        try await tmux.waitForLine("job", "giftkeeper> list Mum")
        try await tmux.press("job", "C-z")
        try await tmux.waitFor("job", text: "Stopped")
        try await tmux.waitForLine("job", "gk-shell$")
        // bash echoes what is typed at its own prompt: the terminal was given back.
        try await tmux.type("job", "fg")
        try await tmux.waitForLine("job", "gk-shell$ fg")
        try await tmux.press("job", "Enter")
        // fg: the prompt and the half-typed line are drawn again, and Enter runs that line.
        try await tmux.waitForLine("job", "giftkeeper> list Mum")
        var screen = try await tmux.waitForAnother("job", text: "1 present, total 0.00") {
            try await tmux.press("job", "Enter")
        }
        #expect(screen.contains("p1  Mum"), "\(screen)")
        try await tmux.waitForLine("job")
        // Tab completes and Up recalls, nothing echoed raw.
        try await tmux.complete("job", "ma", to: "giftkeeper> mark")
        try await tmux.press("job", "C-u")
        try await tmux.waitForLine("job")
        try await tmux.press("job", "Up")
        try await tmux.waitForLine("job", "giftkeeper> list Mum")
        try await tmux.press("job", "C-u")
        try await tmux.waitForLine("job")

        // Ctrl-Z twice more, at a bare prompt, and the shell still works after each fg.
        for _ in 0..<2 {
            try await tmux.waitForAnother("job", text: "Stopped") { try await tmux.press("job", "C-z") }
            try await tmux.waitForLine("job", "gk-shell$")
            try await tmux.enter("job", "fg")
            try await tmux.waitForLine("job")
        }
        screen = try await tmux.waitForAnother("job", text: "2 presents, total 0.00") { try await tmux.enter("job", "list") }
        try await tmux.waitForLine("job")

        // At the password prompt: Ctrl-Z, fg, and what is typed next is still not shown.
        try await tmux.enter("job", "signout")
        try await tmux.waitForLine("job", "giftkeeper (signed out)>")
        try await tmux.waitForAnother("job", text: "Password:") { try await tmux.enter("job", "login") }
        try await tmux.waitForAnother("job", text: "Stopped") { try await tmux.press("job", "C-z") }
        try await tmux.waitForLine("job", "gk-shell$")
        try await tmux.waitForAnother("job", text: "Password:") { try await tmux.enter("job", "fg") }
        try await tmux.type("job", "secret-pw")
        try await Task.sleep(for: .milliseconds(200))
        try await tmux.press("job", "Enter")
        screen = try await tmux.waitFor("job", text: "🔓 Signed in as Alice")
        #expect(!screen.contains("secret-pw"), "the password was echoed after fg:\n\(screen)")
        try await tmux.waitForLine("job")
        try await tmux.enter("job", "quit")
        try await tmux.waitFor("job", text: "🔒 Signed out")
        try await tmux.waitForLine("job", "gk-shell$")
        // bash's own line editing is back as it was.
        try await tmux.type("job", "echo typed-after")
        try await tmux.waitForLine("job", "gk-shell$ echo typed-after")
        #expect(try await sandbox.verifies())
    }

    @Test("Prompts for missing arguments complete like the command line; the add wizard offers the optional fields; Ctrl-C cancels")
    func argumentPrompts() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [#"Mum Scarf --occasion "Christmas 2026""#, "Dad Pen"])
        let tmux = try Tmux(prefix: "gk-cli")
        try await tmux.start(session: "ask", TerminalTests.launch(sandbox))
        try await tmux.waitFor("ask", text: "Password:")
        try await tmux.enter("ask", "secret-pw")
        try await tmux.waitForLine("ask")

        // mark alone asks for the id, then the status; Tab completes each. An id the list
        // does not hold is said, and asked again.
        try await tmux.enter("ask", "mark")
        try await tmux.waitForLine("ask", "Present id:")
        try await tmux.enter("ask", "p99")
        try await tmux.waitFor("ask", text: "giftkeeper: error: No present 'p99'. Type 'list' to see ids.")
        try await tmux.waitForLine("ask", "Present id:")
        try await tmux.complete("ask", "", to: "Present id: p")
        try await tmux.type("ask", "2")
        try await tmux.press("ask", "Enter")
        try await tmux.waitForLine("ask", "Status (idea, bought, wrapped, given):")
        try await tmux.complete("ask", "wr", to: "Status (idea, bought, wrapped, given): wrapped")
        try await tmux.press("ask", "Enter")
        try await tmux.waitFor("ask", text: "Saved p2: marked wrapped.")
        try await tmux.waitForLine("ask")

        // add alone: who (completed as typed, no quotes), what, then the optional fields.
        try await tmux.enter("ask", "add")
        try await tmux.waitForLine("ask", "Recipient:")
        try await tmux.complete("ask", "mu", to: "Recipient: Mum")
        try await tmux.press("ask", "Enter")
        try await tmux.waitForLine("ask", "Title:")
        try await tmux.enter("ask", "Blue hat")
        try await tmux.waitForLine("ask", "Price (Enter skips):")
        // A wrong price is said, and asked again.
        try await tmux.enter("ask", "cheap")
        try await tmux.waitFor("ask", text: "giftkeeper: error:")
        try await tmux.waitForLine("ask", "Price (Enter skips):")
        try await tmux.enter("ask", "12.50")
        try await tmux.waitForLine("ask", "Occasion (Enter skips):")
        try await tmux.complete("ask", "chr", to: "Occasion (Enter skips): Christmas 2026")
        try await tmux.press("ask", "Enter")
        for label in ["Notes (Enter skips):", "URL (Enter skips):", "Store (Enter skips):"] {
            try await tmux.waitForLine("ask", label)
            try await tmux.press("ask", "Enter")
        }
        try await tmux.waitFor("ask", text: #"Saved p3: "Blue hat" for Mum."#)
        try await tmux.waitForLine("ask")
        var screen = try await tmux.waitForAnother("ask", text: "updated  ") { try await tmux.enter("ask", "show p3") }
        #expect(screen.contains("price      12.50"), "\(screen)")
        #expect(screen.contains("occasion   Christmas 2026"), "\(screen)")
        try await tmux.waitForLine("ask")

        // Ctrl-C at a prompt cancels the command: back at the main prompt, nothing added.
        try await tmux.enter("ask", "add")
        try await tmux.waitForLine("ask", "Recipient:")
        try await tmux.type("ask", "Zed")
        try await tmux.waitForAnother("ask", text: "Cancelled.") { try await tmux.press("ask", "C-c") }
        try await tmux.waitForLine("ask")
        screen = try await tmux.waitForAnother("ask", text: "3 presents") { try await tmux.enter("ask", "list") }
        #expect(!screen.contains("Zed  "), "\(screen)")
        try await tmux.waitForLine("ask")
        // The answers never entered the history: Up gives back the command lines only.
        for line in ["list", "add", "show p3", "add", "mark"] {
            try await tmux.press("ask", "Up")
            try await tmux.waitForLine("ask", "giftkeeper> " + line)
        }
        try await tmux.press("ask", "C-c")
        try await tmux.waitForLine("ask")

        // A new occasion that looks like a typo of a known one: asked, Enter takes the known one.
        try await tmux.enter("ask", #"add Dad Tie --occasion "Chrismas 2026""#)
        try await tmux.waitFor("ask", text: "'Chrismas 2026' is a new occasion. Did you mean 'Christmas 2026'?")
        try await tmux.waitForLine("ask", "Use 'Christmas 2026' instead? [Y/n]:")
        try await tmux.press("ask", "Enter")
        try await tmux.waitFor("ask", text: #"Saved p4: "Tie" for Dad."#)
        try await tmux.waitForLine("ask")
        // 'n' keeps the new name.
        try await tmux.enter("ask", #"add Dad Socks --occasion "Chrismas 2026""#)
        try await tmux.waitForLine("ask", "Use 'Christmas 2026' instead? [Y/n]:")
        try await tmux.enter("ask", "n")
        try await tmux.waitFor("ask", text: #"Saved p5: "Socks" for Dad."#)
        try await tmux.waitForLine("ask")
        screen = try await tmux.waitForAnother("ask", text: "5 presents") { try await tmux.enter("ask", "list --sort occasion") }
        let rows = screen.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix("p4") && $0.contains("Tie") && $0.contains("Christmas 2026") }, "\(screen)")
        #expect(rows.contains { $0.hasPrefix("p5") && $0.contains("Socks") && $0.contains("Chrismas 2026") }, "\(screen)")
        try await tmux.waitForLine("ask")
        try await tmux.enter("ask", "quit")
        try await tmux.waitFor("ask", text: "GK-EXIT=0")
        #expect(try await sandbox.verifies())
    }

    @Test("occasion close on a terminal asks whether the open ideas carry over; 'n' keeps them without the occasion")
    func closingAsks() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        // An idea added on 2020-01-02 for a yearly occasion of 1 January: its day has passed since.
        let document = sandbox.home + "/ideas.json"
        try writeNewFile(
            Array(
                #"""
                {"format":"giftkeeper.export.v2","presents":[{"id":"p1","recipient":"Mum","title":"Hat","notes":"","price":null,
                "occasion":"New year","url":"","store":"","status":"idea","createdAt":"2020-01-02T09:00:00.000Z",
                "updatedAt":"2020-01-02T09:00:00.000Z","givenAt":null}],
                "occasions":[{"name":"New year","date":"2000-01-01","yearly":true}],"budgets":[],"account":{"currency":null,"name":"Alice"}}
                """#.utf8), to: document)
        let imported = try await sandbox.run(["import", document, "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(imported.status == 0, "\(imported)")
        let tmux = try Tmux(prefix: "gk-cli")
        try await tmux.start(session: "close", TerminalTests.launch(sandbox))
        try await tmux.waitFor("close", text: "Password:")
        try await tmux.enter("close", "secret-pw")
        try await tmux.waitForLine("close")
        try await tmux.enter("close", #"occasion close "new year""#)
        let screen = try await tmux.waitFor("close", text: "[Y/n]:")
        #expect(screen.contains("Carry the open idea over to"), "\(screen)")
        try await tmux.enter("close", "n")
        let closed = try await tmux.waitFor("close", text: "kept without an occasion (p1).")
        #expect(closed.contains(#"Closed "New year" for "#), "\(closed)")
        try await tmux.waitForLine("close")
        try await tmux.enter("close", "quit")
        try await tmux.waitFor("close", text: "GK-EXIT=0")
    }

    @Test("--lock-after: the shell waiting at the prompt signs out by itself, the half-typed line dropped, and can sign in again")
    func idleSignOut() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let tmux = try Tmux(prefix: "gk-cli")
        // 0.05 minutes: 3 s.
        try await tmux.start(session: "idle", TerminalTests.launch(sandbox) + " --lock-after 0.05")
        try await tmux.waitFor("idle", text: "Password:")
        try await tmux.enter("idle", "secret-pw")
        try await tmux.waitForLine("idle")
        // Activity keeps it signed in: a command, then half a line typed and left.
        try await tmux.enter("idle", "list")
        try await tmux.waitFor("idle", text: "1 present")
        try await tmux.waitForLine("idle")
        try await tmux.type("idle", "list Mum")
        var screen = try await tmux.waitFor("idle", text: "🔒 Signed out (idle)", timeout: 20)
        try await tmux.waitForLine("idle", "giftkeeper (signed out)>")
        #expect(!screen.contains("giftkeeper> list Mum"), "the half-typed line stayed:\n\(screen)")
        #expect(!screen.contains("GK-EXIT="), "\(screen)")
        // Signed out, nothing of the session comes back with Up.
        try await tmux.press("idle", "Up")
        try await Task.sleep(for: .milliseconds(300))
        #expect((try? await tmux.currentLine("idle")) == "giftkeeper (signed out)>", "Up recalled a line after the idle sign-out")
        // A command that needs the list offers to sign in, then runs.
        screen = try await tmux.waitForAnother("idle", text: "Password:") { try await tmux.enter("idle", "list") }
        #expect(screen.contains("You are signed out. Sign in to run 'list' (Ctrl-C cancels)."), "\(screen)")
        screen = try await tmux.waitForAnother("idle", text: "1 present") { try await tmux.enter("idle", "secret-pw") }
        #expect(screen.contains("🔓 Signed in as Alice"), "\(screen)")
        try await tmux.waitForLine("idle")
        try await tmux.enter("idle", "quit")
        screen = try await tmux.waitFor("idle", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        // Recorded as a sign-out like any other: the setup session's, the idle one, the quit.
        let audit = try await sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(audit.stdoutLines.filter { $0.contains("signedOut") }.count >= 3, "\(audit)")
    }

    @Test("--lock-after that is not a number of minutes: one line, exit 2, nothing opened")
    func badLockAfter() async throws {
        let sandbox = try Sandbox()
        for (value, words) in [
            ("abc", "takes a number of minutes"), ("-5", "cannot be negative"), ("1e3", "takes a number of minutes"),
            ("", "takes a number of minutes"), ("999999999", "at most 525600"),
        ] {
            let outcome = try await sandbox.run(["--journal", sandbox.journal, "--lock-after", value], input: "quit\n")
            #expect(outcome.status == 2, "\(value): \(outcome)")
            #expect(outcome.stderrLines.count == 1, "\(value): \(outcome)")
            #expect(outcome.stderr.contains(words), "\(value): \(outcome)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.journal))
        }
    }
}
