import Foundation
import Glibc
import TestProcesses
import Testing

/// SPEC §12 on real terminals: two shells on one journal, each told of the other's changes
/// live, at the prompt, with the half-typed line kept.
@Suite("Two shells on one journal (tmux)", .programSlot)
struct TwoShellsTerminalTests {
    @Test("a change in one shell appears in the other while it waits at the prompt; audit runs meanwhile")
    func changesAppearLive() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf"])
        let tmux = try Tmux()
        let launch = TerminalTests.launch(sandbox)
        for session in ["laptop", "desktop"] {
            try await tmux.start(session: session, launch)
            try await tmux.waitFor(session, text: "Password:")
            try await tmux.enter(session, "secret-pw")
            try await tmux.waitFor(session, text: "🔓 Signed in as Alice")
            try await tmux.waitForLine(session)
        }

        // The desktop shell has half a line typed when the laptop one adds a present.
        try await tmux.type("desktop", "list Mu")
        try await tmux.waitForLine("desktop", "giftkeeper> list Mu")
        try await tmux.enter("laptop", "add Dad 'Lego set'")
        try await tmux.waitFor("laptop", text: "Saved p2:")
        var screen = try await tmux.waitFor("desktop", text: "↓ p2 \"Lego set\" for Dad was added elsewhere", timeout: 5)
        // Said above the prompt, and the half-typed line is still there to finish.
        try await tmux.waitForLine("desktop", "giftkeeper> list Mu")
        #expect(!screen.contains("GK-EXIT="), "\(screen)")

        // audit reads the journal both shells hold.
        let audit = try await sandbox.run(["audit", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(audit.status == 0, "\(audit)")
        #expect(audit.stdout.contains("added p2"), "\(audit)")

        // The desktop shell's own change goes in after the laptop one's; the laptop shell hears of it.
        try await tmux.press("desktop", "C-u")
        try await tmux.enter("desktop", "mark p2 bought")
        try await tmux.waitFor("desktop", text: "Saved p2: marked bought.")
        screen = try await tmux.waitFor("laptop", text: "↓ Elsewhere: p2 \"Lego set\" idea → bought", timeout: 5)
        try await tmux.waitForLine("laptop")
        for session in ["laptop", "desktop"] {
            try await tmux.press(session, "C-d")
            screen = try await tmux.waitFor(session, text: "GK-EXIT=")
            #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        }
        #expect(try await sandbox.verifies())
    }
}
