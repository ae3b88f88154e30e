import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// What an attack on the built program found (issue 30), through the binary.
@Suite("Hardening through the binary", .programSlot)
struct HardeningTests {
    /// A sandbox journal with one present, then `extra` bytes of zeros (`truncate -s +N`, a
    /// sparse hole); its size before.
    private func journalExtended(by extra: Int) async throws -> (Sandbox, Int) {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        var info = stat()
        try #require(stat(sandbox.journal, &info) == 0)
        let size = Int(info.st_size)
        try #require(truncate(sandbox.journal, off_t(size + extra)) == 0)
        return (sandbox, size)
    }

    @Test("A journal extended by 1 GiB of zeros is damage: one line, exit 1, nothing read into memory, copied or cut")
    func extendedJournal() async throws {
        // `truncate -s +1G`: a sparse hole, so the test stays fast.
        let (sandbox, size) = try await journalExtended(by: 1 << 30)
        let before = sandbox.allFiles().sorted()

        // Under 600 MB of address space: reading the hole into memory could not even start.
        let limited = ["-c", #"ulimit -v 600000 && exec "$0" "$@""#, sandbox.binary]
        for _ in 0..<2 {
            let listed = try await runProgram(
                "/bin/sh", limited + ["list", "--journal", sandbox.journal], input: Array("secret-pw\n".utf8),
                environment: sandbox.environment)
            #expect(listed.status == 1, "\(listed)")
            #expect(listed.errorLines.count == 1, "\(listed)")
            #expect(listed.stderr.contains("1073741824 bytes follow the last whole frame"), "\(listed)")
            #expect(listed.stdout.isEmpty, "\(listed)")
        }
        let verified = try await runProgram(
            "/bin/sh", limited + ["verify", "--journal", sandbox.journal], environment: sandbox.environment)
        #expect(verified.status == 1, "\(verified)")
        #expect(verified.stdout.hasPrefix("FAILED"), "\(verified)")
        #expect(verified.stdout.contains("1073741824 bytes follow the last whole frame"), "\(verified)")
        #expect(!verified.stderr.contains("incomplete write"), "\(verified)")

        var info = stat()
        #expect(stat(sandbox.journal, &info) == 0 && Int(info.st_size) == size + (1 << 30), "the journal was cut")
        #expect(sandbox.allFiles().sorted() == before, "a copy was made beside the journal")
    }

    @Test("A crash's tail of zeros is trimmed with a warning and not copied")
    func zeroTornTail() async throws {
        let (sandbox, _) = try await journalExtended(by: 4096)
        let before = sandbox.allFiles().sorted()
        let listed = try await sandbox.run(["list", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout.contains("Hat"), "\(listed)")
        #expect(listed.stderr.contains("4096 bytes were trimmed"), "\(listed)")
        #expect(!listed.stderr.contains("saved to"), "\(listed)")
        #expect(sandbox.allFiles().sorted() == before, "zeros were copied beside the journal")
        #expect(try await sandbox.verifies())
    }

    @Test("import of a FIFO, a device or a directory is refused at once, one line, nothing added; the shell goes on")
    func importNonRegularFile() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let fifo = sandbox.root + "/export.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, "/dev/zero", sandbox.home] {
            let imported = try await runProgram(
                sandbox.binary, ["import", path, "--journal", sandbox.journal], input: Array("secret-pw\n".utf8),
                environment: sandbox.environment, timeout: .seconds(15))
            #expect(!imported.timedOut, "import of \(path) blocked")
            #expect(imported.status == 5, "\(imported)")
            let refusal = "giftkeeper: error: '\(path)' is not a regular file (a FIFO, device, socket or directory): "
            #expect(imported.errorLines == [refusal + "nothing was read from it."], "\(imported)")
        }
        // The shell: refused, and the session goes on (still signed in).
        let shell = try await runProgram(
            sandbox.binary, ["--journal", sandbox.journal], input: Array("login\nsecret-pw\nimport \(fifo)\nlist\nquit\n".utf8),
            environment: sandbox.environment, timeout: .seconds(15))
        #expect(!shell.timedOut, "the shell's import blocked")
        #expect(shell.stderr.contains("is not a regular file"), "\(shell)")
        #expect(shell.stdout.contains("Hat"), "\(shell)")
        let audit = try await sandbox.audits()
        #expect(audit.stdout.components(separatedBy: "\tpresentAdded\t").count - 1 == 1, "\(audit)")
    }

    /// Scalars a terminal, a spreadsheet or an editor acts on instead of showing: C0 controls
    /// but those `allowed`, DEL, C1, the bidirectional embeddings, overrides and isolates,
    /// and with `marks` the bidirectional marks (which JSON escapes too; the table and CSV
    /// show them, as typed input may hold them).
    private func controls(in text: String, allowing allowed: Set<Unicode.Scalar>, marks: Bool = false) -> [UInt32] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x00...0x1F: !allowed.contains(scalar)
            case 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
            case 0x061C, 0x200E, 0x200F: marks
            default: false
            }
        }.map(\.value)
    }

    @Test("Text another device stored with controls leaves every format sanitised; audit warns of it")
    func hostileStoredText() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        try HostileDevice.append(
            [
                try HostileDevice.present(
                    2, title: "Kite\u{1B}]0;owned\u{7}\u{9B}31m\u{202E}txt.exe\u{7F}\u{200F}",
                    notes: "line\n\u{1B}]52;c;ZXZpbA==\u{7}", store: "\t=2+2"),
                try HostileDevice.present(3, recipient: "\r=1+1", title: "Ball"),
            ], to: sandbox.journal, password: "secret-pw")

        let csv = try await sandbox.run(["list", "--csv", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(csv.status == 0, "\(csv)")
        #expect(controls(in: csv.stdout, allowing: ["\r", "\n", "\t"]).isEmpty, "\(csv)")
        #expect(csv.stdout.contains("Kite\u{FFFD}]0;owned\u{FFFD}\u{FFFD}31m\u{FFFD}txt.exe\u{FFFD}"), "\(csv)")
        // The formula guard: a leading tab, a leading CR (shown as �) never starts a formula.
        #expect(csv.stdout.contains("\"'\t=2+2\""), "\(csv)")
        #expect(!csv.stdout.contains(",\t=2+2"), "\(csv)")

        let json = try await sandbox.run(["list", "--json", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(json.status == 0, "\(json)")
        #expect(controls(in: json.stdout, allowing: ["\n"], marks: true).isEmpty, "\(json)")
        for escaped in ["\\u001b]0;owned\\u0007\\u009b31m\\u202etxt.exe\\u007f\\u200f", "\\t=2+2", "\\r=1+1"] {
            #expect(json.stdout.contains(escaped), "\(escaped): \(json)")
        }

        let exportPath = sandbox.home + "/export.json"
        let exported = try await sandbox.run(
            ["export", "--output", exportPath, "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(exported.status == 0, "\(exported)")
        let document = String(decoding: try readBytes(exportPath), as: UTF8.self)
        #expect(controls(in: document, allowing: ["\n"], marks: true).isEmpty, "\(document)")
        #expect(document.contains("\\u009b31m\\u202etxt.exe"), "\(document)")

        let audit = try await sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(controls(in: audit.stdout + audit.stderr, allowing: ["\n", "\t"]).isEmpty, "\(audit)")
        let warnings = audit.stderr.split(separator: "\n").filter { $0.contains("holds text typed input could not") }
        #expect(warnings.count == 2, "\(audit)")
        #expect(warnings.first?.contains("the title contains the control character U+001B") == true, "\(audit)")
        #expect(warnings.last?.contains("the recipient contains the control character U+000D") == true, "\(audit)")
    }

    /// An export v1 document of `count` presents.
    private func document(presents count: Int) -> String {
        let presents = (1...count).map { number in
            #"{"createdAt":"2026-12-01T09:00:00.000Z","id":"p\#(number)","notes":"a note of some length, to weigh","#
                + #""occasion":"Christmas","price":"12.50","recipient":"Person \#(number % 50)","status":"idea","#
                + #""title":"Present number \#(number)","updatedAt":"2026-12-01T09:00:00.000Z"}"#
        }
        return #"{"account":{"name":"Alice"},"format":"giftkeeper.export.v1","presents":["#
            + presents.joined(separator: ",") + "]}"
    }

    @Test("export --output killed (SIGKILL) at any moment leaves no partial file; one left by an older run is removed, and said")
    func killedExport() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let source = sandbox.home + "/seed.json"
        try writeNewFile(Array(document(presents: 20_000).utf8), to: source)
        let imported = try await sandbox.run(
            ["import", source, "--journal", sandbox.journal], input: "secret-pw\n", timeout: .seconds(120))
        #expect(imported.status == 0, "\(imported)")
        let directory = sandbox.root + "/out"
        #expect(mkdir(directory, 0o700) == 0)
        let output = directory + "/export.json"
        let arguments = ["export", "--output", output, "--force", "--journal", sandbox.journal]

        // How long one export takes here, whole: the kills land across it.
        let started = ContinuousClock.now
        let whole = try await sandbox.run(arguments, input: "secret-pw\n", timeout: .seconds(120))
        let duration = ContinuousClock.now - started
        #expect(whole.status == 0, "\(whole)")
        let complete = try readBytes(output)
        #expect(complete.count > 1_000_000)
        for step in 1...8 {
            let (_, killed) = try await withProgram(sandbox.binary, arguments, environment: sandbox.environment) { program in
                await program.send("secret-pw\n")
                try await Task.sleep(for: duration * (Double(step) / 9))
                program.kill(SIGKILL)
            }
            #expect(killed.signal == SIGKILL || killed.status == 0, "\(killed)")
            // Never a partial document: the old one, or (killed after the rename) the new one.
            #expect(try directoryEntries(directory) == ["export.json"], "kill \(step)")
            #expect(try readBytes(output).count == complete.count, "kill \(step)")
        }

        // A partial file an older version left (no O_TMPFILE where it ran): removed, and said.
        let stale = directory + "/.export.json.new-7fffffff-1a2b"
        try writeNewFile(Array(#"{"account":{"name":"Alice"},"presents":[{"title":"half"#.utf8), to: stale)
        let cleaned = try await sandbox.run(arguments, input: "secret-pw\n", timeout: .seconds(120))
        #expect(cleaned.status == 0, "\(cleaned)")
        #expect(cleaned.stderr.contains("Removed a partial file an earlier export left when it was killed: '\(stale)'."), "\(cleaned)")
        #expect(try directoryEntries(directory) == ["export.json"])
    }

    @Test("Wrong passwords on one journal are checked one at a time across processes, each after its wait; audit's are recorded")
    func passwordChecksInTurn() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        // Two wrong passwords at audit and one at a one-shot: free, and all three recorded.
        for arguments in [["audit"], ["audit"], ["list"]] {
            let wrong = try await sandbox.run(arguments + ["--journal", sandbox.journal], input: "wrong-pw\n")
            #expect(wrong.status == 3, "\(wrong)")
        }
        // Three more at once, from three processes: the waits after 3, 4 and 5 failures
        // (1, 2 and 4 s) one after another, as for one process; at once, about 1 s.
        let (binary, environment) = (sandbox.binary, sandbox.environment)
        let arguments = ["list", "--journal", sandbox.journal]
        let started = ContinuousClock.now
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await runProgram(
                        binary, arguments, input: Array("wrong-pw\n".utf8), environment: environment, timeout: .seconds(60)
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = ContinuousClock.now - started
        #expect(statuses == [3, 3, 3])
        #expect(elapsed >= .seconds(7), "three guesses took \(elapsed)")

        let audit = try await sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(audit.stdout.components(separatedBy: "\tloginFailed\t").count - 1 == 6, "\(audit)")
    }

    @Test("Failed sign-ins cut off the journal are reported as a rollback, and their wait stays")
    func cutFailuresAreARollback() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        var info = stat()
        try #require(stat(sandbox.journal, &info) == 0)
        let signedOut = info.st_size
        for _ in 0..<4 {
            let wrong = try await sandbox.run(["list", "--journal", sandbox.journal], input: "wrong-pw\n")
            #expect(wrong.status == 3, "\(wrong)")
        }
        // Cut the four failed-login records off: the journal as it was at the sign-out.
        #expect(truncate(sandbox.journal, signedOut) == 0)
        #expect(try await sandbox.verifies())
        // The fifth check still waits (2 s after four failures), and the cut is a rollback.
        let started = ContinuousClock.now
        let listed = try await sandbox.run(["list", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(ContinuousClock.now - started >= .seconds(2), "the wait was erased")
        #expect(listed.status == 1, "\(listed)")
        #expect(listed.stderr.contains("4 events missing since your last session"), "\(listed)")
        #expect(listed.errorLines.count == 1 && listed.errorLines[0].contains("Rollback detected"), "\(listed)")
        #expect(!listed.stdout.contains("Hat"), "\(listed)")
    }

    @Test(
        "After the idle lock no decrypted title, note or name is left in the shell's memory: it started afresh",
        .enabled(if: runningAsRoot, "reading another process's memory (dumpable 0) needs root"))
    func nothingDecryptedAfterSignOut() async throws {
        let sandbox = try Sandbox()
        let secrets = ["Quillon-Aldebaran", "Zephyrine-Kite-4471", "Marzipan-Notes-9917", "Obsidian-Lantern-2290"]
        try await sandbox.createJournal(
            name: secrets[0], presents: ["Mum \(secrets[1]) --notes \(secrets[2])"])
        let tmux = try Tmux(prefix: "gk-mem")
        // 0.05 minutes: 3 s.
        try await tmux.start(session: "mem", TerminalTests.launch(sandbox) + " --lock-after 0.05")
        try await tmux.waitFor("mem", text: "Password:")
        try await tmux.enter("mem", "secret-pw")
        try await tmux.waitForLine("mem")
        let pane = try await tmux.command(["display-message", "-p", "-t", "mem", "#{pane_pid}"])
        let shellPID = try #require(pid_t(pane.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let children = try String(contentsOfFile: "/proc/\(shellPID)/task/\(shellPID)/children", encoding: .utf8)
        let pid = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "no giftkeeper under the pane")
        try await tmux.enter("mem", "show p1")
        try await tmux.waitFor("mem", text: secrets[2])
        try await tmux.enter("mem", "add Dad \(secrets[3])")
        try await tmux.waitFor("mem", text: "Saved p2")
        try await tmux.waitForLine("mem")
        // Signed in, the scan finds them: it is not blind.
        let signedIn = try MemoryScan.occurrences(of: secrets, inMemoryOf: pid)
        #expect(signedIn.values.allSatisfy { $0 > 0 }, "\(signedIn)")

        try await tmux.waitFor("mem", text: "🔒 Signed out (idle)", timeout: 20)
        try await tmux.waitForLine("mem", "giftkeeper (signed out)>")
        try await Task.sleep(for: .milliseconds(300))
        // Still the program (by its file's name), in the same process on the same terminal.
        let name = String(URL(fileURLWithPath: sandbox.binary).lastPathComponent.prefix(15))
        #expect(try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) == name + "\n")
        let signedOut = try MemoryScan.occurrences(of: secrets, inMemoryOf: pid)
        #expect(signedOut.values.allSatisfy { $0 == 0 }, "left in memory after the idle lock: \(signedOut)")

        // The fresh process signs in again as the old one did, and ends as it would.
        try await tmux.waitForAnother("mem", text: "Password:") { try await tmux.enter("mem", "login") }
        try await tmux.enter("mem", "secret-pw")
        try await tmux.waitForAnother("mem", text: "🔓 Signed in as \(secrets[0])") {}
        try await tmux.waitForLine("mem")
        try await tmux.enter("mem", "signout")
        try await tmux.waitForLine("mem", "giftkeeper (signed out)>")
        try await tmux.enter("mem", "quit")
        let screen = try await tmux.waitFor("mem", text: "GK-EXIT=")
        #expect(screen.contains("GK-EXIT=0"), "\(screen)")
        #expect(try await sandbox.verifies())
    }
}
