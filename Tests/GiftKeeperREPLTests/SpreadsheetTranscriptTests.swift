import Foundation
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

/// `import --csv` and `import --merge` in the shell (SPEC §10.1): a spreadsheet's rows
/// added under the next free ids, each bad row named by its line, what `list --csv` writes
/// read back, an export added to a journal that has presents.
@Suite struct SpreadsheetTranscriptTests {
    @Test("import --csv adds the good rows under the next ids and names each bad one by its line (exit 2)")
    func importsGoodRowsNamesBadOnes() throws {
        let directory = try TemporaryDirectory()
        let sheet = directory.file("gifts.csv")
        try writeNewFile(
            Array("recipient,title,price,status\r\nMum,\"Scarf, blue\",\"12,50\",bought\r\nDad,,3,idea\r\nSam,Kite,lots,idea\r\nAnn,Mug,,\r\n".utf8),
            to: sheet)
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(["add Zoe Book", "import --csv \(sheet)", "list"])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(
            outcome.errorLines == [
                "giftkeeper: error: Line 3 not imported. The title cannot be empty. Type a title with at least one visible character.",
                "giftkeeper: error: Line 4 not imported. 'lots' is not a price: 'l' is not allowed. Type an amount such as 25, 25.50 or 25,50.",
            ], "\(outcome)")
        #expect(outcome.output.contains("Imported 2 presents as p2–p3 (saved in 1 batch)."), "\(outcome)")
        #expect(outcome.output.contains("Scarf, blue"), "\(outcome)")
        #expect(outcome.output.contains("Mug"), "\(outcome)")
    }

    @Test("What list --csv writes, import --csv reads: the same presents in another journal")
    func listCSVRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let first = try Transcript()
        let listed = try first.signedIn([
            "add Mum 'Scarf, \"blue\"' --price 25 --notes \"soft, warm\" --occasion Christmas --url https://example.com --store Shop",
            "add Dad =2+2", "mark p2 given", "list --csv --all",
        ])
        #expect(listed.status == 0, "\(listed)")
        let csv = listed.output.range(of: "id,recipient").map { String(listed.output[$0.lowerBound...]) } ?? ""
        let sheet = directory.file("listed.csv")
        try writeNewFile(Array(csv.utf8), to: sheet)
        let second = try Transcript()
        let imported = try second.signedIn(["import --csv \(sheet)", "list --csv --all"])
        #expect(imported.status == 0, "\(imported)")
        func rows(_ text: String) -> [String] {
            // Without the times (an import is made now), the rest as written.
            text.components(separatedBy: "\r\n").filter { $0.contains(",") }.map { row in
                row.components(separatedBy: ",").prefix(7).joined(separator: ",")
            }
        }
        #expect(rows(csv).count == 3, "the header and two presents: \(csv)")
        #expect(rows(imported.output).suffix(2) == rows(csv).suffix(2), "\(imported)")
    }

    @Test("import --merge adds an export's presents under new ids to a journal that has presents")
    func mergeRenumbers() throws {
        let directory = try TemporaryDirectory()
        let exported = directory.file("export.json")
        let first = try Transcript()
        _ = try first.signedIn(["add Mum Scarf", "add Dad Book", "export \(exported)"])
        let second = try Transcript()
        let refused = try second.signedIn(["add Sam Kite", "import \(exported)"])
        #expect(refused.status == 2, "\(refused)")
        let merged = try second.signedIn(["import --merge \(exported)", "list"])
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.output.contains("Imported 2 presents as p2–p3"), "\(merged)")
        #expect(merged.output.contains("Scarf") && merged.output.contains("Kite"), "\(merged)")
    }

    @Test("On a terminal the rows are shown first; declined, nothing is appended")
    func previewDeclinedAppendsNothing() throws {
        let directory = try TemporaryDirectory()
        let sheet = directory.file("gifts.csv")
        var text = "recipient,title,price\n"
        for row in 1...7 { text += "Mum,Gift \(row),\(row)\n" }
        try writeNewFile(Array(text.utf8), to: sheet)
        let transcript = try Transcript()
        _ = try transcript.signedIn([])
        let before = transcript.frameCount
        let declined = try transcript.run(
            steps: [.line("correct horse"), .line("import --csv \(sheet)"), .line("n"), .line("quit")], interactive: true)
        #expect(declined.output.contains("7 presents to import from \(sheet):"), "\(declined)")
        #expect(declined.output.contains("  Mum: Gift 1 (1.00, idea)"), "\(declined)")
        #expect(declined.output.contains("  … and 2 more."), "\(declined)")
        #expect(declined.output.contains("Nothing imported."), "\(declined)")
        #expect(transcript.frameCount == before + 2)  // the sign-in and sign-out only
        let accepted = try transcript.run(
            steps: [.line("correct horse"), .line("import --csv \(sheet)"), .line("y"), .line("quit")], interactive: true)
        #expect(accepted.output.contains("Imported 7 presents as p1–p7"), "\(accepted)")
    }
}
