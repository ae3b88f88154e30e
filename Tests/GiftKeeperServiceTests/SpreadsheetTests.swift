import Foundation
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperService

/// Reading spreadsheets (SPEC §10.1, `import --csv`): RFC 4180 as spreadsheets write it,
/// columns by header name, each bad row set aside with its line.
@Suite struct SpreadsheetTests {
    private func records(_ text: String) throws -> [CSVReader.Record] {
        try CSVReader.records(Array(text.utf8))
    }

    @Test("Quotes, doubled quotes, commas and line breaks in cells, CRLF, a BOM, blank lines")
    func readsWhatSpreadsheetsWrite() throws {
        let text = "\u{FEFF}recipient,title,notes\r\nMum,\"Scarf, blue\",\"She said \"\"soft\"\"\"\r\n\r\nDad,Book,\"line one\nline two\"\r\n"
        let read = try records(text)
        #expect(read.map(\.line) == [1, 2, 4])
        #expect(read[0].fields == ["recipient", "title", "notes"])
        #expect(read[1].fields == ["Mum", "Scarf, blue", "She said \"soft\""])
        #expect(read[2].fields == ["Dad", "Book", "line one\nline two"])
    }

    @Test("A semicolon or tab header sets the delimiter; a quote never closed names its line")
    func delimitersAndUnclosedQuotes() throws {
        #expect(try records("recipient;title\nMum;Scarf, blue\n").last?.fields == ["Mum", "Scarf, blue"])
        #expect(try records("recipient\ttitle\nMum\tScarf\n").last?.fields == ["Mum", "Scarf"])
        #expect(throws: CSVReader.Failure.unterminatedQuote(line: 3)) {
            try records("recipient,title\nMum,Scarf\nDad,\"Book\nno end")
        }
        #expect(throws: CSVReader.Failure.notText) { try CSVReader.records([0x72, 0xFF, 0x0A]) }
    }

    @Test("Columns by name in any order and case; bad rows named by line; removed rows left out; the formula guard undone")
    func checksRowByRow() throws {
        let text = """
            Title,RECIPIENT,price,status,occasion,id,Colour,removed
            Scarf,Mum,"12,50",bought,Christmas,p4,red,false
            ,Dad,5,idea,,p5,,false
            Kite,Sam,lots,idea,,p6,,false
            Old,Sam,,idea,,p7,,true
            '=SUM(A1),Ann,,given,,p8,,false
            Mug,Ann,3,idea,,p9,,false,extra

            """
        let sheet = try ImportDocument.checkSpreadsheet(Array(text.utf8))
        #expect(sheet.presents.map(\.title) == ["Scarf", "=SUM(A1)"])
        #expect(sheet.presents.map(\.recipient) == ["Mum", "Ann"])
        #expect(sheet.presents.first?.price?.description == "12.50")
        #expect(sheet.presents.map(\.status) == [.bought, .given])
        #expect(sheet.presents.first?.occasion == "Christmas")
        #expect(sheet.rejected.map(\.line) == [3, 4, 7])
        #expect(sheet.rejected.first?.reason == .rule(.emptyValue(.title)))
        #expect(sheet.rejected.last?.reason == .tooManyFields(9, header: 8))
        #expect(sheet.removedSkipped == 1)
        #expect(sheet.unreadColumns == ["Colour"])
    }

    @Test("A file without a title or recipient column, or without any row, is refused whole")
    func refusedWhole() {
        func rejection(_ text: String) -> ImportDocument.Rejection? {
            do {
                _ = try ImportDocument.checkSpreadsheet(Array(text.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(rejection("recipient,price\nMum,3\n") == .init(location: "line 1", reason: .missingColumn("title")))
        #expect(rejection("") == .init(location: "the file", reason: .noHeader))
    }

    /// A LibreOffice-style spreadsheet of 1,000 rows (seeded): cells with commas, quotes and
    /// line breaks, a BOM, CRLF; one row in ten breaks a rule. Every good row is taken with
    /// its cells as written, every bad one named by the line it begins on.
    @Test func aThousandRows() throws {
        var random = TestRandom()
        var text = "\u{FEFF}recipient,title,price,status,notes\r\n"
        var line = 2
        var expectedTitles: [String] = []
        var expectedNotes: [String] = []
        var expectedBad: [Int] = []
        for row in 0..<1000 {
            let bad = random.next() % 10 == 0
            let title = bad ? "" : "Gift \(row), \"the \(random.next() % 100)\""
            let notes = random.next() % 3 == 0 ? "first\nsecond, third" : "plain"
            let price = "\(random.next() % 500),\(random.next() % 90 + 10)"
            func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            text += "Person \(row % 7),\(quoted(title)),\(quoted(price)),idea,\(quoted(notes))\r\n"
            if bad {
                expectedBad.append(line)
            } else {
                expectedTitles.append(title)
                expectedNotes.append(notes)
            }
            line += notes.contains("\n") ? 2 : 1
        }
        let sheet = try ImportDocument.checkSpreadsheet(Array(text.utf8))
        #expect(sheet.presents.map(\.title) == expectedTitles, "seed \(random)")
        #expect(sheet.presents.map(\.notes) == expectedNotes, "seed \(random)")
        #expect(sheet.rejected.map(\.line) == expectedBad, "seed \(random)")
        #expect(sheet.presents.count + sheet.rejected.count == 1000)
    }
}
