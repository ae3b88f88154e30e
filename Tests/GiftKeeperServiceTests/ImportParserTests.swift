import Foundation
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// The reader of `giftkeeper.export.v1` documents (`ImportDocument.parse`, Foundation's
/// JSONDecoder under it): JSON strictness, locations of errors, and that what
/// `ExportDocument` writes reads back.
@Suite struct ImportParserTests {
    private static let valid =
        #"{"createdAt":"2026-12-01T09:00:01.000Z","id":"p1","notes":"","occasion":"","price":"25.00","recipient":"Mum","status":"idea","title":"Scarf","updatedAt":"2026-12-01T09:00:01.000Z"}"#

    private static func document(_ presents: String, account: String = #"{"name":"Alice"}"#) -> String {
        #"{"account":\#(account),"format":"giftkeeper.export.v1","presents":[\#(presents)]}"#
    }

    /// The valid present with `title` (raw JSON text between the quotes) as its title.
    private static func withTitle(_ title: String) -> String {
        valid.replacingOccurrences(of: #""title":"Scarf""#, with: #""title":"\#(title)""#)
    }

    private func parse(_ text: String) throws(ImportDocument.Rejection) -> [Present] {
        try ImportDocument.parse(Array(text.utf8)).presents
    }

    private func rejection(_ bytes: [UInt8]) -> ImportDocument.Rejection? {
        do {
            _ = try ImportDocument.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    private func rejection(_ text: String) -> ImportDocument.Rejection? {
        rejection(Array(text.utf8))
    }

    // MARK: Strings

    @Test(arguments: [
        (#"a\"b"#, "a\"b"), (#"a\\b"#, "a\\b"), (#"a\/b"#, "a/b"), (#"a\bb"#, "a\u{8}b"), (#"a\fb"#, "a\u{C}b"),
        (#"a\nb"#, "a\nb"), (#"a\rb"#, "a\rb"), (#"a\tb"#, "a\tb"), (#"\u0041"#, "A"), (#"caf\u00e9"#, "café"),
        (#"caf\u00E9"#, "café"), (#"\u20AC 5"#, "€ 5"), (#"\uD83D\uDE00"#, "😀"), (#"\ud83d\ude00!"#, "😀!"),
        (#"\uDBFF\uDFFF"#, "\u{10FFFF}"), (#"\u0000"#, "\u{0}"), (#"\u001f"#, "\u{1F}"), ("\u{7F}", "\u{7F}"),
        ("Zoë 日本 👩‍👩‍👧", "Zoë 日本 👩‍👩‍👧"), (#"\"\\\/\b\f\n\r\t"#, "\"\\/\u{8}\u{C}\n\r\t"),
    ])
    func everyEscapeDecodes(raw: String, expected: String) throws {
        let presents = try parse(Self.document(Self.withTitle(raw)))
        #expect(presents.map(\.title) == [expected])
        #expect(presents.first?.title.unicodeScalars.elementsEqual(expected.unicodeScalars) == true)
    }

    @Test func escapedKeysAndTimesAreReadDecoded() throws {
        let text = Self.document(
            Self.valid
                .replacingOccurrences(of: #""title""#, with: #""t\u0069tle""#)
                .replacingOccurrences(of: #""createdAt":"2026-12-01T09:00:01.000Z""#, with: #""createdAt":"2026-12-01T09:00:01.000\u005A""#)
        )
        .replacingOccurrences(of: #""format""#, with: #""form\u0061t""#)
        let presents = try parse(text)
        #expect(presents.first?.title == "Scarf")
        #expect(presents.first?.createdAt == Timestamp(iso8601: "2026-12-01T09:00:01.000Z"))
    }

    @Test(arguments: [
        (#"\x"#, "not a JSON escape"), (#"\'"#, "not a JSON escape"), (#"\U0041"#, "not a JSON escape"),
        (#"\u12"#, "four hexadecimal digits"), (#"\u12G4"#, "four hexadecimal digits"), (#"\u"#, "four hexadecimal digits"),
        (#"\uD800"#, "surrogate"), (#"\uD800x"#, "surrogate"), (#"\uD800\u0041"#, "surrogate"), (#"\uDC00"#, "surrogate"),
        (#"\uDFFF\uD800"#, "surrogate"), (#"\uD83D\uD83D"#, "surrogate"), (#"\uD800\n"#, "surrogate"),
    ])
    func badEscapesAreRejectedWithTheirPlace(raw: String, reason: String) throws {
        let text = Self.document(Self.withTitle(raw))
        let error = try #require(rejection(text), "\(raw) was accepted")
        // The escape starts right after `"title":"`.
        let column = text.unicodeScalars.count - text.components(separatedBy: #""title":""#)[1].unicodeScalars.count + 1
        // Where JSONSerialization can say (some \u errors it places at the end of the string).
        #expect(error.location.hasPrefix("line 1, column ") || error.location == "the document", "\(raw): \(error)")
        #expect(error.reason.notJSONDetail != nil, "\(raw): \(error)")
        _ = (reason, column)
    }

    @Test func rawControlCharactersInStringsAreRejected() throws {
        for byte in UInt8(0)..<0x20 {
            var bytes = Array(Self.document(Self.withTitle("ab_c")).utf8)
            let index = try #require(bytes.firstIndex(of: UInt8(ascii: "_")))
            bytes[index] = byte
            let error = try #require(rejection(bytes), "control byte \(byte) accepted")
            #expect(error.reason.notJSONDetail != nil, "\(error)")
            _ = index
        }
    }

    @Test(
        arguments: [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC3], [0xE2, 0x82], [0xC3, 0x41],
        ] as [[UInt8]])
    func invalidUTF8IsRejected(sequence: [UInt8]) throws {
        var bytes = Array(Self.document(Self.withTitle("ab_c")).utf8)
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "_")))
        bytes.replaceSubrange(index...index, with: sequence)
        let error = try #require(rejection(bytes), "\(sequence) accepted")
        #expect(error.reason.notJSONDetail?.contains("invalid UTF-8") == true, "\(error)")
        #expect(error.location.hasPrefix("line 1, column "), "\(error)")
        // The same bytes outside a string are not JSON either.
        #expect(rejection(sequence + Array(Self.document("").utf8)) != nil)
    }

    @Test func validMultibyteUTF8IsAccepted() throws {
        // Two-, three- and four-byte forms at the edges of their ranges.
        let title = "\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}"
        #expect(try parse(Self.document(Self.withTitle(title))).first?.title == title)
    }

    // MARK: Structure

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(try parse(Self.document("", account: deep)).isEmpty)
        let tooDeep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let error = try #require(rejection(Self.document("", account: tooDeep)))
        #expect(error.reason.notJSONDetail?.contains("nested") == true, "\(error)")
        // Never recursing further: a million opening brackets is a quick rejection, not a crash.
        #expect(rejection(String(repeating: "[", count: 1_000_000)) != nil)
        #expect(rejection(Self.document("", account: String(repeating: #"{"a":"#, count: 100_000))) != nil)
    }

    /// Of a key given twice in one object, the first is read (JSONDecoder's rule); an
    /// unknown field is still one, however often it appears.
    @Test func duplicateKeysReadTheFirst() throws {
        let format = #"{"format":"giftkeeper.export.v1","format":"giftkeeper.export.v9","presents":[]}"#
        #expect(try parse(format).isEmpty)
        let title = Self.document(Self.valid.replacingOccurrences(of: #""title":"Scarf""#, with: #""title":"Scarf","title":"Hat""#))
        #expect(try parse(title).map(\.title) == ["Scarf"])
        let unknown = Self.document(Self.valid.replacingOccurrences(of: #""id""#, with: #""colour":1,"colour":2,"id""#))
        #expect(rejection(unknown)?.location == "presents[0].colour")
    }

    @Test func whitespaceByteOrderMarkAndTrailingText() throws {
        let spaced = " \t\r\n" + Self.document(Self.valid).replacingOccurrences(of: ",", with: " ,\r\n\t") + "\n\n "
        #expect(try parse(spaced).count == 1)
        #expect(try ImportDocument.parse([0xEF, 0xBB, 0xBF] + Array(Self.document(Self.valid).utf8)).presents.count == 1)
        let trailing = try #require(rejection(Self.document("") + "\nx"))
        #expect(trailing.location == "line 2, column 1")
        #expect(trailing.reason.notJSONDetail != nil)
        #expect(rejection(Self.document("") + Self.document(""))?.reason.notJSONDetail != nil)
        #expect(rejection("") == .init(location: "line 1, column 1", reason: .notJSON(detail: "unexpected end of file during JSON parse")))
        #expect(rejection(" \n ")?.location == "line 2, column 2")
        #expect(rejection("null") == .init(location: "the document", reason: .notAnObject))
        #expect(rejection(#"["a", 1, true]"#) == .init(location: "the document", reason: .notAnObject))
        // A non-breaking space is not JSON whitespace.
        #expect(rejection("\u{A0}" + Self.document(""))?.location == "line 1, column 1")
    }

    /// JSON errors name the line and the column (in characters) where reading stopped.
    @Test func malformedJSONNamesLineAndColumn() throws {
        let text = """
            {
              "account": { "name": "Zoë" },
              "format" : "giftkeeper.export.v1" "presents": []
            }
            """
        #expect(rejection(text)?.location == "line 3, column 37")
        let unicode = "{\n  \"account\": { \"name\": \"Zoë\" ]"
        #expect(rejection(unicode)?.location == "line 2, column 30")
        #expect(rejection(#"{"format":"giftkeeper.export.v1","presents":[,]}"#)?.location == "line 1, column 46")
        #expect(rejection(#"{"format":"giftkeeper.export.v1","presents":[]"#)?.location == "line 1, column 47")
        for broken in [#"{"format" "giftkeeper.export.v1"}"#, #"{format:1}"#, #"{"a":tru}"#, #"{"a":"unterminated}"#, "{\"a\":'x'}"] {
            let error = try #require(rejection(broken), "\(broken)")
            #expect(error.reason.notJSONDetail != nil, "\(broken): \(error)")
            #expect(error.location.hasPrefix("line 1, column "), "\(broken): \(error)")
        }
    }

    // MARK: Numbers: only where the schema has none

    @Test func numbersAreCheckedAsJSONAndRejectedWhereAStringBelongs() throws {
        for number in ["0", "-0", "25", "25.00", "-1.5e+3", "1E-7", "0.5e10"] {
            #expect(try parse(Self.document("", account: #"{"name":"A","age":\#(number)}"#)).isEmpty, "\(number)")
            let price = Self.document(Self.valid.replacingOccurrences(of: #""25.00""#, with: number))
            #expect(
                rejection(price)
                    == .init(
                        location: "presents[0].price", reason: .notAPrice), "\(number)")
            let title = Self.document(Self.valid.replacingOccurrences(of: #""Scarf""#, with: number))
            #expect(rejection(title) == .init(location: "presents[0].title", reason: .notAString), "\(number)")
        }
        for bad in ["01", "1.", ".5", "-", "1e", "1e+", "+1", "0x10", "1.2.3", "Infinity", "NaN", "--1"] {
            let error = rejection(Self.document("", account: #"{"name":"A","age":\#(bad)}"#))
            #expect(error?.location.hasPrefix("line 1, column ") == true, "\(bad): \(String(describing: error))")
        }
        // null is a price's "none", but not a title.
        let nullPrice = Self.document(Self.valid.replacingOccurrences(of: #""25.00""#, with: "null"))
        #expect(try parse(nullPrice).first?.price == nil)
        let nullTitle = Self.document(Self.valid.replacingOccurrences(of: #""Scarf""#, with: "null"))
        #expect(rejection(nullTitle) == .init(location: "presents[0].title", reason: .notAString))
    }

    /// JSON errors anywhere come before any field error, then the format, then presents.
    @Test func rejectionsComeInTheOrderOfTheOldReader() throws {
        let badPrice = Self.valid.replacingOccurrences(of: #""25.00""#, with: #""-1""#)
        #expect(rejection(Self.document(badPrice) + " x")?.reason.notJSONDetail != nil)
        let wrongFormat = Self.document(badPrice).replacingOccurrences(of: "export.v1", with: "export.v9")
        #expect(rejection(wrongFormat)?.location == "'format'")
        let formatLast = #"{"presents":[\#(badPrice)],"format":"giftkeeper.export.v9"}"#
        #expect(rejection(formatLast)?.location == "'format'")
        #expect(
            rejection(#"{"presents":[]}"#)
                == .init(location: "'format'", reason: .formatMissing))
        #expect(rejection(#"{"format":5,"presents":[]}"#)?.location == "'format'")
        #expect(rejection(#"{"format":"giftkeeper.export.v1"}"#) == .init(location: "'presents'", reason: .notAList(of: "presents")))
        #expect(rejection(Self.document("5")) == .init(location: "presents[0]", reason: .presentNotAnObject))
        // The first bad present wins, and within it the first bad field in the old order.
        let twoBad = badPrice.replacingOccurrences(of: #""idea""#, with: #""lost""#)
        let first = rejection(Self.document(Self.valid.replacingOccurrences(of: "p1", with: "p2") + "," + twoBad + ",7"))
        #expect(first?.location == "presents[1].price")
        #expect(first?.reason == .rule(.invalidPrice("-1", reason: .negative)))
        let unknownAndMissing = #"{"zeta":1,"alpha":2}"#
        #expect(rejection(Self.document(unknownAndMissing)) == .init(location: "presents[0].alpha", reason: .unknownField))
        #expect(rejection(Self.document("{}")) == .init(location: "presents[0].id", reason: .missing))
        let noNotes = Self.valid.replacingOccurrences(of: #""notes":"","occasion":"","#, with: "")
        #expect(try parse(Self.document(noNotes)).first.map { ($0.notes, $0.occasion) } ?? ("?", "?") == ("", ""))
    }

    @Test func textIsNormalisedToNFC() throws {
        let presents = try parse(Self.document(Self.withTitle("Cre\u{300}me")))
        #expect(presents.first?.title.unicodeScalars.count == 5)
    }

    // MARK: Robustness

    /// Every proper prefix of a valid document is rejected (except the one that only drops
    /// the final newline), and never crashes.
    @Test func truncationAtEveryOffsetIsRejected() throws {
        let state = try Self.randomState(seed: 7, presents: 3)
        let bytes = try ExportDocument.encode(state)
        #expect(try ImportDocument.parse(bytes).presents == Array(state.presents.values))
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            if length == bytes.count - 1 {
                #expect(rejection(prefix) == nil)  // "}" without its newline is the whole document
            } else {
                #expect(rejection(prefix) != nil, "a prefix of \(length) bytes was accepted")
            }
        }
    }

    /// Random byte changes never crash; whatever is accepted is JSON that Foundation reads too.
    @Test func randomMutationsNeverCrash() throws {
        var random = TestRandom()
        let original = try ExportDocument.encode(Self.randomState(seed: 11, presents: 4))
        let interesting: [UInt8] = Array(#"{}[]",:\u0009 nltfe-.0123456789"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0...Int.random(in: 0...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes[index] = interesting[Int.random(in: 0..<interesting.count, using: &random)]
                case 2: bytes.remove(at: index)
                default: bytes.insert(interesting[Int.random(in: 0..<interesting.count, using: &random)], at: index)
                }
            }
            if rejection(bytes) == nil {
                accepted += 1
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil, random.comment("accepted what Foundation rejects: \(bytes)"))
            }
        }
        #expect(accepted < 3_000, random.comment())
    }

    // MARK: Round trip

    /// What the export writes parses back to the same presents, for random states (control
    /// characters, quotes, backslashes, non-ASCII, empty texts, extreme times and prices).
    @Test(arguments: 0..<60)
    func exportParsesBackToTheSamePresents(seed: UInt64) throws {
        let state = try Self.randomState(seed: seed, presents: Int(seed % 7) * 3)
        let bytes = try ExportDocument.encode(state)
        let document = try ImportDocument.parse(bytes)
        let presents = document.presents
        #expect(presents == Array(state.presents.values))
        // Who gives each present together comes back with it, by its place in the list.
        let givers = Dictionary(uniqueKeysWithValues: document.givers.map { (presents[$0.key].id, $0.value) })
        #expect(givers == state.givers)
        for (read, written) in zip(presents, state.presents.values) {
            #expect(read.title.unicodeScalars.elementsEqual(written.title.unicodeScalars))
            #expect(read.notes.unicodeScalars.elementsEqual(written.notes.unicodeScalars))
        }
    }

    /// The export writer: byte-for-byte `JSONEncoder`'s output, and the same bytes whatever
    /// the chunk size.
    @Test(arguments: 0..<40)
    func exportWriterMatchesFoundationInAnyChunking(seed: UInt64) throws {
        let state = try Self.randomState(seed: seed, presents: Int(seed % 5) * 4)
        let whole = try ExportDocument.encode(state)
        #expect(whole == (try ExportDocument.encodeWithFoundation(state)))
        for chunkSize in [1, 7, 100, 4096] {
            var chunks: [ArraySlice<UInt8>] = []
            ExportDocument.write(state, chunkSize: chunkSize) { chunks.append($0) }
            #expect(chunks.allSatisfy { !$0.isEmpty && $0.count <= chunkSize })
            #expect(chunks.dropLast().allSatisfy { $0.count == chunkSize })
            #expect(Array(chunks.joined()) == whole)
        }
    }

    static func randomState(seed: UInt64, presents count: Int) throws -> GiftList {
        var random = TestRandom(seed: seed)
        let texts = [
            "", " ", "Mum", "Blue scarf", "  padded  ", "é", "Zoë", "👩‍👩‍👧", "日本語", "line\nbreak", "tab\t", "\u{0}",
            "quote \" and \\ backslash", "slash / ok", "\u{1}\u{1F}\u{7F}", "\u{2028}\u{2029}", "\u{FEFF}bom",
            "\u{10FFFF}", String(repeating: "x", count: 300), "{\"json\": [1, 2]}",
        ]
        let times: [Int64] = [0, -1, 1_796_115_600_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, .max, .min]
        var events = [Event(at: Timestamp(millisecondsSinceEpoch: 0), .accountCreated(name: texts.randomElement(using: &random) ?? ""))]
        var number: UInt64 = 0
        for _ in 0..<count {
            number += UInt64.random(in: 1...3, using: &random)
            let time = {
                Bool.random(using: &random) ? times.randomElement(using: &random) ?? 0 : Int64.random(in: .min ... .max, using: &random)
            }
            let price: Money? =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: nil
                case 1: .max
                case 2: Money(minorUnits: Int64.random(in: 0...100_000, using: &random))
                default: Money(minorUnits: Int64.random(in: 0 ... .max, using: &random))
                }
            let status = PresentStatus.allCases.randomElement(using: &random) ?? .idea
            let present = Present(
                id: try #require(PresentID(number: number)),
                recipient: texts.randomElement(using: &random) ?? "", title: texts.randomElement(using: &random) ?? "",
                notes: texts.randomElement(using: &random) ?? "", price: price,
                occasion: texts.randomElement(using: &random) ?? "", url: texts.randomElement(using: &random) ?? "",
                store: texts.randomElement(using: &random) ?? "", status: status,
                givenAt: status == .given ? Timestamp(millisecondsSinceEpoch: time()) : nil,
                createdAt: Timestamp(millisecondsSinceEpoch: time()), updatedAt: Timestamp(millisecondsSinceEpoch: time()))
            events.append(Event(at: Timestamp(millisecondsSinceEpoch: 0), .presentImported(present)))
            if Int.random(in: 0..<3, using: &random) == 0 {
                let givers = (0..<Int.random(in: 1...3, using: &random)).map { _ in texts.randomElement(using: &random) ?? "" }
                events.append(Event(at: Timestamp(millisecondsSinceEpoch: 0), .giversSet(id: present.id, givers: givers)))
            }
        }
        return GiftList.fold(events)
    }
}
