import Foundation
import Glibc
import Testing

/// The shell on a real terminal, in an interactive bash with job control (Ctrl-Z and `fg`
/// need one): the prompts that ask for missing arguments, suspending and resuming, and the
/// sign-out after an idle time.
@Suite("Prompts, Ctrl-Z and idle sign-out (tmux)")
struct PromptTerminalTests {
    /// An interactive bash in the pane, its prompt `gk-shell$`, with the giftkeeper command
    /// typed at it; returns when the shell asks for the password.
    static func startInBash(_ tmux: Tmux, _ session: String, _ sandbox: Sandbox, options: String = "") throws {
        try tmux.start(session: session, "env PS1='gk-shell$ ' HISTFILE=/dev/null bash --norc --noprofile -i")
        try tmux.waitForLine(session, "gk-shell$")
        try tmux.enter(session, TerminalTests.launch(sandbox) + options)
        try tmux.waitFor(session, text: "Password:")
    }

    @Test("Ctrl-Z then fg: the prompt is redrawn with the half-typed line, Enter runs it, Tab and arrows work; the password prompt stays hidden")
    func suspendAndResume() throws {
        let sandbox = try Sandbox()
        try sandbox.createJournal(presents: ["Mum Hat", "Dad Pen"])
        let tmux = try Tmux(prefix: "gk-cli")
        try Self.startInBash(tmux, "job", sandbox)
        try tmux.enter("job", "secret-pw")
        try tmux.waitForLine("job")

        // Half a line typed, then Ctrl-Z: bash has the terminal back.
        try tmux.type("job", "list Mum")
        try tmux.waitForLine("job", "giftkeeper> list Mum")
        try tmux.press("job", "C-z")
        try tmux.waitFor("job", text: "Stopped")
        try tmux.waitForLine("job", "gk-shell$")
        // bash echoes what is typed at its own prompt: the terminal was given back.
        try tmux.type("job", "fg")
        try tmux.waitForLine("job", "gk-shell$ fg")
        try tmux.press("job", "Enter")
        // fg: the prompt and the half-typed line are drawn again, and Enter runs that line.
        try tmux.waitForLine("job", "giftkeeper> list Mum")
        var screen = try tmux.waitForAnother("job", text: "1 present, total 0.00") {
            try tmux.press("job", "Enter")
        }
        #expect(screen.contains("p1  Mum"), "\(screen)")
        try tmux.waitForLine("job")
        // Tab completes and Up recalls, nothing echoed raw.
        try tmux.complete("job", "ma", to: "giftkeeper> mark")
        try tmux.press("job", "C-u")
        try tmux.waitForLine("job")
        try tmux.press("job", "Up")
        try tmux.waitForLine("job", "giftkeeper> list Mum")
        try tmux.press("job", "C-u")
        try tmux.waitForLine("job")

        // Ctrl-Z twice more, at a bare prompt, and the shell still works after each fg.
        for _ in 0..<2 {
            try tmux.waitForAnother("job", text: "Stopped") { try tmux.press("job", "C-z") }
            try tmux.waitForLine("job", "gk-shell$")
            try tmux.enter("job", "fg")
            try tmux.waitForLine("job")
        }
        screen = try tmux.waitForAnother("job", text: "2 presents, total 0.00") { try tmux.enter("job", "list") }
        try tmux.waitForLine("job")

        // At the password prompt: Ctrl-Z, fg, and what is typed next is still not shown.
        try tmux.enter("job", "signout")
        try tmux.waitForLine("job", "giftkeeper (signed out)>")
        try tmux.waitForAnother("job", text: "Password:") { try tmux.enter("job", "login") }
        try tmux.waitForAnother("job", text: "Stopped") { try tmux.press("job", "C-z") }
        try tmux.waitForLine("job", "gk-shell$")
        try tmux.waitForAnother("job", text: "Password:") { try tmux.enter("job", "fg") }
        try tmux.type("job", "secret-pw")
        usleep(200_000)
        try tmux.press("job", "Enter")
        screen = try tmux.waitFor("job", text: "🔓 Signed in as Alice")
        #expect(!screen.contains("secret-pw"), "the password was echoed after fg:\n\(screen)")
        try tmux.waitForLine("job")
        try tmux.enter("job", "quit")
        try tmux.waitFor("job", text: "🔒 Signed out")
        try tmux.waitForLine("job", "gk-shell$")
        // bash's own line editing is back as it was.
        try tmux.type("job", "echo typed-after")
        try tmux.waitForLine("job", "gk-shell$ echo typed-after")
        #expect(try sandbox.verifies())
    }

    @Test("Prompts for missing arguments complete like the command line; the add wizard offers the optional fields; Ctrl-C cancels")
    func argumentPrompts() throws {
        let sandbox = try Sandbox()
        try sandbox.createJournal(presents: [#"Mum Scarf --occasion "Christmas 2026""#, "Dad Pen"])
        let tmux = try Tmux(prefix: "gk-cli")
        try tmux.start(session: "ask", TerminalTests.launch(sandbox))
        try tmux.waitFor("ask", text: "Password:")
        try tmux.enter("ask", "secret-pw")
        try tmux.waitForLine("ask")

        // mark alone asks for the id, then the status; Tab completes each.
        try tmux.enter("ask", "mark")
        try tmux.waitForLine("ask", "Present id:")
        try tmux.complete("ask", "", to: "Present id: p")
        try tmux.type("ask", "2")
        try tmux.press("ask", "Enter")
        try tmux.waitForLine("ask", "Status (idea, bought, wrapped, given):")
        try tmux.complete("ask", "wr", to: "Status (idea, bought, wrapped, given): wrapped")
        try tmux.press("ask", "Enter")
        try tmux.waitFor("ask", text: "Saved p2: marked wrapped.")
        try tmux.waitForLine("ask")

        // add alone: who (completed as typed, no quotes), what, then the optional fields.
        try tmux.enter("ask", "add")
        try tmux.waitForLine("ask", "Recipient:")
        try tmux.complete("ask", "mu", to: "Recipient: Mum")
        try tmux.press("ask", "Enter")
        try tmux.waitForLine("ask", "Title:")
        try tmux.enter("ask", "Blue hat")
        try tmux.waitForLine("ask", "Price (Enter skips):")
        // A wrong price is said, and asked again.
        try tmux.enter("ask", "cheap")
        try tmux.waitFor("ask", text: "giftkeeper: error:")
        try tmux.waitForLine("ask", "Price (Enter skips):")
        try tmux.enter("ask", "12.50")
        try tmux.waitForLine("ask", "Occasion (Enter skips):")
        try tmux.complete("ask", "chr", to: "Occasion (Enter skips): Christmas 2026")
        try tmux.press("ask", "Enter")
        for label in ["Notes (Enter skips):", "URL (Enter skips):", "Store (Enter skips):"] {
            try tmux.waitForLine("ask", label)
            try tmux.press("ask", "Enter")
        }
        try tmux.waitFor("ask", text: #"Saved p3: "Blue hat" for Mum."#)
        try tmux.waitForLine("ask")
        var screen = try tmux.waitForAnother("ask", text: "updated  ") { try tmux.enter("ask", "show p3") }
        #expect(screen.contains("price      12.50"), "\(screen)")
        #expect(screen.contains("occasion   Christmas 2026"), "\(screen)")
        try tmux.waitForLine("ask")

        // Ctrl-C at a prompt cancels the command: back at the main prompt, nothing added.
        try tmux.enter("ask", "add")
        try tmux.waitForLine("ask", "Recipient:")
        try tmux.type("ask", "Zed")
        try tmux.waitForAnother("ask", text: "Cancelled.") { try tmux.press("ask", "C-c") }
        try tmux.waitForLine("ask")
        screen = try tmux.waitForAnother("ask", text: "3 presents") { try tmux.enter("ask", "list") }
        #expect(!screen.contains("Zed  "), "\(screen)")
        try tmux.waitForLine("ask")
        // The answers never entered the history: Up gives back the command lines only.
        for line in ["list", "add", "show p3", "add", "mark"] {
            try tmux.press("ask", "Up")
            try tmux.waitForLine("ask", "giftkeeper> " + line)
        }
        try tmux.press("ask", "C-c")
        try tmux.waitForLine("ask")
        try tmux.enter("ask", "quit")
        try tmux.waitFor("ask", text: "GK-EXIT=0")
        #expect(try sandbox.verifies())
    }

    @Test("--lock-after: the shell waiting at the prompt signs out by itself, the half-typed line dropped, and can sign in again")
    func idleSignOut() throws {
        let sandbox = try Sandbox()
        try sandbox.createJournal(presents: ["Mum Hat"])
        let tmux = try Tmux(prefix: "gk-cli")
        // 0.05 minutes: 3 s.
        try tmux.start(session: "idle", TerminalTests.launch(sandbox) + " --lock-after 0.05")
        try tmux.waitFor("idle", text: "Password:")
        try tmux.enter("idle", "secret-pw")
        try tmux.waitForLine("idle")
        // Activity keeps it signed in: a command, then half a line typed and left.
        try tmux.enter("idle", "list")
        try tmux.waitFor("idle", text: "1 present")
        try tmux.waitForLine("idle")
        try tmux.type("idle", "list Mum")
        var screen = try tmux.waitFor("idle", text: "🔒 Signed out (idle)", timeout: 20)
        try tmux.waitForLine("idle", "giftkeeper (signed out)>")
        #expect(!screen.contains("giftkeeper> list Mum"), "the half-typed line stayed:\n\(screen)")
        #expect(!screen.contains("GK-EXIT="), "\(screen)")
        // Signed out, nothing of the session comes back with Up.
        try tmux.press("idle", "Up")
        usleep(300_000)
        #expect((try? tmux.currentLine("idle")) == "giftkeeper (signed out)>", "Up recalled a line after the idle sign-out")
        try tmux.waitForAnother("idle", text: "Password:") { try tmux.enter("idle", "login") }
        try tmux.enter("idle", "secret-pw")
        try tmux.waitForAnother("idle", text: "🔓 Signed in as Alice") {}
        try tmux.waitForLine("idle")
        try tmux.enter("idle", "quit")
        screen = try tmux.waitFor("idle", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        // Recorded as a sign-out like any other: the setup session's, the idle one, the quit.
        let audit = try sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(audit.stdoutLines.filter { $0.contains("signedOut") }.count >= 3, "\(audit)")
    }

    @Test("--lock-after that is not a number of minutes: one line, exit 2, nothing opened")
    func badLockAfter() throws {
        let sandbox = try Sandbox()
        for (value, words) in [
            ("abc", "takes a number of minutes"), ("-5", "cannot be negative"), ("1e3", "takes a number of minutes"),
            ("", "takes a number of minutes"), ("999999999", "at most 525600"),
        ] {
            let outcome = try sandbox.run(["--journal", sandbox.journal, "--lock-after", value], input: "quit\n")
            #expect(outcome.status == 2, "\(value): \(outcome)")
            #expect(outcome.stderrLines.count == 1, "\(value): \(outcome)")
            #expect(outcome.stderr.contains(words), "\(value): \(outcome)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.journal))
        }
    }
}
