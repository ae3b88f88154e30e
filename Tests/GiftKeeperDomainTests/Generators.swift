import GiftKeeperDomain
import GiftKeeperTestSupport
import PropertyBased

/// Deterministic bits from one seed (``TestRandom``), so each generated event or command is
/// a pure function of a `UInt64` and PropertyBased can shrink the list of seeds (it prints
/// the seed of a failing check: `.fixedSeed(…)` repeats it).
struct Bits {
    private var random: TestRandom

    init(state: UInt64) {
        random = TestRandom(seed: state)
    }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    static let texts = [
        "", " ", "Mum", "dad", "Blue scarf", "  padded  ", "é", "e\u{301}", "👩‍👩‍👧", "日本語", "line\nbreak",
        "tab\t", "\u{0}", String(repeating: "x", count: 300),
    ]

    mutating func text() -> String { pick(Self.texts) }

    mutating func id() -> PresentID {
        // Mostly small ids so events hit existing presents; sometimes the extremes.
        switch below(10) {
        case 0: pid(.max)
        case 1: pid(next() | 1)
        default: pid(UInt64(below(8) + 1))
        }
    }

    mutating func price() -> Money? {
        switch below(4) {
        case 0: nil
        case 1: .max
        default: cents(Int64(below(100_000)))
        }
    }

    mutating func timestamp() -> Timestamp {
        switch below(8) {
        case 0: Timestamp(millisecondsSinceEpoch: Int64(bitPattern: next()))
        case 1: Timestamp(millisecondsSinceEpoch: 0)
        default: Timestamp(millisecondsSinceEpoch: 1_700_000_000_000 + Int64(below(100_000_000)))
        }
    }

    mutating func change() -> PresentChange {
        switch below(7) {
        case 0: .title(text())
        case 1: .recipient(text())
        case 2: .notes(text())
        case 3: .price(price())
        case 4: .url(text())
        case 5: .store(text())
        default: .occasion(text())
        }
    }

    static let occasionNames = ["Christmas 2026", "christmas 2026", "Mum's birthday", "", "Zoë's day", "zoe's DAY"]

    mutating func date() -> CalendarDate? {
        below(4) == 0 ? nil : CalendarDate(year: 1950 + below(100), month: 1 + below(12), day: 1 + below(29))
    }

    mutating func occasion() -> Occasion {
        Occasion(name: pick(Self.occasionNames), date: date(), isYearly: below(3) == 0)
    }

    mutating func scope() -> BudgetScope {
        BudgetScope(
            recipient: pick([nil, "Mum", "mum", "Zoë", "zoe"]), occasion: pick([nil, "Christmas 2026", "CHRISTMAS 2026"]),
            year: pick([nil, nil, 2026, 2027]))
    }

    /// Any event, valid or not in any state.
    mutating func event() -> Event {
        let body: EventBody =
            switch below(20) {
            case 18: .profileFieldSet(recipient: pick(["Mum", "mum", "Zoë", ""]), field: pick(ProfileField.allCases), value: text())
            case 17: .occasionClosed(name: pick(Self.occasionNames), through: date())
            case 11: .occasionAdded(occasion())
            case 12: .occasionRemoved(name: pick(Self.occasionNames))
            case 13: .budgetSet(Budget(scope: scope(), amount: price() ?? .zero))
            case 14: .budgetCleared(scope())
            case 15: .presentRestored(id: id())
            case 16: .currencySet(code: pick(["EUR", "", "gbp"]))
            case 0: .accountCreated(name: text())
            case 1: .loginSucceeded
            case 2: .loginFailed
            case 3: .signedOut(clean: below(2) == 0)
            case 4:
                .presentAdded(
                    id: id(), recipient: text(), title: text(), notes: text(), price: price(), occasion: pick(Self.occasionNames),
                    url: text(), store: text())
            case 5: .presentEdited(id: id(), changes: (0..<below(4)).map { _ in change() })
            case 6: .presentStatusChanged(id: id(), status: pick(PresentStatus.allCases))
            case 7: .presentRemoved(id: id())
            case 8: .passwordChanged
            case 9:
                .presentImported(
                    Present(
                        id: id(), recipient: text(), title: text(), notes: text(), price: price(), occasion: text(),
                        url: text(), store: text(), status: pick(PresentStatus.allCases),
                        givenAt: below(2) == 0 ? nil : timestamp(), createdAt: timestamp(), updatedAt: timestamp()))
            default: .stateExported(presentCount: below(5) == 0 ? Int(bitPattern: UInt(next())) : below(50))
            }
        return Event(at: timestamp(), body)
    }

    /// Any command, likely to succeed about half the time.
    mutating func command() -> Command {
        switch below(23) {
        case 22:
            .change(
                .setProfile(
                    recipient: pick(["Mum", "mum", "Zoë", ""]),
                    changes: (0..<below(3)).map { _ in
                        below(4) == 0 ? .birthday(date()) : .field(pick(ProfileField.allCases), text())
                    }))
        case 21:
            if let day = date() {
                .change(.closeOccasion(name: pick(Self.occasionNames), through: day, keepingIdeas: below(2) == 0))
            } else {
                .change(.removeOccasion(name: pick(Self.occasionNames)))
            }
        case 15: .change(.addOccasion(occasion()))
        case 16: .change(.removeOccasion(name: pick(Self.occasionNames)))
        case 17: .change(.setBudget(Budget(scope: scope(), amount: price() ?? .zero)))
        case 18: .change(.clearBudget(scope()))
        case 19: .change(.restorePresent(id: id()))
        case 20: .change(.setCurrency(code: pick(["EUR", "usd", "E", "€€€"])))
        case 0: .createAccount(name: text())
        case 1: .signIn
        case 2: .recordFailedSignIn
        case 3: .signOut
        case 4: .endUncleanSession
        case 5, 6:
            .change(
                .addPresent(
                    recipient: pick(["Mum", "mum", "Zoë", "zoe", text()]), title: text(), notes: text(), price: price(),
                    occasion: pick(Self.occasionNames), url: text(), store: text()))
        case 7, 8: .change(.editPresent(id: id(), changes: (0..<below(4)).map { _ in change() }))
        case 9, 10: .change(.markPresent(id: id(), status: pick(PresentStatus.allCases)))
        case 11: .change(.removePresent(id: id()))
        case 12: .changePassword
        case 13:
            .change(
                .importPresent(
                    Present(
                        id: id(), recipient: text(), title: text(), notes: text(), price: price(), occasion: text(),
                        status: pick(PresentStatus.allCases), createdAt: timestamp(), updatedAt: timestamp())))
        default: .recordExport(presentCount: below(20))
        }
    }
}

enum Generate {
    static func events(_ count: ClosedRange<Int>) -> Generator<[Event], some SendableSequenceType> {
        Gen.uint64().array(of: count).map { seeds in
            seeds.map {
                var bits = Bits(state: $0)
                return bits.event()
            }
        }
    }

    static func commands(_ count: ClosedRange<Int>) -> Generator<[Command], some SendableSequenceType> {
        Gen.uint64().array(of: count).map { seeds in
            // Start most sequences with setup so the interesting commands get a chance.
            let setup: [Command] = seeds.first.map { $0 % 4 == 0 } == true ? [] : [.createAccount(name: "Alice")]
            return setup
                + seeds.map {
                    var bits = Bits(state: $0)
                    return bits.command()
                }
        }
    }

    static let bytes = Gen.uint8().array(of: 0...48)
}
