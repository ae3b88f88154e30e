import Foundation
import Glibc
import Testing

/// The shell on a real terminal, in an interactive bash with job control (Ctrl-Z and `fg`
/// need one): suspending and resuming.
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
        try tmux.type("job", "ma")
        try tmux.press("job", "Tab")
        try tmux.waitForLine("job", "giftkeeper> mark")
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
}
