import Foundation
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

/// A closed occasion through export and import (SPEC §10.1): the export carries the day it
/// was closed through, and the import closes it again without carrying any idea over.
@Suite("Closed occasions in export and import")
struct ClosedOccasionExportTests {
    @Test("A closed occasion stays closed through export and import; its ideas come back as exported")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let exported = directory.file("export.json")
        let first = try Transcript()
        _ = try first.signedIn([
            "occasion add Christmas --date 2026-12-24 --yearly", #"occasion add "Party 2026" --date 2026-12-20"#,
            "occasion add Easter --date 2027-04-04", "add Mum Scarf --occasion Christmas", #"add Zoë Kite --occasion "Party 2026""#,
        ])
        // 2026-12-28: both are over.
        first.clock.advance(days: 34)
        let closed = try first.signedIn(["occasion close Christmas", #"occasion close "Party 2026""#, "export \(exported)"])
        #expect(closed.status == 0, "\(closed)")
        let document = String(decoding: try #require(fileBytes(exported)), as: UTF8.self)
        #expect(document.contains(#""closedThrough" : "2026-12-24",\#n      "date" : "2026-12-24""#), "\(document)")
        #expect(document.contains(#""closedThrough" : "2026-12-20""#), "\(document)")
        #expect(!document.contains(#""closedThrough" : "2027"#), "Easter is open: \(document)")

        let second = try Transcript()
        second.clock.advance(days: 34)
        let imported = try second.signedIn([
            "import \(exported)", "occasion close Christmas", #"occasion close "Party 2026""#, "upcoming --days 365", "list",
        ])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.outputLines.contains(#""Christmas" is already closed for 2026-12-24; nothing changed."#), "\(imported)")
        #expect(imported.outputLines.contains(#""Party 2026" is already closed for 2026-12-20; nothing changed."#), "\(imported)")
        #expect(imported.outputLines.contains("Christmas: 2027-12-24, in 361 days"), "\(imported)")
        #expect(imported.outputLines.contains { $0.hasPrefix("p2") && $0.contains("Kite") && !$0.contains("Party") }, "\(imported)")
        // The same export again adds nothing: the closures are there already.
        let again = directory.file("again.json")
        _ = try second.signedIn(["export \(again)"])
        #expect(fileBytes(again) == fileBytes(exported))
    }

    @Test("A v2 document without closedThrough imports open; one on an undated occasion is rejected at its date")
    func olderAndBadDocuments() throws {
        let directory = try TemporaryDirectory()
        func document(_ occasion: String) -> String {
            #"{"format": "giftkeeper.export.v2", "occasions": [\#(occasion)], "presents": []}"#
        }
        let open = directory.file("open.json")
        try writeNewFile(Array(document(#"{"date": "2026-12-24", "name": "Christmas", "yearly": true}"#).utf8), to: open)
        let undated = directory.file("undated.json")
        try writeNewFile(Array(document(#"{"closedThrough": "2026-12-24", "date": null, "name": "Someday", "yearly": false}"#).utf8), to: undated)
        let transcript = try Transcript()
        let outcome = try transcript.signedIn(["import \(open)", "upcoming --days 60", "import \(undated)"])
        #expect(outcome.outputLines.contains("Christmas: 2026-12-24, in 30 days"), "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("Import rejected at occasions[0].date: it is missing") }, "\(outcome)")
    }
}
