import Foundation
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// The prompts for missing arguments and the idle sign-out, in process (``Transcript``,
/// steps: lines, Ctrl-C, waits of the injected clock, Tab).
@Suite struct PromptTranscriptTests {
    static let signIn: [Transcript.Step] = [.line("login"), .line("correct horse")]

    /// A transcript with Alice's journal holding Mum's scarf (p1) and a Christmas occasion.
    static func journal() throws -> Transcript {
        let transcript = try Transcript()
        let setUp = try transcript.signedIn([#"add Mum Scarf --occasion "Christmas 2026""#, "add Dad Pen", "occasion add 'Easter 2027'"])
        #expect(setUp.status == 0, "\(setUp)")
        return transcript
    }

    @Test("Tab at an argument prompt completes what the command line completes at that argument")
    func completionAtPrompts() throws {
        let transcript = try Self.journal()
        let outcome = try transcript.run(
            steps: Self.signIn + [
                .line("mark"), .tab("p"), .line("p1"), .tab("b"), .line("bought"),
                .line("add"), .tab("m"), .line("Mum"), .tab("Blue"), .line("Blue hat"),
                .line("occasion remove"), .tab("eas"), .line("Easter 2027"),
                .line("edit p2"), .tab("price=3 no"), .line("price=3 notes=ink"),
                .line("gifts"), .tab("D"), .line("Dad"),
            ])
        #expect(outcome.errors == "", "\(outcome)")
        #expect(
            outcome.completions == [
                ["p1", "p2"], ["bought"],
                ["Mum"], [],
                ["Easter 2027"],
                ["notes="],
                ["Dad"],
            ], "\(outcome)")
        #expect(outcome.output.contains("Saved p1: marked bought."), "\(outcome)")
        #expect(outcome.output.contains(#"Saved p3: "Blue hat" for Mum."#), "\(outcome)")
        #expect(outcome.output.contains(#"Removed occasion "Easter 2027"."#), "\(outcome)")
        #expect(outcome.output.contains("Saved p2: price, notes changed."), "\(outcome)")
    }

    @Test("What completes at setup's name prompt and after 'occasion rm'")
    func completionOfNamesAndOptions() throws {
        let transcript = try Self.journal()
        let session = try transcript.session()
        func complete(_ words: [String], _ word: String) -> [String] {
            session.completions(for: CompletionRequest(line: "", precedingWords: words, word: word))
                .filter { $0.lowercased().hasPrefix(word.lowercased()) }
        }
        #expect(complete(["setup"], "") == [])
        #expect(complete(["setup"], "--") == ["--kdf", "--currency"])
        #expect(complete(["setup", "Alice", "--kdf"], "") == ["interactive", "moderate", "sensitive"])
        // Option names complete in every command (SPEC §10.1), their values where they are fixed.
        #expect(complete(["list"], "--st") == ["--status"])
        #expect(complete(["list", "--status"], "") == ["idea", "bought", "wrapped", "given"])
        #expect(complete(["add", "Mum", "Scarf"], "--o") == ["--occasion"])
        let outcome = try transcript.run(steps: Self.signIn + [.line("occasion rm"), .tab("eas"), .interrupt])
        #expect(outcome.completions == [["Easter 2027"]], "\(outcome)")
    }

    @Test("Ctrl-C at an argument prompt cancels the command: nothing recorded, the session goes on")
    func interruptAtAPrompt() throws {
        let transcript = try Self.journal()
        let before = transcript.frameCount
        let outcome = try transcript.run(
            steps: Self.signIn + [.line("add"), .line("Aunt May"), .interrupt, .line("mark p1"), .interrupt, .line("list")])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.errorLines == ["Cancelled.", "Cancelled."], "\(outcome)")
        #expect(outcome.output.contains("2 presents"), "\(outcome)")
        #expect(!outcome.output.contains("Aunt May"), "\(outcome)")
        // Signed in and out, nothing else.
        #expect(transcript.frameCount == before + 2)
    }

    @Test("In a script, 'add' alone reads the recipient and the title and nothing more; the next line is a command")
    func addInAScript() throws {
        let transcript = try Self.journal()
        let outcome = try transcript.signedIn(["add", "Aunt May", "Tea", "list 'Aunt May'"])
        #expect(outcome.errors == "", "\(outcome)")
        #expect(outcome.output.contains(#"Saved p3: "Tea" for Aunt May."#), "\(outcome)")
        #expect(outcome.output.contains("1 present"), "\(outcome)")
    }

    @Test("After the idle time at the prompt the shell signs out by itself, recorded, said with (idle)")
    func idleSignOut() throws {
        let transcript = try Self.journal()
        let before = transcript.frameCount
        let outcome = try transcript.run(
            steps: Self.signIn + [.wait(minutes: 9), .line("list"), .wait(minutes: 10), .line("list")],
            lockAfterMinutes: 10)
        // Nine minutes are not ten: the first list runs; then the shell signs out.
        #expect(outcome.shown == ["🔒 Signed out (idle)"], "\(outcome)")
        #expect(outcome.output.contains("2 presents"), "\(outcome)")
        #expect(outcome.errorLines == ["giftkeeper: error: You are signed out. Type 'login' first."], "\(outcome)")
        // Signed in, then out by itself (recorded as any sign-out), and nothing more at the end.
        #expect(outcome.notifications == ["🔓 Signed in as Alice"], "\(outcome)")
        #expect(transcript.frameCount == before + 2)
    }

    @Test("Signed out while idle at an argument prompt: the command is cancelled; 0 never signs out")
    func idleAtAPromptAndNever() throws {
        let transcript = try Self.journal()
        let outcome = try transcript.run(steps: Self.signIn + [.line("show"), .wait(minutes: 11)], lockAfterMinutes: 10)
        #expect(outcome.shown == ["🔒 Signed out (idle)"], "\(outcome)")
        #expect(outcome.errorLines == ["Cancelled."], "\(outcome)")

        let never = try transcript.run(steps: Self.signIn + [.wait(minutes: 600), .line("list")])
        #expect(never.shown == [], "\(never)")
        #expect(never.errors == "", "\(never)")
        #expect(never.notifications == ["🔓 Signed in as Alice", "🔒 Signed out"], "\(never)")
    }
}
