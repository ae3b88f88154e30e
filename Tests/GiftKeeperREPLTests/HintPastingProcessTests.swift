import Foundation
import GiftKeeperJournal
import TestProcesses
import Testing

@testable import GiftKeeperREPL

/// Hints pasted into a real shell. It starts `sh`, so it runs with the other suites that
/// start programs (the Makefile's PROCESS_TESTS), never beside a test holding a journal's lock.
@Suite struct HintPastingProcessTests {
    /// Issue 13, finding 4: a hint's command, pasted into a shell, runs exactly that command.
    @Test("Paths in hints are quoted for a POSIX shell, apostrophes and combining marks included")
    func hintsAreSafeToPaste() async throws {
        for path in ["/j/a;echo INJECTED;.journal", "/j/x'\u{301}; echo INJECTED; #'", "/j/$(echo INJECTED)`id`", "/j/plain"] {
            let sentence = JournalError(.insecurePermissions(mode: 0o644), path: path).sentence
            let command = String(try #require(sentence.components(separatedBy: "run: ").last))
            // What sh makes of the pasted command: exactly chmod, 600 and the path.
            let printed = try await shellWords(command)
            #expect(printed == ["chmod", "600", path], "\(command)")
        }
    }

    /// The words `sh` splits `command` into (printed one per line by printf, nothing run).
    func shellWords(_ command: String) async throws -> [String] {
        let shell = try await runProgram("/bin/sh", ["-c", "set -- \(command); printf '%s\\0' \"$@\""])
        #expect(shell.status == 0, "\(shell)")
        return shell.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
