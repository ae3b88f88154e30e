import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import OrderedCollections
import Testing

/// What the random command loop may do next.
private enum Step {
    case command(Change)
    case signOut
    case login(correct: Bool)
}

private struct CommandGenerator {
    var random: TestRandom

    private static let recipients = ["Mum", "Dad", "  Sam  ", "Zoë", "Zoe\u{308}", "", "   ", "Ada Lovelace"]
    private static let titles = [
        "Scarf", "Kite", "Chess clock", "", " \t ", "Crème brûlée set", String(repeating: "x", count: 1001), String(repeating: "y", count: 1000),
    ]
    private static let notes = ["", "wool", "  keep spaces  ", "line\nbreak"]
    private static let occasions = ["", "Christmas", "Birthday", "   "]

    mutating func pick<T>(_ values: [T]) -> T {
        values[Int.random(in: 0..<values.count, using: &random)]
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func price() -> Money? {
        chance(30) ? nil : Money(minorUnits: Int64.random(in: 0...100_000, using: &random))
    }

    /// A present id: mostly one that was handed out, sometimes one that never was.
    mutating func id(_ state: GiftList) throws -> PresentID {
        let upper = max(state.nextPresentNumber + 1, 2)
        return try #require(PresentID(number: UInt64.random(in: 1...upper, using: &random)))
    }

    mutating func change() -> PresentChange {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return .title(pick(Self.titles))
        case 1: return .recipient(pick(Self.recipients))
        case 2: return .notes(pick(Self.notes))
        case 3: return .occasion(pick(Self.occasions))
        default: return .price(price())
        }
    }

    mutating func step(signedIn: Bool, state: GiftList) throws -> Step {
        if !signedIn {
            // Mostly log back in; sometimes try a present command while locked, or a wrong password.
            if chance(15) { return .login(correct: false) }
            if chance(15) { return .command(.addPresent(recipient: "Mum", title: "Locked out")) }
            return .login(correct: true)
        }
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<35:
            return .command(
                .addPresent(
                    recipient: pick(Self.recipients), title: pick(Self.titles), notes: pick(Self.notes),
                    price: price(), occasion: pick(Self.occasions)))
        case 35..<55:
            let count = Int.random(in: 0...3, using: &random)
            return .command(.editPresent(id: try id(state), changes: (0..<count).map { _ in change() }))
        case 55..<75:
            return .command(.markPresent(id: try id(state), status: pick(PresentStatus.allCases)))
        case 85..<92:
            return .signOut
        default:
            return .command(.removePresent(id: try id(state)))
        }
    }
}

@Suite struct ReplayPropertyTests {
    /// For random command sequences (valid and invalid, interleaved with sign-outs and
    /// logins), the state a fresh process replays from the journal equals the live state.
    @Test(arguments: [UInt64(1), 2, 3, 5, 8, 13, 21, 0xC0FFEE])
    func replayingTheJournalGivesTheLiveState(seed: UInt64) throws {
        let sandbox = try Sandbox()
        var generator = CommandGenerator(random: TestRandom(seed: seed))
        let service = try sandbox.setUp()
        var accepted = 0
        var refused = 0
        for index in 0..<45 {
            let step = try generator.step(signedIn: service.phase == .signedIn, state: service.state)
            do {
                switch step {
                case .command(let command):
                    let before = service.state
                    do {
                        let events = try service.perform(command).events
                        accepted += 1
                        // A command that changed nothing appends nothing.
                        if events.isEmpty { #expect(service.state == before, "seed \(seed) step \(index)") }
                    } catch {
                        refused += 1
                        // A refused command changes nothing.
                        #expect(service.state == before, "seed \(seed) step \(index)")
                        throw error
                    }
                case .signOut:
                    try service.signOut()
                case .login(let correct):
                    try service.login(password: password(correct ? "correct horse" : "wrong horse"))
                }
            } catch let error as ServiceError {
                switch error.code {
                case .domain, .notSignedIn, .wrongPassword:
                    continue
                default:
                    Issue.record("seed \(seed) step \(index): unexpected \(error)")
                }
            }
        }
        if service.phase != .signedIn {
            try service.login(password: password("correct horse"))
        }
        let live = service.state
        try service.close()

        let replayed = try sandbox.signIn()
        #expect(replayed.state.presents == live.presents, "seed \(seed)")
        #expect(replayed.state.removedPresents == live.removedPresents, "seed \(seed)")
        #expect(replayed.state.nextPresentNumber == live.nextPresentNumber, "seed \(seed)")
        #expect(replayed.state.accountName == live.accountName)
        #expect(accepted > 0 && refused > 0, "seed \(seed): the generator should produce both")
        // And the whole journal audits valid.
        try replayed.close()
        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        #expect(report.isValid, "seed \(seed): \(String(describing: report.problem))")
    }
}
