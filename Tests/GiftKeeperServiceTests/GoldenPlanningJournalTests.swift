import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

/// The journal that event schema version 2 wrote (planning: occasions, budgets, restore,
/// currency, url and store), kept byte for byte like the v1 one: every later GiftKeeper
/// must open it to the same state. Re-recorded only on purpose, with
/// `GIFTKEEPER_RECORD_GOLDEN=1 swift test --filter recordGoldenPlanningJournal`.
@Suite struct GoldenPlanningJournalTests {
    static let journalName = "v2-planning.journal"

    /// Password `golden`, test-minimum cost, times from 2026-12-01T09:00:00Z a second apart.
    @Test(.enabled(if: Golden.isRecording, "set GIFTKEEPER_RECORD_GOLDEN=1 to re-record"))
    func recordGoldenPlanningJournal() throws {
        let sandbox = try Sandbox()
        let service = sandbox.service()
        try service.open()
        try service.setup(name: "Golden Planner", password: password("golden"), parameters: .testMinimum, currency: "EUR")
        let christmas = CalendarDate(year: 2026, month: 12, day: 24)
        try service.perform(.addOccasion(Occasion(name: "Christmas", date: christmas, isYearly: true)))
        try service.perform(.addOccasion(Occasion(name: "Zoë's birthday", date: CalendarDate(year: 2015, month: 2, day: 29), isYearly: true)))
        try service.perform(.addOccasion(Occasion(name: "Someday")))
        try service.perform(
            .addPresent(
                recipient: "Mum", title: "Blue scarf", notes: "wool", price: try Money.parsePrice("25,00"), occasion: "christmas",
                url: "https://example.org/scarf", store: "Harrods"))
        try service.perform(.addPresent(recipient: "mum", title: "Tea sampler", price: try Money.parsePrice("12.50"), occasion: "Christmas"))
        try service.perform(.addPresent(recipient: "Zoe", title: "Kite", occasion: "Zoë's birthday"))
        try service.perform(.addPresent(recipient: "Zoë", title: "Book", price: try Money.parsePrice("9.99")))
        try service.perform(.editPresent(id: #require(PresentID(number: 3)), changes: [.store("Kites & Co"), .url("u")]))
        try service.perform(.markPresent(id: #require(PresentID(number: 1)), status: .given))
        try service.perform(.setBudget(Budget(scope: BudgetScope(recipient: "Mum"), amount: try Money.parsePrice("30"))))
        try service.perform(.setBudget(Budget(scope: BudgetScope(recipient: "Zoë", occasion: "Zoë's birthday"), amount: try Money.parsePrice("20"))))
        try service.perform(.setBudget(Budget(scope: BudgetScope(occasion: "Christmas"), amount: try Money.parsePrice("100"))))
        try service.perform(.clearBudget(BudgetScope(occasion: "CHRISTMAS")))
        try service.perform(.removePresent(id: #require(PresentID(number: 4))))
        try service.perform(.restorePresent(id: #require(PresentID(number: 4))))
        try service.perform(.removePresent(id: #require(PresentID(number: 2))))
        try service.perform(.removeOccasion(name: "someday"))
        _ = try service.undo()  // brings "Someday" back
        try service.signOut()
        try service.close()
        let bytes = try sandbox.journalBytes()
        try Golden.record(bytes, as: Self.journalName)
    }

    @Test func theCommittedV2JournalStillOpensToTheSameState() throws {
        let (sandbox, _) = try Golden.sandbox(with: Self.journalName)
        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("golden"), environment: sandbox.environment())
        #expect(report.isValid, "\(String(describing: report.problem))")
        #expect(
            Set(report.records.compactMap(\.event?.type))
                == Set(EventType.allCases).subtracting([
                    .loginFailed, .passwordChanged, .stateExported, .presentImported,
                    // Came after this journal's version (issue 29).
                    .budgetSetForYear, .budgetClearedForYear, .occasionClosed, .profileFieldSet,
                    // A household's (issue 28).
                    .wishAdded, .wishRemoved, .wishClaimed, .wishUnclaimed, .giversSet,
                ]))

        let service = try sandbox.signIn(password: "golden")
        let state = service.state
        #expect(state.currency == "EUR")
        #expect(state.occasions.values.map(\.name) == ["Christmas", "Zoë's birthday", "Someday"])
        #expect(state.occasions.values.first?.date == CalendarDate(year: 2026, month: 12, day: 24))
        #expect(state.occasions.values.first?.isYearly == true)
        #expect(state.presents.keys.map(\.description) == ["p1", "p3", "p4"])
        #expect(state.removedPresents.keys.map(\.description) == ["p2"])
        let scarf = try #require(state.presents.values.first)
        #expect(scarf.recipient == "Mum" && scarf.occasion == "Christmas" && scarf.price?.description == "25.00")
        #expect(scarf.url == "https://example.org/scarf" && scarf.store == "Harrods")
        #expect(scarf.status == .given && scarf.givenAt != nil)
        #expect(state.removedPresents.values.first?.recipient == "Mum")  // typed "mum"
        #expect(state.presents.values.map(\.recipient) == ["Mum", "Zoe", "Zoe"])  // the first spelling, "Zoe"
        #expect(state.presents.values.dropFirst().first?.store == "Kites & Co")
        #expect(
            state.budgets.values.map { "\($0.scope.recipient ?? "*")/\($0.scope.occasion ?? "*") \($0.amount)" } == [
                "Mum/* 30.00", "Zoe/Zoë's birthday 20.00",
            ])
        #expect(state.standing(try #require(state.budgets.values.first)).spent.description == "25.00")
        // Time travel to the end is the current state; to its first second, the account only.
        let end = try service.state(asOf: Timestamp(millisecondsSinceEpoch: .max))
        #expect(end == state)
        let start = try service.state(asOf: try #require(report.records.compactMap(\.at).first))
        #expect(start.presents.isEmpty && start.accountName == "Golden Planner")
        try service.close()
    }

    /// `import` reads both formats: the export v1 document an older GiftKeeper wrote, and
    /// the v2 one this version writes, which brings occasions, budgets and the currency.
    @Test func exportsOfBothFormatsImport() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        let version1 = try service.importDocument(try Golden.bytes("export-v1.json"))
        #expect(version1.presentsImported == 3)
        try service.close()

        let source = try sandbox.signIn(password: "golden", path: try goldenCopy(sandbox))
        var exported = CollectedExport()
        try source.export(to: &exported)
        try source.close()
        let target = try sandbox.setUp(path: sandbox.root + "/other.journal")
        _ = try target.importDocument(exported.bytes)
        #expect(target.state.currency == "EUR")
        #expect(target.state.occasions.values.map(\.name) == ["Christmas", "Zoë's birthday", "Someday"])
        #expect(target.state.budgets.count == 2)
        #expect(target.state.presents.values.first?.givenAt != nil)
        try target.close()
    }

    private func goldenCopy(_ sandbox: Sandbox) throws -> String {
        let path = sandbox.root + "/golden-copy.journal"
        try writeBytes(try Golden.bytes(Self.journalName), to: path)
        return path
    }
}
