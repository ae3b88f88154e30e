import Foundation
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

/// People (SPEC §10.1, issue 29 item 4) in the shell, in process: `person set`, `person
/// NAME` with its presents and budgets, everyone, errors, history, undo, `--json`, and a
/// profile through export and import. The clock starts on 2026-11-24 09:00 UTC.
@Suite(.serialized) struct PeopleTranscriptTests {
    static let mum = [
        #"add Mum "Blue scarf" --price 25 --occasion "Christmas 2026""#, "add mum Book --price 10", "mark p2 given",
        "budget set 100 --for Mum",
        #"person set mum sizes="M, shoes 39" likes="tea, gardening" dislikes=lilies birthday=1961-12-10"#,
    ]

    @Test("person set, then person NAME: the profile, birthday, presents not given, what was given, budgets")
    func profile() throws {
        let outcome = try Transcript().signedIn(Self.mum + ["person MUM", "occasion list"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains("Saved Mum's profile: sizes, likes, dislikes set; birthday 1961-12-10, every year."))
        #expect(
            outcome.output.contains(
                """
                Mum
                  birthday  1961-12-10, every year, next in 16 days
                  sizes     M, shoes 39
                  likes     tea, gardening
                  dislikes  lilies
                Presents not given yet:
                  p1 Blue scarf (idea, 25.00, Christmas 2026)
                """), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix(#"Given: 1 present, last "Book" on 2026-11-24."#) }, "\(outcome)")
        #expect(outcome.outputLines.contains("Budget for Mum (2026): 100.00, 65.00 left."), "\(outcome)")
        // The birthday is a yearly occasion like any other.
        #expect(outcome.outputLines.contains { $0.hasPrefix("Mum's birthday  1961-12-10 yearly  in 16 days") }, "\(outcome)")
    }

    @Test("Changing, clearing and undoing fields; history says each in words; everyone in a table")
    func changes() throws {
        let outcome = try Transcript().signedIn(
            Self.mum + [
                "person set Mum likes=tea dislikes=", "person set Mum likes=tea", "history --recipient mum --last 3", "undo",
                "person set Zoë address=\"1 High St\"", "person",
            ])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.outputLines.contains("Saved Mum's profile: likes set; dislikes cleared."), "\(outcome)")
        #expect(outcome.outputLines.contains("Mum's profile already says that; nothing changed."), "\(outcome)")
        #expect(outcome.output.contains(#"Mum's likes "tea, gardening" → "tea""#), "\(outcome)")
        #expect(outcome.output.contains(#"Mum's dislikes cleared (was "lilies")"#), "\(outcome)")
        #expect(outcome.outputLines.contains { $0.hasPrefix("Undone: ") && $0.contains(#"Mum's likes "tea, gardening" → "tea""#) }, "\(outcome)")
        #expect(
            outcome.output.contains(
                """
                PERSON  OPEN  GIVEN  BIRTHDAY    PROFILE
                ------  ----  -----  ----------  ----------------------
                Mum        1      1  in 16 days  sizes, likes, dislikes
                Zoë        0      0  -           address
                """), "\(outcome)")
    }

    @Test("Unknown fields and people, a word without '=', a bad birthday: one line each, nothing saved")
    func badInput() throws {
        let outcome = try Transcript().signedIn([
            "person set Mum liks=tea", "person set Mum tea", "person set Mum", "person set Mum birthday=1961-13-10", "person Bob",
            "person Mum extra", "history --last 1",
        ])
        #expect(outcome.errorLines.contains { $0.contains("Unknown field 'liks'. Did you mean 'likes'?") }, "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("Expected field=value, not 'tea'.") }, "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("Say what to set as field=value") }, "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("1961-13-10") }, "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("No one named 'Bob' on this list.") }, "\(outcome)")
        #expect(outcome.errorLines.contains { $0.contains("extra") }, "\(outcome)")
        #expect(!outcome.output.contains("Saved"), "\(outcome)")
    }

    @Test("person NAME --json: the profile, null for what is not set, presents and budgets")
    func json() throws {
        let outcome = try Transcript().signedIn(Self.mum + ["person mum --json"])
        let start = try #require(outcome.output.range(of: "{\n"))
        let document = try JSONSerialization.jsonObject(with: Data(outcome.output[start.lowerBound...].utf8)) as? [String: Any]
        let object = try #require(document, "\(outcome)")
        #expect(object["name"] as? String == "Mum")
        #expect(object["birthday"] as? String == "1961-12-10")
        #expect(object["nextBirthday"] as? String == "2026-12-10")
        #expect(object["likes"] as? String == "tea, gardening")
        #expect(object["address"] is NSNull)
        #expect((object["presents"] as? [Any])?.count == 2)
        #expect((object["budgets"] as? [Any])?.count == 1)
    }

    @Test("A profile goes through export and import; a document without people imports as before")
    func exportAndImport() throws {
        let directory = try TemporaryDirectory()
        let exported = directory.file("export.json")
        _ = try Transcript().signedIn(Self.mum + [#"person set Mum address="1 High St""#, "export \(exported)"])
        let document = String(decoding: try #require(fileBytes(exported)), as: UTF8.self)
        #expect(document.contains(#""people" : ["#), "\(document)")
        #expect(document.contains(#""address" : "1 High St""#), "\(document)")
        let imported = try Transcript().signedIn(["import \(exported)", "person Mum", "export \(directory.file("again.json"))"])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.outputLines.contains("  address   1 High St"), "\(imported)")
        #expect(imported.outputLines.contains("  likes     tea, gardening"), "\(imported)")
        #expect(fileBytes(directory.file("again.json")) == fileBytes(exported))
        // An unknown field in a person is refused at its place.
        let bad = directory.file("bad.json")
        try writeNewFile(
            Array(#"{"format": "giftkeeper.export.v2", "people": [{"name": "Mum", "shoe": "39"}], "presents": []}"#.utf8), to: bad)
        let refused = try Transcript().signedIn(["import \(bad)"])
        #expect(refused.errorLines.contains { $0.contains("people[0].shoe") }, "\(refused)")
    }
}
