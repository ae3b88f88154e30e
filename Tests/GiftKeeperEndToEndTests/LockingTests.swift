import Foundation
import Glibc
import Testing

/// SPEC §12: several processes on one journal file. Each takes the lock only while it
/// appends; the others take in what it wrote and say so.
@Suite("Two processes on one journal")
struct LockingTests {
    @Test("a script adds while a shell is signed in; verify, audit and export read it; the shell says the change and goes on")
    func twoProcessesShareOneJournal() throws {
        let sandbox = try Sandbox()
        try sandbox.createJournal(presents: ["Mum Scarf"])
        let first = try sandbox.start(["--journal", sandbox.journal])
        first.send("login\nsecret-pw\n")
        let signedIn = first.pump(until: { first.stderr.contains("🔓 Signed in as Alice") }, timeout: 30)
        try #require(signedIn, "the first session did not sign in: \(first.stdout) \(first.stderr)")

        // The first holds the journal open, waiting for its next line.
        let second = try sandbox.script(["login", "secret-pw", "add Dad 'Lego set'"])
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("Saved p2"), "\(second)")
        for arguments in [["verify"], ["audit"], ["export"]] {
            let other = try sandbox.run(arguments + ["--journal", sandbox.journal], input: "secret-pw\n")
            #expect(other.status == 0, "\(arguments): \(other)")
        }

        // The first session takes in the add before its next command, says it, and adds after it.
        first.send("add Eve Kite\nlist\n")
        let result = first.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("↓ p2 \"Lego set\" for Dad was added elsewhere"), "\(result)")
        #expect(result.stdout.contains("Saved p3"), "\(result)")
        #expect(result.stdout.contains("3 presents"), "\(result)")
        #expect(result.stderr.hasSuffix("🔒 Signed out\n"), "\(result)")
        #expect(try sandbox.verifies())
    }
}
