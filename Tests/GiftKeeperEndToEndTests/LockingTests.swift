import Foundation
import Glibc
import TestProcesses
import Testing

/// SPEC §12: several processes on one journal file. Each takes the lock only while it
/// appends; the others take in what it wrote and say so.
@Suite("Two processes on one journal", .programSlot)
struct LockingTests {
    @Test("a script adds while a shell is signed in; verify, audit and export read it; the shell says the change and goes on")
    func twoProcessesShareOneJournal() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf"])
        let (_, result) = try await sandbox.withShell(["--journal", sandbox.journal]) { first in
            await first.send("login\nsecret-pw\n")
            let signedIn = await first.wait { _, stderr in stderr.contains("🔓 Signed in as Alice") }
            try #require(signedIn, "the first session did not sign in: \(first.stdout) \(first.stderr)")

            // The first holds the journal open, waiting for its next line.
            let second = try await sandbox.script(["login", "secret-pw", "add Dad 'Lego set'"])
            #expect(second.status == 0, "\(second)")
            #expect(second.stdout.contains("Saved p2"), "\(second)")
            for arguments in [["verify"], ["audit"], ["export"]] {
                let other = try await sandbox.run(arguments + ["--journal", sandbox.journal], input: "secret-pw\n")
                #expect(other.status == 0, "\(arguments): \(other)")
            }

            // The first session takes in the add before its next command, says it, and adds after it.
            await first.send("add Eve Kite\nlist\n")
        }
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("↓ p2 \"Lego set\" for Dad was added elsewhere"), "\(result)")
        #expect(result.stdout.contains("Saved p3"), "\(result)")
        #expect(result.stdout.contains("3 presents"), "\(result)")
        #expect(result.stderr.hasSuffix("🔒 Signed out\n"), "\(result)")
        #expect(try await sandbox.verifies())
    }
}
