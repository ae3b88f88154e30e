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

    @Test("export and import keep who gives a present together; a bad giver is refused at its place")
    func giversThroughExportAndImport() throws {
        let directory = try TemporaryDirectory()
        let exported = directory.file("export.json")
        let first = try Transcript()
        let saved = try first.signedIn([
            #"add Mum "Spa day" --price 120 --with "Bob, Carol""#, "add Dad Tea", "export \(exported)", "list --json", "list --csv",
        ])
        #expect(saved.status == 0, "\(saved)")
        #expect(saved.output.contains(#""givers" : [\#n      "Alice",\#n      "Bob",\#n      "Carol"\#n    ]"#), "\(saved)")
        #expect(saved.output.contains(#""givers" : null"#), "\(saved)")
        #expect(saved.output.contains(",givenAt,givers\r\n"), "\(saved)")
        #expect(saved.output.contains(#","Alice, Bob, Carol"\#r\#n"#), "\(saved)")
        let document = String(decoding: try #require(fileBytes(exported)), as: UTF8.self)
        #expect(document.contains(#""givers" : [\#n        "Alice",\#n        "Bob",\#n        "Carol"\#n      ],"#), "\(document)")
        // Only a present given together has them: documents without read as before.
        #expect(document.components(separatedBy: "\"givers\"").count == 2, "\(document)")

        let second = try Transcript()
        let again = directory.file("again.json")
        let imported = try second.signedIn([
            "import \(exported)", "export \(again)", "show p1", "budget set 100 --for Mum", "budget",
        ])
        #expect(imported.status == 0, "\(imported)")
        #expect(fileBytes(again) == fileBytes(exported))
        #expect(imported.outputLines.contains { $0.hasPrefix("givers") && $0.hasSuffix("Alice, Bob, Carol") }, "\(imported)")
        #expect(imported.output.contains("40.00") && !imported.output.contains("over budget"), "\(imported)")

        // A spreadsheet's `givers` (or `with`) column, names separated by commas.
        let sheet = directory.file("sheet.csv")
        try Data("recipient,title,price,with\r\nMum,Spa day,120,\"Alice, Bob, Carol\"\r\nDad,Tea,,\r\n".utf8).write(
            to: URL(fileURLWithPath: sheet))
        let fromSheet = try Transcript().signedIn(["import \(sheet)", "show p1", "show p2"])
        #expect(fromSheet.status == 0, "\(fromSheet)")
        #expect(fromSheet.outputLines.filter { $0.hasPrefix("givers") }.count == 1, "\(fromSheet)")
        #expect(fromSheet.outputLines.contains { $0.hasPrefix("givers") && $0.hasSuffix("Alice, Bob, Carol") }, "\(fromSheet)")

        let bad = directory.file("bad.json")
        try Data(document.replacingOccurrences(of: #""Carol""#, with: #""Ca\u001brol""#).utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try Transcript().signedIn(["import \(bad)", "list"])
        #expect(refused.errors.contains("presents[0].givers"), "\(refused.output) \(refused.errors)")
        #expect(refused.output.contains("No presents"), "nothing imported: \(refused)")
    }
}
