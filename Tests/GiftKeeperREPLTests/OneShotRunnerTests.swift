import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// The one runner every one-shot shares (``REPLSession/runOneShotTask(_:)``): the shell's
/// commands, `export`, `import` and `sync` open, sign in, run, sign out and close through it,
/// and its failures are worded and numbered by the one presenter.
@Suite struct OneShotRunnerTests {
    @Test("A one-shot signs in, runs its command, and signs out: all three recorded")
    func signsInRunsAndSignsOut() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn(["add Mum Scarf --price 20"])
        let before = transcript.frameCount
        let outcome = try transcript.oneShot(input: ["correct horse"]) { $0.runOneShot(["list"]) }
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.output.contains("Scarf"), "\(outcome)")
        #expect(outcome.errorLines.isEmpty, "\(outcome)")
        #expect(outcome.notifications.count == 2, "\(outcome)")  // signed in, signed out
        #expect(transcript.frameCount == before + 2)
    }

    @Test("No journal: exit 4 and one line, before any password is read")
    func noJournalIsExitFour() throws {
        let transcript = try Transcript()
        var ran = false
        let outcome = try transcript.oneShot(input: []) { session in
            session.runOneShotTask { _ in ran = true }
        }
        #expect(outcome.status == 4, "\(outcome)")
        #expect(outcome.errorLines.count == 1, "\(outcome)")
        #expect(!ran)
        #expect(transcript.frameCount == 0)
    }

    @Test("A wrong password: exit 3, the task never runs, the failure is recorded")
    func wrongPasswordIsExitThree() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([])
        let before = transcript.frameCount
        var ran = false
        let outcome = try transcript.oneShot(input: ["wrong horse"]) { session in
            session.runOneShotTask { session in
                try session.signIn()
                ran = true
            }
        }
        #expect(outcome.status == 3, "\(outcome)")
        #expect(!ran)
        #expect(transcript.frameCount == before + 1)
    }

    @Test("A task cancelled (Ctrl-C) exits 130 with a note, signed out as it ends")
    func cancelledTaskIsExit130() throws {
        let transcript = try Transcript()
        _ = try transcript.signedIn([])
        let before = transcript.frameCount
        let outcome = try transcript.oneShot(input: ["correct horse"]) { session in
            session.runOneShotTask { session in
                try session.signIn()
                throw ServiceError(.cancelled)
            }
        }
        #expect(outcome.status == 130, "\(outcome)")
        #expect(outcome.errorLines == ["Cancelled."], "\(outcome)")
        #expect(transcript.frameCount == before + 2)  // the sign-in and the sign-out
    }
}
