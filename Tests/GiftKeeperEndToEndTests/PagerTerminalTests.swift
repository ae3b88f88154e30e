import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// A one-shot piped to a pager on a terminal (issue 29, item 20): nothing giftkeeper writes
/// to standard error lands on the pager's screen after the output began.
@Suite("One-shots and scripts piped to a pager (tmux)", .programSlot)
struct PagerTerminalTests {
    @Test(
        "giftkeeper export | less and a script piped to less: the sign-out notice is not drawn over less's screen; without a pager it is shown as before"
    )
    func exportToLess() async throws {
        let less = try #require(findOnPath("less"), "less is not installed ('make test' installs it)")
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf --price 25", "Dad Book"])
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile)
        let tmux = try Tmux()
        let environment = "env HOME='\(sandbox.home)' XDG_STATE_HOME='\(sandbox.state)' XDG_DATA_HOME='\(sandbox.data)' LANG=C.UTF-8 "
        let oneShot = environment + "'\(sandbox.binary)' export --journal '\(sandbox.journal)' --password-file '\(passwordFile)'"
        let script = sandbox.home + "/script"
        try writeNewFile(Array("login\nsecret-pw\nlist\nquit\n".utf8), to: script)
        let scripted = environment + "'\(sandbox.binary)' --journal '\(sandbox.journal)' < '\(script)'"
        for (session, command, shown) in [("export", oneShot, #""format" : "giftkeeper.export.v2""#), ("script", scripted, "Scarf")] {
            // The mark is made once giftkeeper has ended, and less is still showing its output.
            let finished = sandbox.home + "/finished-" + session
            try await tmux.start(session: session, "(\(command); touch '\(finished)') | env -u LESS '\(less)'")
            try await tmux.waitFor(session, text: shown)
            let deadline = Date().addingTimeInterval(15)
            while !FileManager.default.fileExists(atPath: finished) && Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(FileManager.default.fileExists(atPath: finished), "\(session): giftkeeper did not end")
            try await Task.sleep(for: .milliseconds(300))
            let screen = try await tmux.screen(session)
            #expect(!screen.contains("Signed out") && !screen.contains("Signed in"), "\(session): \(screen)")
            #expect(Tmux.lastLine(of: screen) == ":" || Tmux.lastLine(of: screen) == "(END)", "\(session): less's prompt is untouched: \(screen)")
            try await tmux.press(session, "q")
            try await tmux.waitFor(session, text: "GK-EXIT=0")
        }

        // Without a pager (standard output the terminal too), the notices are shown as before.
        try await tmux.start(session: "plain", oneShot + " --output '\(sandbox.home)/export.json'")
        let plain = try await tmux.waitFor("plain", text: "GK-EXIT=0")
        #expect(plain.contains("🔓 Signed in as Alice") && plain.contains("🔒 Signed out"), "\(plain)")
    }
}
