import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// A journal replaced by an older copy of itself (SPEC §5): `audit` fails it, `export` and
/// `import` refuse to run on it, and none of them moves the remembered head.
@Suite("Rollback and the subcommands", .programSlot)
struct RollbackSubcommandTests {
    /// The remembered-head file under `$XDG_STATE_HOME/giftkeeper` and its bytes.
    private func headFile(_ sandbox: Sandbox) throws -> (path: String, bytes: [UInt8]) {
        let heads = sandbox.allFiles().filter { $0.hasPrefix(sandbox.state + "/giftkeeper/") && $0.hasSuffix(".head") }
        #expect(heads.count == 1, "\(heads)")
        let path = try #require(heads.first)
        return (path, try #require(fileBytes(path)))
    }

    @Test("audit, export and import on an older copy: exit 1, one error line, the evidence kept")
    func olderCopy() async throws {
        let sandbox = try Sandbox()
        // Frames 1 wrap, 2 account, 3 sign-in, 4 p1, 5 sign-out: the copy.
        try await sandbox.createJournal(presents: ["Mum Hat"])
        let copy = try #require(fileBytes(sandbox.journal))
        // Frames 6 sign-in, 7 p2, 8 p3, 9 sign-out, remembered.
        let later = try await sandbox.script(["login", "secret-pw", "add Dad Book", "add Sam Kite", "quit"])
        #expect(later.status == 0, "\(later)")
        #expect(try await sandbox.audits().status == 0)
        let head = try headFile(sandbox)
        try writeNewFile(copy, to: sandbox.journal)
        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile)

        let audit = try await sandbox.audits()
        #expect(audit.status == 1, "\(audit)")
        #expect(audit.errorLines.count == 1, "\(audit)")
        #expect(audit.errorLines.first?.contains("Rollback detected: 4 events are missing since your last session") == true, "\(audit)")
        #expect(audit.stdoutLines.last { !$0.isEmpty }?.hasPrefix("FAILED: 5 frames verified, but: Rollback detected") == true, "\(audit)")
        #expect(fileBytes(sandbox.journal) == copy, "audit is read-only")

        let json = try await sandbox.run(["audit", "--json", "--journal", sandbox.journal, "--password-file", passwordFile])
        #expect(json.status == 1, "\(json)")
        let verdict = try #require(json.stdout.split(separator: "\n").last)
        let object = try JSONSerialization.jsonObject(with: Data(verdict.utf8)) as? [String: Any]
        #expect(object?["verdict"] as? String == "failed", "\(json)")
        #expect((object?["reason"] as? String)?.contains("4 events are missing") == true, "\(json)")

        let export = try await sandbox.run(["export", "--journal", sandbox.journal, "--password-file", passwordFile])
        #expect(export.status == 1, "\(export)")
        #expect(export.stdout.isEmpty, "nothing exported: \(export)")
        #expect(export.stderr.contains("🚨 4 events missing since your last session"), "the warning first: \(export)")
        #expect(export.errorLines.count == 1, "\(export)")
        #expect(export.errorLines.first?.contains("Rollback detected") == true, "\(export)")

        let document = sandbox.root + "/gifts.json"
        try writeNewFile(
            Array(
                #"{"format":"giftkeeper.export.v1","presents":[{"createdAt":"2026-12-01T09:00:01.000Z","id":"p9","recipient":"Ann","status":"idea","title":"Kite","updatedAt":"2026-12-01T09:00:01.000Z"}]}"#
                    .utf8), to: document)
        let imported = try await sandbox.run(["import", "--journal", sandbox.journal, "--password-file", passwordFile, document])
        #expect(imported.status == 1, "\(imported)")
        #expect(imported.errorLines.count == 1, "\(imported)")
        #expect(!imported.stderr.contains("Imported"), "\(imported)")

        // A script signs in like a person, but nobody reads its warning: it stops there.
        let script = try await sandbox.script(["login", "secret-pw", "add Eve Later", "list"])
        #expect(script.status == 1, "\(script)")
        #expect(script.errorLines.first?.contains("Rollback detected") == true, "\(script)")
        #expect(!script.stdout.contains("Saved"), "\(script)")

        // The evidence is intact: the state file is as the last good session left it, the
        // journal is the copy as it was put back (export and import refused before signing
        // in, so nothing was appended), and audit still fails.
        #expect(try headFile(sandbox).bytes == head.bytes)
        #expect(fileBytes(sandbox.journal) == copy, "export and import appended to a rolled-back journal")
        let again = try await sandbox.audits()
        #expect(again.status == 1, "\(again)")
        #expect(again.errorLines.first?.contains("Rollback detected") == true, "\(again)")
        #expect(!again.stdout.contains("p9"), "nothing was imported: \(again)")
    }
}
