import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// Distinctive secrets of one session: none may appear, as UTF-8 bytes, in any file
/// the program leaves behind.
enum Secrets {
    static let name = "Zebediah-Quillfeather"
    static let recipient = "Aunt-Xanthippe-Vorhees"
    static let title = "Ocarina-of-Midnight-Marmalade"
    static let notes = "Hidden-behind-the-boiler-42"
    static let occasion = "Solstice-Jamboree-2031"
    static let editedTitle = "Kaleidoscope-Quetzal-7"
    static let password = "Pw-Horse-Battery-Staple-919"
    static let newPassword = "Pw-Marzipan-Lighthouse-737"
    static let store = "Emporium-of-Yggdrasil-Fables"
    static let url = "https://example.org/Wunderkammer-Figurine-55"
    static let secondOccasion = "Grandmother-Ottoline-Jubilee"

    static let all = [name, recipient, title, notes, occasion, editedTitle, password, newPassword, store, url, secondOccasion]

    /// The secrets found in the files under `sandbox` (other than `excluding`), as "secret in path".
    static func leaks(in sandbox: Sandbox, excluding excluded: Set<String> = []) -> [String] {
        var found: [String] = []
        for path in sandbox.allFiles() where !excluded.contains(path) {
            guard let bytes = fileBytes(path) else {
                found.append("unreadable: \(path)")
                continue
            }
            for secret in all where occurs(Array(secret.utf8), in: bytes) {
                found.append("\(secret) in \(path)")
            }
        }
        return found
    }

    /// Files under the sandbox whose name suggests a command history.
    static func historyFiles(in sandbox: Sandbox) -> [String] {
        sandbox.allFiles().filter { path in
            let name = URL(fileURLWithPath: path).lastPathComponent.lowercased()
            return name.contains("hist") || name.hasSuffix("_history") || name == ".inputrc"
        }
    }
}

@Suite("Secrets at rest", .programSlot)
struct SecretsTests {
    @Test("after a full session, no secret is in any file, and no history file exists")
    func nothingInClear() async throws {
        let sandbox = try Sandbox()
        let export = sandbox.root + "/asked-for-export.json"
        let outcome = try await sandbox.script([
            "setup \(Secrets.name) --kdf interactive", Secrets.password, Secrets.password,
            "add \(Secrets.recipient) \(Secrets.title) --price 99.99 --notes \(Secrets.notes) --occasion \(Secrets.occasion)",
            "add \(Secrets.recipient) Second --notes \(Secrets.notes)",
            "mark p1 bought",
            // Planning: occasions, budgets, url and store are encrypted like the rest.
            "occasion add \(Secrets.occasion) --date 2031-06-21 --yearly",
            "occasion add \(Secrets.secondOccasion) --date 2031-01-01",
            "budget set 50 --for \(Secrets.recipient) --occasion \(Secrets.occasion)",
            "edit p1 store=\(Secrets.store) url=\(Secrets.url)",
            "undo", "edit p1 store=\(Secrets.store) url=\(Secrets.url)",
            "upcoming --days 3000", "summary", "gifts \(Secrets.recipient)", "history p1", "budget",
            "edit p2 title=\(Secrets.editedTitle)",
            "remove p2",
            "history",
            "export \(export)",
            "passwd", Secrets.password, Secrets.newPassword, Secrets.newPassword,
            "signout",
            "login", Secrets.newPassword,
            "list",
            "quit",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("Saved p2: title changed."), "\(outcome)")
        // The export is the one file meant to hold them in clear.
        #expect(fileBytes(export).map { occurs(Array(Secrets.title.utf8), in: $0) } == true)
        // The subcommands leave nothing either (a password file is the user's own secret).
        let audit = try await sandbox.run(["audit", "--journal", sandbox.journal], input: Secrets.newPassword + "\n")
        #expect(audit.status == 0, "\(audit)")
        let exported = try await sandbox.run(["export", "--journal", sandbox.journal], input: Secrets.newPassword + "\n")
        #expect(exported.stdout.contains(Secrets.title))

        let files = sandbox.allFiles()
        #expect(files.contains(sandbox.journal))
        #expect(files.contains { $0.hasPrefix(sandbox.state + "/giftkeeper/") }, "no remembered head in \(files)")
        #expect(Secrets.leaks(in: sandbox, excluding: [export]) == [])
        #expect(Secrets.historyFiles(in: sandbox) == [])
        // HOME itself stays empty: state and data went to the XDG directories.
        #expect(files.filter { $0.hasPrefix(sandbox.home + "/") } == [])
    }
}
