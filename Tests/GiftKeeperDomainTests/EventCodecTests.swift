import GiftKeeperDomain
import PropertyBased
import Testing

@Suite struct EventCodecTests {
    /// One event of every type, with awkward values.
    static let samples: [Event] = [
        Event(at: at(0), .accountCreated(name: "Alice 👩‍👩‍👧")),
        Event(at: at(-1), .loginSucceeded),
        Event(at: at(.max), .loginFailed),
        Event(at: at(.min), .signedOut(clean: true)),
        Event(at: at(1_795_356_187_123), .signedOut(clean: false)),
        Event(
            at: at(1_795_356_187_123),
            .presentAdded(
                id: pid(1), recipient: "Mum", title: "Blue scarf", notes: "", price: cents(2500), occasion: "Xmas")),
        Event(
            at: at(42),
            .presentAdded(
                id: pid(.max), recipient: "e\u{301}", title: String(repeating: "t", count: 1000), notes: "multi\nline",
                price: nil, occasion: "")),
        Event(at: at(43), .presentAdded(id: pid(2), recipient: "日本", title: "x", notes: "n", price: .max, occasion: "o")),
        Event(
            at: at(44),
            .presentEdited(
                id: pid(12),
                changes: [
                    .title("Hat"), .recipient("Dad"), .notes(""), .price(nil), .price(.zero), .occasion("Birthday"),
                ])),
        Event(at: at(45), .presentEdited(id: pid(3), changes: [])),
        Event(at: at(46), .presentStatusChanged(id: pid(3), status: .idea)),
        Event(at: at(47), .presentStatusChanged(id: pid(3), status: .given)),
        Event(at: at(48), .presentRemoved(id: pid(300))),
        Event(at: at(49), .passwordChanged),
        Event(at: at(50), .stateExported(presentCount: 0)),
        Event(at: at(51), .stateExported(presentCount: .max)),
        Event(at: at(52), .stateExported(presentCount: -7)),
        Event(
            at: at(53),
            .presentImported(
                Present(
                    id: pid(9), recipient: "Mum", title: "Blue scarf", notes: "soft", price: cents(2500), occasion: "Xmas",
                    status: .wrapped, createdAt: at(-5), updatedAt: at(1_795_356_187_123)))),
        Event(
            at: at(54),
            .presentImported(
                Present(
                    id: pid(.max), recipient: "日本", title: "x", notes: "", price: nil, occasion: "",
                    status: .idea, createdAt: at(.min), updatedAt: at(.max)))),
        Event(
            at: at(55),
            .presentAdded(
                id: pid(4), recipient: "Zoë", title: "Kite", notes: "", price: nil, occasion: "", url: "https://example.org/k",
                store: "Kites & Co")),
        Event(at: at(56), .presentEdited(id: pid(4), changes: [.url(""), .store("Shop")])),
        Event(
            at: at(57),
            .presentImported(
                Present(
                    id: pid(10), recipient: "Dad", title: "Pen", url: "u", store: "s", status: .given, givenAt: at(-9),
                    createdAt: at(-10), updatedAt: at(-8)))),
        Event(at: at(58), .occasionAdded(Occasion(name: "Christmas 2026", date: CalendarDate(year: 2026, month: 12, day: 24)))),
        Event(at: at(59), .occasionAdded(Occasion(name: "Mum's birthday", date: CalendarDate(year: 1, month: 2, day: 28), isYearly: true))),
        Event(at: at(60), .occasionAdded(Occasion(name: "Someday"))),
        Event(at: at(61), .occasionRemoved(name: "Someday")),
        Event(at: at(62), .budgetSet(Budget(scope: BudgetScope(recipient: "Mum", occasion: "Xmas"), amount: cents(10_000)))),
        Event(at: at(63), .budgetSet(Budget(scope: BudgetScope(), amount: .zero))),
        Event(at: at(64), .budgetCleared(BudgetScope(occasion: "Xmas"))),
        Event(at: at(65), .presentRestored(id: pid(300))),
        Event(at: at(66), .currencySet(code: "EUR")),
        Event(at: at(67), .budgetSet(Budget(scope: BudgetScope(recipient: "Mum", year: 2027), amount: cents(30_000)))),
        Event(at: at(68), .budgetCleared(BudgetScope(occasion: "Christmas", year: 9999))),
        Event(at: at(69), .occasionClosed(name: "Christmas", through: CalendarDate(year: 2026, month: 12, day: 24))),
        Event(at: at(70), .occasionClosed(name: "Christmas", through: nil)),
        Event(at: at(71), .profileFieldSet(recipient: "Mum", field: .likes, value: "tea, gardening")),
        Event(at: at(72), .profileFieldSet(recipient: "Zoë", field: .address, value: "")),
        Event(at: at(73), .wishAdded(Wish(id: wid(1), wisher: "Bob", title: "Kite"))),
        Event(
            at: at(74),
            .wishAdded(
                Wish(
                    id: wid(12), wisher: "Mum", title: "Spa day", notes: "any weekend", price: Money(minorUnits: 12_000),
                    url: "https://spa.example", suggestedBy: "Zoë"))),
        Event(at: at(75), .wishRemoved(id: wid(3))),
        Event(at: at(76), .wishClaimed(id: wid(1), claimer: "Carol", present: pid(7))),
        Event(at: at(77), .wishUnclaimed(id: wid(1), claimer: "Carol")),
        Event(at: at(78), .giversSet(id: pid(7), givers: ["Alice", "Bob"])),
        Event(at: at(79), .giversSet(id: pid(7), givers: [])),
    ]

    @Test func samplesCoverEveryType() {
        #expect(Set(Self.samples.map(\.type)) == Set(EventType.allCases))
    }

    @Test(arguments: samples)
    func roundTrips(event: Event) throws {
        let bytes = EventCodec.encode(event)
        #expect(bytes.first == EventCodec.schemaVersion)
        #expect(bytes.dropFirst().first == event.type.tag)
        #expect((try? EventCodec.decode(bytes)) == event)
        #expect(try bytes.withUnsafeBytes { buffer throws(EventDecodingError) in try EventCodec.decode(buffer) } == event)
    }

    // Known answers of schema version 1, as journals written before version 2 hold them: they
    // still decode (upcast) to these events. Never edit them.
    @Test func knownAnswerStatusChanged() throws {
        let event = Event(at: at(1_795_356_187_123), .presentStatusChanged(id: pid(3), status: .bought))
        #expect(try EventCodec.decode([0x01, 0x07, 0xE6, 0xE7, 0x8A, 0xB9, 0xC0, 0x68, 0x03, 0x01]) == event)
        #expect(EventCodec.encode(event) == [0x02, 0x07, 0xE6, 0xE7, 0x8A, 0xB9, 0xC0, 0x68, 0x03, 0x01])
    }

    @Test func knownAnswerPresentAdded() throws {
        let event = Event(
            at: at(0),
            .presentAdded(
                id: pid(1), recipient: "Mum", title: "Blue scarf", notes: "", price: cents(2500), occasion: "Xmas"))
        let version1: [UInt8] = [
            0x01, 0x05, 0x00, 0x01, 0x03, 0x4D, 0x75, 0x6D, 0x0A, 0x42, 0x6C, 0x75, 0x65, 0x20, 0x73, 0x63,
            0x61, 0x72, 0x66, 0x00, 0x01, 0xC4, 0x13, 0x04, 0x58, 0x6D, 0x61, 0x73,
        ]
        #expect(try EventCodec.decode(version1) == event)
        // Version 2: the same fields, then url and store (empty here).
        #expect(EventCodec.encode(event) == [0x02] + version1.dropFirst() + [0x00, 0x00])
    }

    @Test func knownAnswerPresentEdited() throws {
        let event = Event(at: at(-1), .presentEdited(id: pid(12), changes: [.title("Hat"), .price(nil)]))
        let version1: [UInt8] = [0x01, 0x06, 0x01, 0x0C, 0x02, 0x01, 0x03, 0x48, 0x61, 0x74, 0x04, 0x00]
        #expect(try EventCodec.decode(version1) == event)
        #expect(EventCodec.encode(event) == [0x02] + version1.dropFirst())
    }

    @Test func knownAnswerSmallEvents() throws {
        #expect(try EventCodec.decode([0x01, 0x04, 0x02, 0x00]) == Event(at: at(1), .signedOut(clean: false)))
        #expect(try EventCodec.decode([0x01, 0x03, 0x00]) == Event(at: at(0), .loginFailed))
        #expect(try EventCodec.decode([0x01, 0x01, 0x00, 0x02, 0x41, 0x6C]) == Event(at: at(0), .accountCreated(name: "Al")))
        #expect(try EventCodec.decode([0x01, 0x0A, 0x00, 0x06]) == Event(at: at(0), .stateExported(presentCount: 3)))
        #expect(EventCodec.encode(Event(at: at(0), .loginFailed)) == [0x02, 0x03, 0x00])
    }

    // Known answers of schema version 2. Never edit them.
    @Test func knownAnswersOfVersion2() {
        let christmas = Occasion(name: "X", date: CalendarDate(year: 1970, month: 1, day: 2), isYearly: true)
        #expect(EventCodec.encode(Event(at: at(0), .occasionAdded(christmas))) == [0x02, 0x0C, 0x00, 0x01, 0x58, 0x01, 0x02, 0x01])
        #expect(EventCodec.encode(Event(at: at(0), .occasionRemoved(name: "X"))) == [0x02, 0x0D, 0x00, 0x01, 0x58])
        #expect(
            EventCodec.encode(Event(at: at(0), .budgetSet(Budget(scope: BudgetScope(recipient: "M"), amount: cents(100)))))
                == [0x02, 0x0E, 0x00, 0x01, 0x4D, 0x00, 0x64])
        #expect(EventCodec.encode(Event(at: at(0), .budgetCleared(BudgetScope(occasion: "X")))) == [0x02, 0x0F, 0x00, 0x00, 0x01, 0x58])
        #expect(EventCodec.encode(Event(at: at(0), .presentRestored(id: pid(3)))) == [0x02, 0x10, 0x00, 0x03])
        // A budget for one year (issue 29): the year (2027 = 0xEB 0x0F) between the names and the amount.
        #expect(
            EventCodec.encode(Event(at: at(0), .budgetSet(Budget(scope: BudgetScope(recipient: "M", year: 2027), amount: cents(100)))))
                == [0x02, 0x12, 0x00, 0x01, 0x4D, 0x00, 0xEB, 0x0F, 0x64])
        #expect(
            EventCodec.encode(Event(at: at(0), .budgetCleared(BudgetScope(occasion: "X", year: 2027))))
                == [0x02, 0x13, 0x00, 0x00, 0x01, 0x58, 0xEB, 0x0F])
        // An occasion closed through 1970-01-02 (issue 29), and reopened.
        #expect(
            EventCodec.encode(Event(at: at(0), .occasionClosed(name: "X", through: CalendarDate(year: 1970, month: 1, day: 2))))
                == [0x02, 0x14, 0x00, 0x01, 0x58, 0x01, 0x02])
        #expect(EventCodec.encode(Event(at: at(0), .occasionClosed(name: "X", through: nil))) == [0x02, 0x14, 0x00, 0x01, 0x58, 0x00])
        #expect(EventCodec.encode(Event(at: at(0), .currencySet(code: "EUR"))) == [0x02, 0x11, 0x00, 0x03, 0x45, 0x55, 0x52])
        // A profile's field (issue 29): recipient, field tag, value; an unknown field tag is refused.
        #expect(
            EventCodec.encode(Event(at: at(0), .profileFieldSet(recipient: "X", field: .sizes, value: "M")))
                == [0x02, 0x15, 0x00, 0x01, 0x58, 0x01, 0x01, 0x4D])
        // 0x06: a household's link of a person to a member (issue 28, `admit --recipient`).
        #expect(
            EventCodec.encode(Event(at: at(0), .profileFieldSet(recipient: "X", field: .member, value: "M")))
                == [0x02, 0x15, 0x00, 0x01, 0x58, 0x06, 0x01, 0x4D])
        #expect(throws: EventDecodingError.invalidValue(.profileField, offset: 5)) {
            try EventCodec.decode([0x02, 0x15, 0x00, 0x01, 0x58, 0x07, 0x01, 0x4D])
        }
        #expect(
            EventCodec.encode(Event(at: at(0), .presentEdited(id: pid(1), changes: [.url("u"), .store("s")])))
                == [0x02, 0x06, 0x00, 0x01, 0x02, 0x06, 0x01, 0x75, 0x07, 0x01, 0x73])
    }

    // Known answers of a household's events (issue 28). Never edit them.
    @Test func knownAnswersOfHouseholds() throws {
        let wish = Wish(id: wid(2), wisher: "B", title: "K", price: cents(5), suggestedBy: "A")
        // wish id, wisher, title, notes, price, url, suggestedBy
        #expect(
            EventCodec.encode(Event(at: at(0), .wishAdded(wish)))
                == [0x02, 0x16, 0x00, 0x02, 0x01, 0x42, 0x01, 0x4B, 0x00, 0x01, 0x05, 0x00, 0x01, 0x41])
        #expect(EventCodec.encode(Event(at: at(0), .wishRemoved(id: wid(2)))) == [0x02, 0x17, 0x00, 0x02])
        #expect(
            EventCodec.encode(Event(at: at(0), .wishClaimed(id: wid(2), claimer: "C", present: pid(9))))
                == [0x02, 0x18, 0x00, 0x02, 0x01, 0x43, 0x09])
        #expect(
            EventCodec.encode(Event(at: at(0), .wishUnclaimed(id: wid(2), claimer: "C")))
                == [0x02, 0x19, 0x00, 0x02, 0x01, 0x43])
        #expect(
            EventCodec.encode(Event(at: at(0), .giversSet(id: pid(9), givers: ["A", "B"])))
                == [0x02, 0x1A, 0x00, 0x09, 0x02, 0x01, 0x41, 0x01, 0x42])
    }

    /// Version 1 upcasting: an imported given present was given when last changed, and the
    /// fields and types of version 2 do not exist in version 1.
    @Test func version1IsUpcast() throws {
        let imported = Present(
            id: pid(9), recipient: "A", title: "T", status: .given, givenAt: at(7), createdAt: at(5), updatedAt: at(7))
        var version1 = EventCodec.encode(Event(at: at(8), .presentImported(imported)))
        version1[0] = 0x01
        version1.removeLast(4)  // url, store, givenAt: not in version 1
        #expect(try EventCodec.decode(version1) == Event(at: at(8), .presentImported(imported)))
        #expect(throws: EventDecodingError.unknownEventType(0x0C)) { try EventCodec.decode([0x01, 0x0C, 0x00, 0x00, 0x00, 0x00]) }
        #expect(throws: EventDecodingError.invalidValue(.changeField, offset: 5)) {
            try EventCodec.decode([0x01, 0x06, 0x00, 0x01, 0x01, 0x06, 0x00])
        }
    }

    @Test(arguments: samples)
    func everyTruncationThrows(event: Event) {
        let bytes = EventCodec.encode(event)
        for length in 0..<bytes.count {
            #expect(throws: EventDecodingError.self) { try EventCodec.decode(Array(bytes[..<length])) }
        }
    }

    @Test func reportsWhatIsWrong() throws {
        #expect(throws: EventDecodingError.truncated(offset: 0)) { try EventCodec.decode([]) }
        #expect(throws: EventDecodingError.unsupportedSchemaVersion(3)) { try EventCodec.decode([0x03, 0x01, 0x00]) }
        #expect(throws: EventDecodingError.unsupportedSchemaVersion(0)) { try EventCodec.decode([0x00]) }
        #expect(throws: EventDecodingError.unknownEventType(12)) { try EventCodec.decode([0x01, 0x0C, 0x00]) }
        #expect(throws: EventDecodingError.unknownEventType(27)) { try EventCodec.decode([0x02, 0x1B, 0x00]) }
        // A wish id is at least 1; a giver count the rest cannot hold is a truncation.
        #expect(throws: EventDecodingError.invalidValue(.wishID, offset: 3)) { try EventCodec.decode([0x02, 0x17, 0x00, 0x00]) }
        #expect(throws: EventDecodingError.truncated(offset: 4)) { try EventCodec.decode([0x02, 0x1A, 0x00, 0x07, 0x05, 0x00]) }
        #expect(throws: EventDecodingError.unknownEventType(22)) { try EventCodec.decode([0x01, 0x16, 0x00]) }
        #expect(throws: EventDecodingError.unknownEventType(18)) { try EventCodec.decode([0x01, 0x12, 0x00]) }
        // A budget's year is 1 to 9999.
        #expect(throws: EventDecodingError.invalidValue(.year, offset: 5)) { try EventCodec.decode([0x02, 0x13, 0x00, 0x00, 0x00, 0x00]) }
        #expect(throws: EventDecodingError.invalidValue(.year, offset: 5)) {
            try EventCodec.decode([0x02, 0x13, 0x00, 0x00, 0x00, 0x90, 0x4E])
        }
        #expect(throws: EventDecodingError.invalidValue(.date, offset: 6)) {
            try EventCodec.decode([0x02, 0x0C, 0x00, 0x01, 0x58, 0x01, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x00])
        }
        #expect(throws: EventDecodingError.unknownEventType(0)) { try EventCodec.decode([0x01, 0x00]) }
        #expect(throws: EventDecodingError.trailingBytes(offset: 3)) { try EventCodec.decode([0x01, 0x02, 0x00, 0x00]) }
        #expect(throws: EventDecodingError.invalidValue(.bool, offset: 3)) { try EventCodec.decode([0x01, 0x04, 0x00, 0x02]) }
        #expect(throws: EventDecodingError.invalidValue(.presentID, offset: 3)) { try EventCodec.decode([0x01, 0x08, 0x00, 0x00]) }
        #expect(throws: EventDecodingError.invalidValue(.status, offset: 4)) { try EventCodec.decode([0x01, 0x07, 0x00, 0x01, 0x04]) }
        #expect(throws: EventDecodingError.invalidValue(.changeField, offset: 5)) {
            try EventCodec.decode([0x01, 0x06, 0x00, 0x01, 0x01, 0x06, 0x00])
        }
        // Overlong varint: `at` 0 written as 80 00.
        #expect(throws: EventDecodingError.nonCanonicalVarint(offset: 2)) { try EventCodec.decode([0x01, 0x02, 0x80, 0x00]) }
        // Eleven-byte varint, and a tenth byte carrying more than bit 63.
        #expect(throws: EventDecodingError.varintOverflow(offset: 2)) {
            try EventCodec.decode([0x01, 0x02] + Array(repeating: 0xFF, count: 10) + [0x01])
        }
        #expect(throws: EventDecodingError.varintOverflow(offset: 2)) {
            try EventCodec.decode([0x01, 0x02] + Array(repeating: 0x80, count: 9) + [0x02])
        }
        // The largest 64-bit varint is fine: zigzag 2^64-1 is Int64.min.
        #expect(try EventCodec.decode([0x01, 0x02] + Array(repeating: 0xFF, count: 9) + [0x01]).at == at(.min))
        // A string length beyond the payload, and a huge one.
        #expect(throws: EventDecodingError.truncated(offset: 3)) { try EventCodec.decode([0x01, 0x01, 0x00, 0x05, 0x41]) }
        #expect(throws: EventDecodingError.truncated(offset: 3)) {
            try EventCodec.decode([0x01, 0x01, 0x00] + Array(repeating: 0xFF, count: 9) + [0x01])
        }
        // A change count the rest cannot hold is refused before allocating.
        #expect(throws: EventDecodingError.truncated(offset: 4)) {
            try EventCodec.decode([0x01, 0x06, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        }
        // A price beyond Int64.
        #expect(throws: EventDecodingError.invalidValue(.price, offset: 10)) {
            try EventCodec.decode(
                [0x01, 0x05, 0x00, 0x01, 0x01, 0x41, 0x01, 0x42, 0x00, 0x01]
                    + Array(repeating: 0xFF, count: 9) + [0x01, 0x00])
        }
        #expect(throws: EventDecodingError.invalidValue(.price, offset: 9)) {
            try EventCodec.decode([0x01, 0x05, 0x00, 0x01, 0x01, 0x41, 0x01, 0x42, 0x00, 0x02, 0x00])
        }
    }

    @Test(arguments: [
        [0xFF] as [UInt8], Array("abcdefghijk".utf8) + [0xC3], Array("abcdefgh".utf8) + [0xFF] + Array("abcdefgh".utf8), [0xC0, 0x80], [0xE2, 0x82],
        [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x41, 0x80],
    ])
    func invalidUTF8IsAnError(bad: [UInt8]) {
        let bytes: [UInt8] = [0x01, 0x01, 0x00, UInt8(bad.count)] + bad
        #expect(throws: EventDecodingError.invalidUTF8(offset: 4)) { try EventCodec.decode(bytes) }
    }

    @Test func everyBitFlipEitherDecodesOrThrows() {
        for event in Self.samples {
            let bytes = EventCodec.encode(event)
            for index in bytes.indices {
                for bit in 0..<8 {
                    var flipped = bytes
                    flipped[index] ^= 1 << bit
                    if let decoded = try? EventCodec.decode(flipped) {
                        // Canonical format: whatever decodes re-encodes to the same bytes.
                        #expect(EventCodec.encode(decoded) == flipped)
                    }
                }
            }
        }
    }

    @Test func anyGeneratedEventRoundTrips() async {
        await propertyCheck(count: 300, input: Generate.events(1...8)) { events in
            for event in events {
                let bytes = EventCodec.encode(event)
                #expect((try? EventCodec.decode(bytes)) == event)
            }
        }
    }

    @Test func garbageNeverCrashes() async {
        await propertyCheck(count: 2000, input: Generate.bytes, Gen.uint8().array(of: 2)) { garbage, header in
            // Raw garbage, and garbage behind a valid version and a plausible tag, to get past the header.
            for bytes in [garbage, [1, header[1] % 12] + garbage, [2, header[1] % 18] + garbage] {
                if let decoded = try? EventCodec.decode(bytes) {
                    // One encoding per event: version 2 bytes are the event's; version 1 upcasts.
                    if bytes.first == 2 { #expect(EventCodec.encode(decoded) == bytes) }
                    #expect((try? EventCodec.decode(EventCodec.encode(decoded))) == decoded)
                }
            }
        }
    }
}
