import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// The README's tour and the user guide's examples, run as a person would (SPEC §10.1,
/// issue 29 item 19): each transcript is typed on a terminal (tmux, a private socket)
/// under `faketime`, and the screen must show the text the document shows; each shell
/// example runs in `sh` with `giftkeeper` on the PATH.
@Suite("The README tour and the user guide's examples", .serialized)
struct DocumentationTests {
    static let password = "secret-pw"

    @Test("The README's tour, typed on a terminal, shows what the README shows; audit and export after it work")
    func readmeTour() async throws {
        let block = try #require(Documentation.blocks(in: "README.md").first { $0.lines.first == "$ make run" })
        let sandbox = try Sandbox()
        let tmux = try Tmux(prefix: "gk-docs")
        // `make run` is the shell on the default journal, in a home of its own.
        try await tmux.start(session: "tour", Documentation.launch(sandbox, at: "2026-11-24 09:00:00", journal: nil))
        let transcript = Array(block.lines.dropFirst().prefix { !$0.hasPrefix("$ ") })
        try await Documentation.play(transcript, in: "tour", tmux: tmux)
        try await tmux.waitFor("tour", text: "GK-EXIT=0")
        try Documentation.expectScreen(try await tmux.screen("tour"), shows: transcript, sandbox: sandbox)

        // The tour's last lines: audit replays and verifies; export is the list as JSON.
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array("\(Self.password)\n".utf8), to: passwordFile)
        let journal = sandbox.home + "/.local/share/giftkeeper/default.journal"
        let audit = try await sandbox.run(["audit", "--journal", journal, "--password-file", passwordFile])
        #expect(audit.status == 0, "\(audit)")
        let export = try await sandbox.run(["export", "--journal", journal, "--password-file", passwordFile])
        #expect(export.status == 0 && export.stdout.contains(#""title" : "Vinyl record""#), "\(export)")
    }

    @Test("Each transcript of the user guide, after the setup its comment names, shows what the guide shows")
    func userGuideTranscripts() async throws {
        let blocks = try Documentation.blocks(in: "docs/user-guide.md").filter { !$0.setups.isEmpty }
        #expect(blocks.count == 5, "the guide's transcripts with a setup: \(blocks.map(\.line))")
        for (index, block) in blocks.enumerated() {
            let sandbox = try Sandbox()
            for (number, setup) in block.setups.enumerated() {
                let account = number == 0 ? ["setup Alice --kdf interactive", Self.password, Self.password] : ["login", Self.password]
                let made = try await sandbox.script(at: setup.time, account + setup.commands + ["quit"])
                // A setup may give wrong passwords on purpose (exit 3), to show what the next sign-in says.
                #expect(
                    made.status == 0 || made.status == 3 && made.stderr.contains("Wrong password"),
                    "docs/user-guide.md:\(block.line): setup failed: \(made)")
            }
            let tmux = try Tmux(prefix: "gk-docs")
            let session = "example\(index)"
            try await tmux.start(session: session, Documentation.launch(sandbox, at: block.setups.last?.time ?? "", journal: sandbox.journal))
            try await tmux.waitFor(session, text: "Password:")
            try await tmux.enter(session, Self.password)
            // A transcript that does not end the session is ended after it.
            let quits = block.lines.contains("giftkeeper> quit")
            try await Documentation.play(block.lines + (quits ? [] : ["giftkeeper> quit"]), in: session, tmux: tmux)
            try await tmux.waitFor(session, text: "GK-EXIT=0")
            try Documentation.expectScreen(try await tmux.screen(session), shows: block.lines, sandbox: sandbox, at: block.line)
        }
    }

    @Test("The user guide's shell examples run in sh and do what the guide says")
    func userGuideShellExamples() async throws {
        let blocks = try Documentation.blocks(in: "docs/user-guide.md").filter(\.isShellExample)
        #expect(blocks.count == 2, "\(blocks.map(\.line))")
        for block in blocks {
            let sandbox = try Sandbox()
            // `giftkeeper` on the PATH, as `make install` puts it.
            let bin = sandbox.root + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: bin + "/giftkeeper", withDestinationPath: sandbox.binary)
            var environment = sandbox.environment
            environment["PATH"] = bin + ":/usr/bin:/bin"
            environment["XDG_DATA_HOME"] = sandbox.home + "/.local/share"
            let password: String
            let journal: String
            if block.comment.contains("gifts.journal") {
                password = "my password"
                journal = sandbox.home + "/gifts.journal"
            } else {
                password = Self.password
                journal = sandbox.home + "/.local/share/giftkeeper/default.journal"
                try writeNewFile(Array("\(password)\n".utf8), to: sandbox.home + "/.giftkeeper-password")
            }
            let made = try await sandbox.script(["setup Alice --kdf interactive", password, password, "quit"], journal: journal)
            #expect(made.status == 0, "\(made)")
            let script = "cd \"$HOME\" && " + block.lines.joined(separator: "\n")
            let outcome = try await runProgram("/bin/sh", ["-c", script], environment: environment)
            #expect(outcome.status == 0, "docs/user-guide.md:\(block.line): \(outcome)")
            #expect(outcome.stdout.contains("Blue scarf"), "docs/user-guide.md:\(block.line): \(outcome)")
        }
    }
}

extension DocumentationTests {
    @Test("What the user guide says verify and audit print on the sample journal is what they print")
    func sampleJournalFigures() async throws {
        let guide = try String(contentsOfFile: repositoryRoot + "/docs/user-guide.md", encoding: .utf8)
            .components(separatedBy: .whitespacesAndNewlines).filter { !$0.isEmpty }.joined(separator: " ")
        func quoted(after marker: String) throws -> String {
            let start = try #require(guide.range(of: marker), "the guide no longer says '\(marker)'").upperBound
            return String(guide[start...].prefix { $0 != "`" })
        }
        let sandbox = try Sandbox()
        let journal = sandbox.root + "/demo.journal"
        try writeNewFile(try #require(fileBytes(repositoryRoot + "/journal/demo.journal")), to: journal)
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array("demo-password\n".utf8), to: passwordFile)
        let verify = try await sandbox.run(["verify", "--journal", journal])
        #expect(verify.stdout.contains(try quoted(after: "On the sample journal (`journal/demo.journal`) it prints `")), "\(verify)")
        let audit = try await sandbox.run(["audit", "--journal", journal, "--password-file", passwordFile])
        #expect(audit.stdout.contains(try quoted(after: "verdict, on the sample journal `")), "\(audit)")
    }
}

/// Fenced blocks of a document and the screen a transcript leaves.
enum Documentation {
    struct Block {
        /// The line of the opening fence (1-based).
        var line: Int
        var lines: [String]
        /// The `<!-- example: … -->` comment just above the block, if any.
        var comment: String
        var isShellExample: Bool { comment.hasPrefix("sh") }
        /// `<!-- example: TIME | command | … -->`: the journal made at TIME with the commands.
        var setups: [(time: String, commands: [String])] = []
    }

    static func blocks(in file: String) throws -> [Block] {
        let text = try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
        var blocks: [Block] = []
        var comments: [String] = []
        var open: Block?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    var block = Block(line: index + 1, lines: [], comment: comments.last ?? "")
                    block.setups = comments.filter { !$0.hasPrefix("sh") }.map { comment in
                        let parts = comment.components(separatedBy: " | ")
                        return (parts[0], Array(parts.dropFirst()))
                    }
                    open = block
                }
                comments = []
            } else if open != nil {
                open?.lines.append(line)
            } else if line.hasPrefix("<!-- example: "), line.hasSuffix(" -->") {
                comments.append(String(line.dropFirst("<!-- example: ".count).dropLast(" -->".count)))
            } else {
                comments = []
            }
        }
        return blocks
    }

    /// The shell started in tmux under faketime from `time`, in the sandbox's home.
    static func launch(_ sandbox: Sandbox, at time: String, journal: String?) -> String {
        "cd '\(sandbox.home)' && env -u GIFTKEEPER_JOURNAL HOME='\(sandbox.home)' XDG_STATE_HOME='\(sandbox.state)' "
            + "XDG_DATA_HOME='\(sandbox.home)/.local/share' LANG=C.UTF-8 TZ=UTC \(Sandbox.faketime) -f '@\(time)' "
            + "'\(sandbox.binary)'" + (journal.map { " --journal '\($0)'" } ?? "")
    }

    static let prompts = ["giftkeeper (new)> ", "giftkeeper> "]
    /// What the shell asks after a command (its answer follows on the same line).
    static let questions = [
        "New password:", "Repeat the password:", "Recipient:", "Title:", "Price (Enter skips):", "Occasion (Enter skips):",
        "Notes (Enter skips):", "URL (Enter skips):", "Store (Enter skips):",
    ]

    /// Types the transcript's commands and answers, each when the shell asks for it: a
    /// command once a new prompt is on the last line (not the one the previous command was
    /// typed at, which shows bare until the shell has read the keys), an answer once its
    /// question is.
    static func play(_ transcript: [String], in session: String, tmux: Tmux) async throws {
        func promptCount(_ screen: String) -> Int {
            screen.components(separatedBy: "\n").filter { line in prompts.contains { line.hasPrefix($0.dropLast()) } }.count
        }
        var typedAt = 0
        for line in transcript {
            if let prompt = prompts.first(where: line.hasPrefix) {
                let bare = String(prompt.dropLast())
                let screen = try await tmux.waitFor(session, "a new prompt '\(bare)'") {
                    promptCount($0) > typedAt && Tmux.lastLine(of: $0) == bare
                }
                typedAt = promptCount(screen)
                try await tmux.enter(session, String(line.dropFirst(prompt.count)))
            } else if let question = questions.first(where: line.hasPrefix) {
                try await tmux.waitFor(session, "the question '\(question)'") { Tmux.lastLine(of: $0).hasPrefix(question) }
                let answer =
                    question.hasSuffix("password:")
                    ? DocumentationTests.password : String(line.dropFirst(question.count)).trimmingCharacters(in: .whitespaces)
                try await tmux.enter(session, answer)
            }
        }
    }

    /// The transcript's lines, as the screen shows them: a password's `(nothing is echoed)`
    /// note and trailing blanks left out.
    static func expectScreen(
        _ screen: String, shows transcript: [String], sandbox: Sandbox, at line: Int = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        func trimmed(_ text: String) -> String { String(text.reversed().drop { $0 == " " }.reversed()) }
        let expected = transcript.map { trimmed($0.replacingOccurrences(of: "(nothing is echoed)", with: "")) }
        let shown = screen.replacingOccurrences(of: sandbox.home, with: "~").components(separatedBy: "\n").map(trimmed)
        let start = try #require(shown.firstIndex(of: expected[0]), "line \(line): '\(expected[0])' is not on the screen:\n\(screen)")
        let actual = Array(shown[start...].prefix(expected.count))
        for (offset, (want, got)) in zip(expected, actual).enumerated() where want != got {
            Issue.record(
                "line \(line)+\(offset + 1): the document says\n\(want)\nthe screen shows\n\(got)\nThe screen:\n\(screen)",
                sourceLocation: sourceLocation)
            return
        }
        #expect(actual.count == expected.count, "the screen ends early:\n\(screen)", sourceLocation: sourceLocation)
    }
}
