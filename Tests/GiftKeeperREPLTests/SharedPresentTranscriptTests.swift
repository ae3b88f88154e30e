import Foundation
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

/// A present given together (SPEC §13, `add … --with`; issue 28 item 4) in the shell, in
/// process: the share said when it is saved, shown by `show`, counted by budgets and the
/// summary, changed with `edit … with=`, in history, undone. Alice's list.
@Suite(.serialized) struct SharedPresentTranscriptTests {
    @Test("add --with: your share is said, shown, and what budgets and the summary count")
    func sharedPresent() throws {
        let outcome = try Transcript().signedIn([
            "budget set 100 --for Mum", #"add Mum "Spa day" --price 120 --with "Bob, Carol""#, "add Mum Tea --price 10", "show p1",
            "budget", "summary",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains(#"Saved p1: "Spa day" for Mum."#), "\(outcome)")
        #expect(outcome.outputLines.contains("Given with Bob and Carol: your share 40.00 of 120.00."), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix("givers") && $0.hasSuffix("Alice, Bob, Carol") }, "\(outcome)")
        // 40.00 of the spa day and the tea: 50.00 planned of Mum's 100.00, not 130.00.
        #expect(!outcome.output.contains("over budget") && !outcome.output.contains("130.00"), "\(outcome)")
        #expect(outcome.output.contains("50.00"), "\(outcome)")
    }

    @Test("edit with=: givers changed, then alone; history says it; undo puts the givers back")
    func changingGivers() throws {
        let outcome = try Transcript().signedIn([
            #"add Dad Kayak --price 300 --with Bob"#, "edit p1 with=Bob,Carol,bob", "edit p1 with=Bob,Carol", "edit p1 with=",
            "undo", "history --last 3", "show p1",
        ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains("Given with Bob: your share 150.00 of 300.00."), "\(outcome)")
        #expect(outcome.outputLines.contains("Given with Bob and Carol: your share 100.00 of 300.00."), "\(outcome)")
        #expect(outcome.outputLines.contains("p1 already has those values; nothing changed."), "\(outcome)")
        #expect(outcome.outputLines.contains("Saved p1: given by you alone."), "\(outcome)")
        #expect(outcome.output.contains(#"p1 "Kayak" given by Alice & Bob & Carol"#), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix("givers") && $0.hasSuffix("Alice, Bob, Carol") }, "after undo: \(outcome)")
    }
}
