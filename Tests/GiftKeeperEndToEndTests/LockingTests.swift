import Foundation
import Glibc
import Testing

/// SPEC §5: one process at a time; a second one is turned away at once with exit 4.
@Suite("Two processes on one journal")
struct LockingTests {
    @Test("a second REPL gets exit 4 at once while the first waits for input; the first then exits 0")
    func secondSessionRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.createJournal(presents: ["Mum Scarf"])
        let first = try sandbox.start(["--journal", sandbox.journal])
        first.send("login\nsecret-pw\n")
        let signedIn = first.pump(until: { first.stderr.contains("🔓 Signed in as Alice") }, timeout: 30)
        try #require(signedIn, "the first session did not sign in: \(first.stdout) \(first.stderr)")

        // The first holds the journal, blocked reading its standard input.
        let started = Date()
        let second = try sandbox.script(["login", "secret-pw", "list"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(second.status == 4, "\(second)")
        #expect(second.stderrLines.count == 1, "\(second)")
        #expect(second.errorLines.first?.contains("is in use by another giftkeeper") == true, "\(second)")
        #expect(second.stdout.isEmpty, "\(second)")
        #expect(elapsed < 5, "the second process waited \(elapsed) s instead of failing at once")
        // The subcommands are turned away the same way.
        for arguments in [["verify"], ["audit"], ["export"]] {
            let other = try sandbox.run(arguments + ["--journal", sandbox.journal], input: "secret-pw\n")
            #expect(other.status == 4, "\(other)")
            #expect(other.errorLines.first?.contains("in use") == true, "\(other)")
        }

        // The first session carries on and ends cleanly at the end of its input.
        first.send("add Dad Book\nlist\n")
        let result = first.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("2 presents"), "\(result)")
        #expect(result.stderr.hasSuffix("🔒 Signed out\n"), "\(result)")
        #expect(try sandbox.verifies())
    }
}
