import GiftKeeperDomain
import GiftKeeperTestSupport
import Testing

@Suite struct MoneyTests {
    @Test(arguments: [
        ("25", Int64(2500)), ("25.5", 2550), ("25.50", 2550), ("25.00", 2500), ("0.99", 99), ("0", 0),
        ("007", 700), ("92233720368547758.07", .max),
    ])
    func parsesPlainDecimals(text: String, cents: Int64) throws {
        #expect(try Money(parsing: text).minorUnits == cents)
    }

    @Test(arguments: [
        ("", MoneyParsingError.empty), ("-1", .negative), ("-0.5", .negative), ("1.234", .tooManyFractionDigits),
        ("1e3", .invalidCharacter("e")), ("abc", .invalidCharacter("a")), ("1,000", .invalidCharacter(",")),
        (" 25", .invalidCharacter(" ")), ("25 ", .invalidCharacter(" ")), ("+5", .invalidCharacter("+")),
        ("1.2.3", .invalidCharacter(".")), (".5", .missingDigits), ("25.", .missingDigits), (".", .missingDigits),
        ("92233720368547758.08", .tooLarge), ("99999999999999999999", .tooLarge), ("٣", .invalidCharacter("٣")),
        ("$5", .invalidCharacter("$")),
    ])
    func rejectsEverythingElse(text: String, error: MoneyParsingError) {
        #expect(throws: error) { try Money(parsing: text) }
    }

    @Test func describesWithTwoDecimals() throws {
        #expect(try Money(parsing: "25").description == "25.00")
        #expect(try Money(parsing: "0.9").description == "0.90")
        #expect(try Money(parsing: "0.09").description == "0.09")
        #expect(Money.max.description == "92233720368547758.07")
        #expect(Money(minorUnits: -1) == nil)
    }

    @Test func priceParsingWrapsTheReason() {
        #expect(throws: DomainError.invalidPrice("-3", reason: .negative)) { try Money.parsePrice("-3") }
    }

    /// Issue 13, finding 11: a typed price has a sane maximum.
    @Test func aTypedPriceIsAtMostTheMaximum() throws {
        #expect(try Money.parsePrice("1000000000.00") == Money.maximumPrice)
        #expect(throws: DomainError.invalidPrice("1000000000.01", reason: .tooLarge)) { try Money.parsePrice("1000000000.01") }
        #expect(throws: DomainError.invalidPrice("92233720368547758.07", reason: .tooLarge)) {
            try Money.parsePrice("92233720368547758.07")
        }
    }

    /// Issue 13, finding 11: totals are exact, even of the largest amounts an old journal may hold.
    @Test func totalsCannotOverflow() throws {
        var total = MoneyTotal(try Money(parsing: "25"))
        total.add(.max)
        total.add(.max)
        #expect(total.description == "184467440737095541.14")
        #expect(MoneyTotal().description == "0.00")
    }
}

@Suite struct PresentIDTests {
    @Test(arguments: [("p1", UInt64(1)), ("p12", 12), ("P12", 12), ("p18446744073709551615", .max)])
    func parses(text: String, number: UInt64) {
        #expect(PresentID(parsing: text)?.number == number)
    }

    @Test(arguments: [
        "p0", "p", "p-1", "12", "", "p01", "pp1", "p1 ", " p1", "p+1", "q1", "p18446744073709551616", "p1x", "p١",
    ])
    func rejects(text: String) {
        #expect(PresentID(parsing: text) == nil)
        #expect(throws: DomainError.invalidPresentID(text)) { try PresentID.parse(text) }
    }

    @Test func describesAndOrders() throws {
        let id = try #require(PresentID(number: 12))
        #expect(id.description == "p12")
        #expect(PresentID(number: 0) == nil)
        #expect(try #require(PresentID(number: 2)) < id)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1_795_356_187_123, "2026-11-22T14:03:07.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (1_709_208_000_000, "2024-02-29T12:00:00.000Z"),
        (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
        (2_147_483_648_000, "2038-01-19T03:14:08.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (253_402_300_800_000, "+010000-01-01T00:00:00.000Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, "-000001-12-31T23:59:59.999Z"),
        (.max, "+292278994-08-17T07:12:55.807Z"),
        (.min, "-292275055-05-16T16:47:04.192Z"),
    ])
    func formatsAndParsesKnownAnswers(ms: Int64, text: String) {
        let timestamp = Timestamp(millisecondsSinceEpoch: ms)
        #expect(timestamp.iso8601 == text)
        #expect(Timestamp(iso8601: text) == timestamp)
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T14:03:07Z", "2026-11-22T14:03:07.12Z", "2026-11-22T14:03:07.123",
        "2026-11-22 14:03:07.123Z", "2026-13-01T00:00:00.000Z", "2026-00-01T00:00:00.000Z", "2026-02-29T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T00:60:00.000Z",
        "2026-01-01T00:00:60.000Z", "+002026-01-01T00:00:00.000Z", "+292278994-08-17T07:12:55.808Z",
        "-292275055-05-16T16:47:04.191Z", "+1000000000-01-01T00:00:00.000Z", "2026-11-22T14:03:07.123Z ",
        "2026-11-22t14:03:07.123z", "２026-11-22T14:03:07.123Z",
    ])
    func rejectsOtherText(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test func roundTripsEveryDayOfFourCenturies() {
        // 1600-01-01 … 2400-01-01, one sample time per day, crossing every leap rule.
        var ms: Int64 = -11_676_096_000_000
        while ms < 13_569_465_600_000 {
            let timestamp = Timestamp(millisecondsSinceEpoch: ms)
            #expect(Timestamp(iso8601: timestamp.iso8601) == timestamp)
            ms += 86_400_000 + 1_234
        }
    }
}

@Suite struct ParsingHelperTests {
    @Test func parsesStatusWords() throws {
        for status in PresentStatus.allCases {
            #expect(try PresentStatus(parsing: status.rawValue) == status)
            #expect(try PresentStatus(parsing: " \(status.rawValue.uppercased()) ") == status)
        }
        #expect(throws: DomainError.unknownStatus("sold")) { try PresentStatus(parsing: "sold") }
        #expect(throws: DomainError.unknownStatus("")) { try PresentStatus(parsing: "") }
    }

    @Test func parsesFieldNames() throws {
        for field in PresentField.allCases {
            #expect(try PresentField(parsing: field.rawValue) == field)
            #expect(try PresentField(parsing: field.rawValue.uppercased()) == field)
        }
        #expect(throws: DomainError.unknownField("colour")) { try PresentField(parsing: "colour") }
        #expect(throws: DomainError.unknownField("status")) { try PresentField(parsing: "status") }
    }

    @Test func readsEditValues() throws {
        #expect(try PresentChange(field: .price, value: "25.5") == .price(Money(minorUnits: 2550)))
        #expect(try PresentChange(field: .price, value: "") == .price(nil))
        #expect(try PresentChange(field: .price, value: "None") == .price(nil))
        #expect(try PresentChange(field: .title, value: " Hat ") == .title(" Hat "))
        #expect(throws: DomainError.invalidPrice("2.345", reason: .tooManyFractionDigits)) {
            try PresentChange(field: .price, value: "2.345")
        }
    }

    /// A string's trimming (a fast path when it starts and ends with printable ASCII) is
    /// what trimming its Characters gives: whitespace of every kind at either end, a
    /// combining mark after a space or after a letter, `\r\n`, non-breaking spaces.
    @Test func trimmingAStringIsTrimmingItsCharacters() throws {
        let pieces = [
            "a", "Z", "~", "!", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{A0}", "\u{2003}", "\u{3000}", "é", "e\u{301}",
            " \u{301}", "\u{301}", "👩‍👩‍👧", "\u{7F}", "\u{200B}",
        ]
        var generator = TestRandom()
        for _ in 0..<5_000 {
            let text = try (0..<Int.random(in: 0...6, using: &generator)).map { _ in try #require(pieces.randomElement(using: &generator)) }
                .joined()
            let characters = Array(text)
            let first = characters.firstIndex { !$0.isWhitespace }
            let last = characters.lastIndex { !$0.isWhitespace }
            let expected = first.flatMap { first in last.map { String(characters[first...$0]) } } ?? ""
            #expect(text.trimmedWhitespace() == expected, generator.comment("\(Array(text.unicodeScalars))"))
            #expect(text[...].trimmedWhitespace() == expected, generator.comment("\(Array(text.unicodeScalars))"))
        }
    }

    @Test func eventTypeNamesAndTagsAreStable() {
        let expected: [(String, UInt8)] = [
            ("accountCreated", 1), ("loginSucceeded", 2), ("loginFailed", 3), ("signedOut", 4), ("presentAdded", 5),
            ("presentEdited", 6), ("presentStatusChanged", 7), ("presentRemoved", 8), ("passwordChanged", 9),
            ("stateExported", 10), ("presentImported", 11), ("occasionAdded", 12), ("occasionRemoved", 13),
            ("budgetSet", 14), ("budgetCleared", 15), ("presentRestored", 16), ("currencySet", 17),
            ("budgetSetForYear", 18), ("budgetClearedForYear", 19), ("occasionClosed", 20), ("profileFieldSet", 21),
            ("wishAdded", 22), ("wishRemoved", 23), ("wishClaimed", 24), ("wishUnclaimed", 25), ("giversSet", 26),
        ]
        #expect(EventType.allCases.map(\.name) == expected.map(\.0))
        #expect(EventType.allCases.map(\.tag) == expected.map(\.1))
    }
}
