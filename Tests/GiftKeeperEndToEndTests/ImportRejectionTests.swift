import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// `giftkeeper import` checks the document before it opens the journal or asks for the
/// password (SPEC §6: rejected whole "with nothing appended"): not even a sign-in is recorded.
@Suite("Import rejections", .programSlot)
struct ImportRejectionTests {
    private static let valid =
        #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p1","notes":"","occasion":"","price":"25.00","recipient":"Mum","status":"idea","title":"Scarf","updatedAt":"2026-12-01T09:00:01.000Z"}"#

    private static func document(_ presents: String) -> String {
        #"{"account":{"name":"Alice"},"format":"giftkeeper.export.v1","presents":[\#(presents)]}"#
    }

    private static func present(_ from: String, _ to: String) -> String {
        valid.replacingOccurrences(of: from, with: to)
    }

    /// A sandbox journal with one present, and a password file for it (mode 0600).
    private func journalAndPasswordFile() async throws -> (Sandbox, String) {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: ["Dad Book"])
        let passwordFile = sandbox.root + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile)
        return (sandbox, passwordFile)
    }

    /// The remembered-head files and their bytes.
    private func stateFiles(_ sandbox: Sandbox) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for path in sandbox.allFiles() where path.hasPrefix(sandbox.state + "/") {
            files[path] = fileBytes(path)
        }
        return files
    }

    @Test(
        "a malformed document: exit 2, one error line naming the field, the journal byte for byte unchanged",
        arguments: [
            ("broken JSON", #"{"format": "giftkeeper.export.v1", "presents": [}"#, "at line 1, column "),
            ("another format", #"{"format": "giftkeeper.export.v9", "presents": []}"#, "at 'format'"),
            ("an unknown field", document(present(#""title""#, #""titel""#)), "at presents[0].titel"),
            ("a negative price", document(present(#""25.00""#, #""-5""#)), "at presents[0].price"),
            ("an unknown status", document(present(#""idea""#, #""lost""#)), "at presents[0].status"),
            ("a duplicate id", document(valid + "," + valid), "at presents[1].id"),
            ("an empty title", document(present(#""Scarf""#, #""""#)), "at presents[0].title"),
        ])
    func malformedDocument(label: String, text: String, location: String) async throws {
        let (sandbox, passwordFile) = try await journalAndPasswordFile()
        let bad = sandbox.root + "/bad.json"
        try writeNewFile(Array(text.utf8), to: bad)
        let journalBefore = try #require(fileBytes(sandbox.journal))
        let stateBefore = stateFiles(sandbox)
        #expect(!stateBefore.isEmpty)

        let outcome = try await sandbox.run(["import", "--journal", sandbox.journal, "--password-file", passwordFile, bad])
        #expect(outcome.status == 2, "\(label): \(outcome)")
        #expect(outcome.stderrLines.count == 1, "\(label): nothing but the error, no sign-in: \(outcome)")
        #expect(outcome.errorLines.count == 1, "\(label): \(outcome)")
        #expect(outcome.errorLines.first?.contains("Import rejected \(location)") == true, "\(label): \(outcome)")
        #expect(outcome.errorLines.first?.contains("Nothing was imported") == true, "\(label): \(outcome)")
        #expect(fileBytes(sandbox.journal) == journalBefore, "\(label): the journal changed")
        #expect(stateFiles(sandbox) == stateBefore, "\(label): the remembered head changed")
    }

    @Test("a malformed document is rejected before the password is asked for")
    func rejectedBeforeThePassword() async throws {
        let (sandbox, _) = try await journalAndPasswordFile()
        let bad = sandbox.root + "/bad.json"
        try writeNewFile(Array(Self.document(Self.present(#""25.00""#, #""abc""#)).utf8), to: bad)
        let before = try #require(fileBytes(sandbox.journal))
        // No --password-file and nothing on standard input: a password read would fail.
        let outcome = try await sandbox.run(["import", "--journal", sandbox.journal, bad])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("Import rejected at presents[0].price") == true, "\(outcome)")
        #expect(!outcome.stderr.contains("assword"), "\(outcome)")
        #expect(fileBytes(sandbox.journal) == before)
    }

    @Test("an id already in the journal is found after signing in: exit 2, no present added")
    func idAlreadyInTheJournal() async throws {
        let (sandbox, passwordFile) = try await journalAndPasswordFile()
        let taken = sandbox.root + "/taken.json"
        try writeNewFile(Array(Self.document(Self.valid).utf8), to: taken)  // p1 is "Dad Book"
        let outcome = try await sandbox.run(["import", "--journal", sandbox.journal, "--password-file", passwordFile, taken])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(outcome.errorLines.first?.contains("Import rejected at presents[0].id") == true, "\(outcome)")
        let list = try await sandbox.script(["login", "secret-pw", "list"])
        #expect(list.stdout.contains("Book") && !list.stdout.contains("Scarf"), "\(list)")
    }
}
