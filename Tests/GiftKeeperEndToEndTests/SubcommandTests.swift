import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// The one-shot subcommands of SPEC §2: audit, export, import, verify, and the options
/// every command line has.
@Suite("Subcommands", .programSlot)
struct SubcommandTests {
    @Test("audit: one line per event and a verdict; --json: one JSON object per line")
    func audit() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [#"Mum "Blue \"scarf\"" --price 25"#, "Dad Book"])
        let text = try await sandbox.audits()
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)  // key wrap, account, login, 2 adds, sign-out, verdict
        #expect(lines.first?.hasPrefix("1\t-\tkeyWrap\t") == true)
        #expect(lines.contains { $0.hasPrefix("4\t") && $0.contains("\tpresentAdded\t") && $0.contains("p1") })
        #expect(lines.last == "OK: 6 frames verified; 0 failed logins reported")

        let json = try await sandbox.run(["audit", "--json", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(json.status == 0, "\(json)")
        var objects: [[String: Any]] = []
        for line in json.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            objects.append(try #require(object, "not a JSON object: \(line)"))
        }
        #expect(objects.count == 7)
        #expect(objects.first?["seq"] as? Int == 1)
        #expect(objects.first?["event"] as? String == "keyWrap")
        #expect(objects.dropLast().allSatisfy { $0["seq"] != nil && $0["event"] != nil && $0["summary"] != nil })
        #expect(objects[3]["summary"] as? String == #"added p1 "Blue "scarf"" for Mum (25.00)"#)
        #expect(objects.last?["verdict"] as? String == "ok")
        #expect(objects.last?["events"] as? Int == 6)
    }

    @Test("audit with a wrong password: exit 3")
    func auditWrongPassword() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let outcome = try await sandbox.audits(password: "nope")
        #expect(outcome.status == 3, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("Wrong password") == true)
    }

    @Test("export --output into a missing directory fails before signing in (exit 5, journal unchanged)")
    func exportToABadPath() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let before = fileBytes(sandbox.journal)
        let outcome = try await sandbox.run(
            ["export", "--journal", sandbox.journal, "--output", sandbox.home + "/missing/gifts.json"], input: "secret-pw\n")
        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("no such file or directory") == true, "\(outcome)")
        #expect(fileBytes(sandbox.journal) == before, "nothing (not even a sign-in) may be recorded")
    }

    @Test("export to a full standard output (/dev/full): exit 5, and no export is recorded")
    func exportToAFullDisk() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let outcome = try await runProgram(
            "/bin/sh", ["-c", "exec \"$0\" export --journal \"$1\" > /dev/full", sandbox.binary, sandbox.journal],
            input: Array("secret-pw\n".utf8), environment: sandbox.environment)
        #expect(outcome.status == 5, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("no space left") == true, "\(outcome)")
        let audit = try await sandbox.audits()
        #expect(audit.status == 0, "\(audit)")
        #expect(!audit.stdout.contains("stateExported"), "a failed export must not be recorded:\n\(audit.stdout)")
    }

    @Test(
        "audit, verify and a script to a full standard output: exit 5 and an error line",
        arguments: [
            ["audit", "--journal", "J"], ["verify", "--journal", "J"], ["--journal", "J"], ["--help"], ["--version"],
        ])
    func reportsToAFullDisk(_ arguments: [String]) async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let words = arguments.map { $0 == "J" ? sandbox.journal : $0 }
        let input =
            words.contains("verify") || words.first?.hasPrefix("--") == true && words.first != "--journal"
            ? "" : words.contains("audit") ? "secret-pw\n" : "login\nsecret-pw\nlist\nquit\n"
        let outcome = try await runProgram(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", sandbox.binary] + words,
            input: Array(input.utf8), environment: sandbox.environment)
        #expect(outcome.status == 5, "\(outcome)")
        // A subcommand says it once; a script once per command whose output was lost (here
        // only 'list': the notifications go to standard error).
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.allSatisfy { $0.contains("Could not write to standard output") }, "\(outcome)")
        #expect(try await sandbox.verifies())
    }

    @Test("export never replaces a file unless --force: refused before the password is asked (subcommand and shell)")
    func exportKeepsExistingFiles() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let target = sandbox.root + "/notes.txt"
        try writeNewFile(Array("my own notes".utf8), to: target, mode: 0o644)
        let journalBefore = fileBytes(sandbox.journal)

        let refused = try await sandbox.run(["export", "--journal", sandbox.journal, "--output", target], input: "secret-pw\n")
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.errorLines.count == 1 && refused.errorLines.first?.contains("--force") == true, "\(refused)")
        #expect(fileBytes(target) == Array("my own notes".utf8))
        #expect(fileBytes(sandbox.journal) == journalBefore, "refused before signing in")

        let forced = try await sandbox.run(["export", "--journal", sandbox.journal, "--output", target, "--force"], input: "secret-pw\n")
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stderr.contains("Exported 1 present to \(target) (mode 0600)."), "\(forced)")
        #expect(permissions(of: target) == 0o600)

        let dash = try await sandbox.run(["export", "--journal", sandbox.journal, "--output", "-"], input: "secret-pw\n")
        #expect(dash.status == 0 && dash.stdout.contains(#""format" : "giftkeeper.export.v2""#), "\(dash)")
        #expect(!FileManager.default.fileExists(atPath: "-"), "'-' is standard output, not a file")
        let empty = try await sandbox.run(["export", "--journal", sandbox.journal, "--output", ""], input: "secret-pw\n")
        #expect(empty.status == 2 && empty.errorLines.first?.contains("--output needs a file name") == true, "\(empty)")

        let shell = try await sandbox.script(["login", "secret-pw", "export \(target)", "export \(target) --force"])
        #expect(shell.status == 2, "\(shell)")
        #expect(shell.errorLines.count == 1 && shell.errorLines.first?.contains("already exists") == true, "\(shell)")
        #expect(shell.stdout.contains("Exported 1 present to \(target)"), "\(shell)")
    }

    @Test("export to standard output and to --output FILE (mode 0600); import it elsewhere")
    func exportAndImport() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf --price 25 --occasion Christmas", "Dad Book --notes used"])
        let screen = try await sandbox.run(["export", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(screen.status == 0, "\(screen)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(screen.stdoutBytes)) as? [String: Any])
        #expect(document["format"] as? String == "giftkeeper.export.v2")
        #expect((document["account"] as? [String: Any])?["name"] as? String == "Alice")
        #expect((document["presents"] as? [[String: Any]])?.count == 2)
        // Notifications go to standard error so the JSON stays clean.
        #expect(screen.stderr.contains("🔓 Signed in as Alice"))

        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile, mode: 0o600)
        let file = sandbox.root + "/out/export.json"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/out", withIntermediateDirectories: false)
        let written = try await sandbox.run(["export", "--journal", sandbox.journal, "--password-file", passwordFile, "--output", file])
        #expect(written.status == 0, "\(written)")
        #expect(written.stdout.isEmpty)
        #expect(permissions(of: file) == 0o600)
        let fileContents = try #require(fileBytes(file))
        let fromFile = try #require(try JSONSerialization.jsonObject(with: Data(fileContents)) as? [String: Any])
        #expect(fromFile["format"] as? String == "giftkeeper.export.v2")
        #expect(
            NSDictionary(dictionary: fromFile["presents"].map { ["p": $0] } ?? [:])
                == NSDictionary(dictionary: document["presents"].map { ["p": $0] } ?? [:]))

        // Import into a fresh journal, export again: the same presents.
        let other = sandbox.root + "/other/other.journal"
        try await sandbox.createJournal(name: "Bob", password: "other-password", journal: other)
        let imported = try await sandbox.run(["import", "--journal", other, file], input: "other-password\n")
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stderr.contains("Imported 2 presents"))
        let again = try await sandbox.run(["export", "--journal", other], input: "other-password\n")
        let reexported = try #require(try JSONSerialization.jsonObject(with: Data(again.stdoutBytes)) as? [String: Any])
        let strip: ([String: Any]) -> [String] = { present in
            ["id", "recipient", "title", "price", "status", "notes", "occasion"].map { "\(present[$0] ?? "nil")" }
        }
        let before = (document["presents"] as? [[String: Any]] ?? []).map(strip)
        let after = (reexported["presents"] as? [[String: Any]] ?? []).map(strip)
        #expect(before == after)
        #expect(after.count == 2)

        // A malformed document is rejected whole; nothing is appended.
        let bad = sandbox.root + "/bad.json"
        try writeNewFile(Array(#"{"format": "giftkeeper.export.v1", "presents": [{"title": 5}]}"#.utf8), to: bad)
        let sizeBefore = fileBytes(other)?.count
        let rejected = try await sandbox.run(["import", "--journal", other, bad], input: "other-password\n")
        #expect(rejected.status != 0, "\(rejected)")
        #expect(rejected.errorLines.count == 1, "\(rejected)")
        #expect(rejected.errorLines.first?.contains("Nothing was imported") == true, "\(rejected)")
        // Rejected before signing in: nothing at all was appended; no present was added.
        #expect(fileBytes(other)?.count == sizeBefore)
        let list = try await sandbox.script(["login", "other-password", "list"], journal: other)
        #expect(list.stdout.contains("2 presents"), "\(list)")
    }

    @Test("import of a spreadsheet where there is no journal creates it; a bad row is named by its line (exit 2)")
    func importCreatesTheJournal() async throws {
        let sandbox = try Sandbox()
        let sheet = sandbox.root + "/gifts.csv"
        try writeNewFile(Array("\u{FEFF}Recipient,Title,Price\r\nMum,\"Scarf, blue\",\"12,50\"\r\nDad,,3\r\n".utf8), to: sheet)
        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array("a new password\n".utf8), to: passwordFile)
        let journal = sandbox.root + "/new/gifts.journal"
        let created = try await sandbox.run([
            "import", sheet, "--journal", journal, "--password-file", passwordFile, "--name", "Alice",
        ])
        #expect(created.status == 2, "\(created)")
        #expect(
            created.errorLines == [
                "giftkeeper: error: Line 3 not imported. The title cannot be empty. Type a title with at least one visible character."
            ], "\(created)")
        #expect(created.stderr.contains("Imported 1 present as p1"), "\(created)")
        #expect(permissions(of: journal) == 0o600)
        let list = try await sandbox.script(["login", "a new password", "list"], journal: journal)
        #expect(list.stdout.contains("Scarf, blue"), "\(list)")
        #expect(list.stdout.contains("12.50"), "\(list)")
    }

    @Test("--password-file readable by others is refused, naming chmod 600")
    func permissivePasswordFile() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile, mode: 0o644)
        for subcommand in ["audit", "export"] {
            let outcome = try await sandbox.run([subcommand, "--journal", sandbox.journal, "--password-file", passwordFile])
            #expect(outcome.status == 2, "\(outcome)")
            #expect(outcome.stderrLines.count == 1, "\(outcome)")
            #expect(outcome.errorLines.first?.hasSuffix("To fix it, run: chmod 600 '\(passwordFile)'") == true, "\(outcome)")
            #expect(outcome.stdout.isEmpty)
        }
        chmod(passwordFile, 0o600)
        let allowed = try await sandbox.run(["audit", "--journal", sandbox.journal, "--password-file", passwordFile])
        #expect(allowed.status == 0, "\(allowed)")
    }

    @Test("verify and audit on a good journal, a flipped byte, and a torn last frame")
    func damagedJournals() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Scarf", "Dad Book", "Sis Hat"])
        let good = try await sandbox.run(["verify", "--journal", sandbox.journal])
        #expect(good.status == 0, "\(good)")
        #expect(good.stdout.hasPrefix("OK: 7 frames, structure and hash chain intact"))
        let original = try #require(fileBytes(sandbox.journal))

        // One byte flipped in the middle.
        let flipped = sandbox.root + "/flipped.journal"
        var bytes = original
        bytes[bytes.count / 2] ^= 0x01
        try writeNewFile(bytes, to: flipped)
        let verify = try await sandbox.run(["verify", "--journal", flipped])
        #expect(verify.status == 1, "\(verify)")
        #expect(verify.errorLines.count == 1, "\(verify)")
        let failedLine = try #require(verify.stdoutLines.first { $0.hasPrefix("FAILED at sequence number ") }, "\(verify)")
        let sequence = try #require(failedLine.dropFirst("FAILED at sequence number ".count).split(separator: " ").first.map(String.init))
        #expect(failedLine.contains("(byte offset "), "\(failedLine)")
        #expect(UInt64(sequence) != nil)
        let audit = try await sandbox.audits(flipped)
        #expect(audit.status == 1, "\(audit)")
        #expect(audit.errorLines.count == 1, "\(audit)")
        #expect(audit.errorLines.first?.contains("sequence number \(sequence)") == true, "\(audit)")
        #expect(audit.stdoutLines.last { !$0.isEmpty }?.hasPrefix("FAILED after ") == true, "\(audit)")
        #expect(audit.stdoutLines.last { !$0.isEmpty }?.contains("sequence number \(sequence)") == true, "\(audit)")
        let session = try await sandbox.script(["login", "secret-pw", "list"], journal: flipped)
        #expect(session.status == 1, "\(session)")
        #expect(session.errorLines.first?.contains("sequence number \(sequence)") == true, "\(session)")
        #expect(fileBytes(flipped) == bytes, "a damaged journal must never be repaired")

        // The last frame torn in the middle (a crash mid-append). A real crash tears only a
        // frame never acknowledged, so never one the remembered head counts; this copy tears
        // the remembered sign-out, which the rollback check rightly reports
        // (RollbackSubcommandTests). Forget the head, as a crash would have left it.
        for file in sandbox.allFiles() where file.hasPrefix(sandbox.state + "/") { unlink(file) }
        let torn = sandbox.root + "/torn.journal"
        try writeNewFile(Array(original.dropLast(20)), to: torn)
        let tornVerify = try await sandbox.run(["verify", "--journal", torn])
        #expect(tornVerify.status == 0, "\(tornVerify)")
        #expect(tornVerify.stderr.contains("giftkeeper: warning: "), "\(tornVerify)")
        #expect(tornVerify.stderr.contains("incomplete write"), "\(tornVerify)")
        #expect(tornVerify.stdout.hasPrefix("OK: 6 frames"), "\(tornVerify)")
        #expect(fileBytes(torn)?.count == original.count - 20, "verify must not change the journal")
        let opened = try await sandbox.script(["login", "secret-pw", "list"], journal: torn)
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.stderr.contains("giftkeeper: warning: The journal's last write was incomplete"), "\(opened)")
        #expect(opened.stderr.contains("bytes were trimmed"), "\(opened)")
        // The trimmed bytes were saved beside the journal first, and the warning names the copy.
        let savedCopy = sandbox.allFiles().first { $0.hasPrefix(torn + ".torn-") }
        let savedBytes = savedCopy.flatMap(fileBytes) ?? []
        #expect(!savedBytes.isEmpty && Array(original.dropLast(20)).suffix(savedBytes.count).elementsEqual(savedBytes))
        #expect(savedCopy.map { opened.stderr.contains("saved to \($0)") } == true, "\(opened)")
        #expect(opened.stdout.contains("3 presents"), "\(opened)")
        let afterwards = try await sandbox.audits(torn)
        #expect(afterwards.status == 0, "\(afterwards)")
        #expect(afterwards.stderr.isEmpty, "\(afterwards)")
        #expect(afterwards.stdoutLines.last { !$0.isEmpty }?.hasPrefix("OK: ") == true)
        #expect(try await sandbox.verifies(torn))
    }

    @Test("--version, --help, --generate-completion-script bash")
    func informational() async throws {
        let sandbox = try Sandbox()
        let version = try await sandbox.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("giftkeeper "), "\(version)")
        #expect(version.stdout.contains("journal format 2"))
        let help = try await sandbox.run(["--help"])
        #expect(help.status == 0)
        for word in ["USAGE:", "repl", "audit", "export", "import", "verify", "--journal", "GIFTKEEPER_JOURNAL"] {
            #expect(help.stdout.contains(word), "--help lacks \(word)")
        }
        let completion = try await sandbox.run(["--generate-completion-script", "bash"])
        #expect(completion.status == 0, "\(completion)")
        #expect(completion.stdout.hasPrefix("#!/bin/bash"))
        #expect(completion.stdout.contains("-F _giftkeeper giftkeeper"), "\(completion)")
        #expect(completion.stderr.isEmpty)
        // One-shots complete their own options and fixed values, not only the shared ones.
        let list = completion.stdout.components(separatedBy: "_giftkeeper_list() {").last ?? ""
        let listFunction = list.components(separatedBy: "\n}\n").first ?? ""
        #expect(listFunction.contains("--status") && listFunction.contains("--sort"), "\(listFunction)")
        #expect(listFunction.contains("'idea'$'\\n''bought'"), "\(listFunction)")
        for (shell, listStatus) in [("zsh", "--status"), ("fish", "'status='")] {
            let script = try await sandbox.run(["--generate-completion-script", shell])
            #expect(script.status == 0 && script.stdout.contains(listStatus), "\(shell): \(script)")
        }
    }

    @Test(
        "audit of a journal damaged before any event can be read: still a verdict line (text and JSON)",
        arguments: [30, 70])
    func auditVerdictForEarlyDamage(_ offset: Int) async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Mum Hat"])
        var bytes = try #require(fileBytes(sandbox.journal))
        bytes[offset] ^= 0x01
        try writeNewFile(bytes, to: sandbox.journal)
        let text = try await sandbox.audits()
        #expect(text.status == 1, "\(text)")
        #expect(text.stdoutLines.last { !$0.isEmpty }?.hasPrefix("FAILED after 0 verified frames: ") == true, "\(text)")
        #expect(text.errorLines.count == 1, "\(text)")
        let json = try await sandbox.run(["audit", "--json", "--journal", sandbox.journal], input: "secret-pw\n")
        #expect(json.status == 1, "\(json)")
        #expect(json.stdoutLines.last { !$0.isEmpty }?.hasPrefix(#"{"verdict":"failed","events":0,"#) == true, "\(json)")
    }

    @Test(
        "an unknown subcommand or option: exit 2, one line",
        arguments: [
            ["frobnicate"], ["--frobnicate"], ["audit", "--frobnicate"], ["verify", "extra", "words"],
            ["export", "--output"], ["import"], ["help", "bogus"],
        ])
    func usageErrors(_ arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let outcome = try await sandbox.run(arguments + (arguments.first == "help" ? [] : ["--journal", sandbox.journal]))
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.stdout.isEmpty, "\(outcome)")
    }

    @Test("the journal path: --journal over $GIFTKEEPER_JOURNAL over $XDG_DATA_HOME")
    func journalPathPrecedence() async throws {
        let sandbox = try Sandbox()
        let flagged = sandbox.root + "/flag/flag.journal"
        let fromEnvironment = sandbox.root + "/env/env.journal"
        let xdg = sandbox.data + "/giftkeeper/default.journal"
        let setup = "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\n"

        let byXDG = try await sandbox.run([], input: setup)
        #expect(byXDG.status == 0, "\(byXDG)")
        #expect(byXDG.stdout.contains("Journal created at \(xdg)"))
        let byEnvironment = try await sandbox.run([], input: setup, environment: ["GIFTKEEPER_JOURNAL": fromEnvironment])
        #expect(byEnvironment.stdout.contains("Journal created at \(fromEnvironment)"), "\(byEnvironment)")
        let byFlag = try await sandbox.run(["--journal", flagged], input: setup, environment: ["GIFTKEEPER_JOURNAL": fromEnvironment])
        #expect(byFlag.stdout.contains("Journal created at \(flagged)"), "\(byFlag)")
        for path in [flagged, fromEnvironment, xdg] {
            #expect(permissions(of: path) == 0o600, "\(path)")
            #expect(permissions(of: URL(fileURLWithPath: path).deletingLastPathComponent().path) == 0o700, "\(path)")
        }
        // Subcommands resolve the path the same way.
        let verify = try await sandbox.run(["verify"], environment: ["GIFTKEEPER_JOURNAL": fromEnvironment])
        #expect(verify.status == 0, "\(verify)")
        // Without XDG_DATA_HOME: ~/.local/share.
        var noXDG = sandbox.environment
        noXDG.removeValue(forKey: "XDG_DATA_HOME")
        let byHome = try await runProgram(sandbox.binary, [], input: Array(setup.utf8), environment: noXDG)
        #expect(byHome.stdout.contains("Journal created at \(sandbox.home)/.local/share/giftkeeper/default.journal"), "\(byHome)")
    }

    @Test("a missing journal for a subcommand: exit 4")
    func missingJournal() async throws {
        let sandbox = try Sandbox()
        for arguments in [["verify"], ["audit"], ["export"]] {
            let outcome = try await sandbox.run(arguments + ["--journal", sandbox.journal], input: "secret-pw\n")
            #expect(outcome.status == 4, "\(outcome)")
            #expect(outcome.stderrLines.count == 1, "\(outcome)")
            #expect(outcome.errorLines.count == 1, "\(outcome)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal))
    }
}
