import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// Issue 13, findings 2 and 3: a closed pipe (SIGPIPE) and a file-size limit (SIGXFSZ)
/// once killed the process; now each is an error the program handles (signed out, keys
/// wiped, one line, exit 5), and nothing acknowledged is lost.
@Suite(.serialized, .programSlot) struct OutputFailureTests {
    /// A journal of 1,500 presents (seven people, titles alike, a price each) whose audit,
    /// export and list fill a pipe, imported in one command: 1,500 scripted `add` lines
    /// take longer than a test may wait in a debug build on a loaded machine.
    func createJournalOfManyPresents(_ sandbox: Sandbox) async throws {
        try await sandbox.createJournal()
        let presents = (1...1500).map { number in
            #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p\#(number)","price":"12.50","recipient":"Recipient\#(number % 7)","status":"idea","title":"A present with a longer title, number \#(number)","updatedAt":"2026-12-01T09:00:01.000Z"}"#
        }
        let document = sandbox.root + "/presents.json"
        try writeNewFile(Array(#"{"format":"giftkeeper.export.v1","presents":[\#(presents.joined(separator: ","))]}"#.utf8), to: document)
        let imported = try await sandbox.script(["login", "secret-pw", "import \(document)", "quit"])
        #expect(imported.status == 0 && imported.stdout.contains("Imported 1500 presents"), "\(imported)")
    }

    /// Runs `command` under bash with the sandbox's environment; `BIN`, `J` and `P` are set.
    func bash(_ sandbox: Sandbox, _ command: String, password: String = "secret-pw") async throws -> Outcome {
        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array((password + "\n").utf8), to: passwordFile)
        var environment = sandbox.environment
        environment["BIN"] = sandbox.binary
        environment["J"] = sandbox.journal
        environment["P"] = passwordFile
        return try await runProgram("/bin/bash", ["-c", command], environment: environment, timeout: .seconds(60))
    }

    /// The next sign-in says nothing of a session that ended without signing out.
    func signsInCleanly(_ sandbox: Sandbox) async throws {
        let next = try await sandbox.script(["login", "secret-pw"])
        #expect(next.status == 0, "\(next)")
        #expect(!next.stdout.contains("ended without signing out") && !next.stderr.contains("ended without signing out"), "\(next)")
    }

    @Test("audit | head -1: exit 5 with one line, not death by SIGPIPE")
    func auditIntoAClosedPipe() async throws {
        let sandbox = try Sandbox()
        try await createJournalOfManyPresents(sandbox)
        let outcome = try await bash(
            sandbox, #""$BIN" audit --journal "$J" --password-file "$P" | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}""#)
        #expect(outcome.stdout.contains("status=5"), "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("standard output") == true, "\(outcome)")
        #expect(try await sandbox.verifies())
    }

    @Test("export --output - | head -c 100: exit 5, signed out, the export not recorded")
    func exportIntoAClosedPipe() async throws {
        let sandbox = try Sandbox()
        try await createJournalOfManyPresents(sandbox)
        let outcome = try await bash(
            sandbox, #""$BIN" export --journal "$J" --password-file "$P" --output - | head -c 100 >/dev/null; echo "status=${PIPESTATUS[0]}""#)
        #expect(outcome.stdout.contains("status=5"), "\(outcome)")
        try await signsInCleanly(sandbox)
        let history = try await sandbox.script(["login", "secret-pw", "history --last 5"])
        #expect(!history.stdout.contains("stateExported"), "\(history)")
    }

    @Test("A script piped into head -1 stops at the closed pipe, signs out, runs nothing after it")
    func scriptIntoAClosedPipe() async throws {
        let sandbox = try Sandbox()
        try await createJournalOfManyPresents(sandbox)
        let script = sandbox.root + "/script.txt"
        try writeNewFile(Array("login\nsecret-pw\nlist\nadd Late \"After the pipe closed\"\nquit\n".utf8), to: script)
        let outcome = try await bash(sandbox, #""$BIN" --journal "$J" < "\#(script)" | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}""#)
        #expect(outcome.stdout.contains("status=5"), "\(outcome)")
        try await signsInCleanly(sandbox)
        let list = try await sandbox.script(["login", "secret-pw", "list Late"])
        #expect(list.stdout.contains("No presents match."), "\(list)")
    }

    @Test("A file-size limit (ulimit -f) is like a full disk: one line, exit 5, every acknowledged add kept")
    func fileSizeLimit() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let before = fileBytes(sandbox.journal)?.count ?? 0
        let script = sandbox.root + "/adds.txt"
        let adds = (1...400).map { "add Someone \"Present number \($0) with a title long enough\" --price 5" }
        try writeNewFile(Array((["login", "secret-pw"] + adds + ["quit"]).joined(separator: "\n").utf8 + [10]), to: script)
        let limit = (before + 40_000) / 1024  // blocks of 1 KiB: room for about a hundred adds
        let outcome = try await bash(sandbox, #"ulimit -f \#(limit); "$BIN" --journal "$J" < "\#(script)""#)
        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("file size limit") == true, "\(outcome)")
        let saved = outcome.stdoutLines.filter { $0.hasPrefix("Saved p") }.count
        #expect(saved > 10 && saved < 400, "\(saved) saved")
        #expect(try await sandbox.verifies())
        let list = try await sandbox.script(["login", "secret-pw", "list"])
        #expect(list.stdout.contains("\(saved) present"), "every acknowledged add is there: \(list)")
    }
}
