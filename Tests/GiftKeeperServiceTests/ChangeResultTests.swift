import GiftKeeperDomain
import GiftKeeperService
import Testing

/// What `perform` says a change did, so that the shell tells it without comparing the
/// list before and after: the budgets it took over, and for an `add` the similar
/// presents the person already had (SPEC §10).
@Suite struct ChangeResultTests {
    @Test func anAddSaysTheBudgetItTookOverAndThePresentsLikeIt() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.perform(.setBudget(Budget(scope: BudgetScope(recipient: "Mum"), amount: try Money.parsePrice("30"))))
        let first = try service.perform(.addPresent(recipient: "Mum", title: "Wool socks", price: try Money.parsePrice("20")))
        #expect(first.budgetsCrossed.isEmpty)
        #expect(first.similar.isEmpty)
        try service.perform(.addPresent(recipient: "Dad", title: "Wool socks"))

        let second = try service.perform(.addPresent(recipient: "mum", title: "Grey wool socks", price: try Money.parsePrice("15")))
        #expect(second.events.count == 1)
        #expect(second.similar == [try #require(PresentID(number: 1))])  // Mum's, not Dad's
        #expect(second.budgetsCrossed.map(\.budget.scope) == [BudgetScope(recipient: "Mum")])

        // Still over: said once, when it was crossed, not at every change after.
        let third = try service.perform(.addPresent(recipient: "Mum", title: "Kite", price: try Money.parsePrice("5")))
        #expect(third.budgetsCrossed.isEmpty)
        #expect(third.similar.isEmpty)

        // A lower amount takes a budget over too; marking a present bought does not (a budget
        // counts what is planned and spent together).
        try service.perform(.setBudget(Budget(scope: BudgetScope(occasion: "Christmas"), amount: try Money.parsePrice("50"))))
        try service.perform(.editPresent(id: try #require(PresentID(number: 1)), changes: [.occasion("Christmas")]))
        let lowered = try service.perform(
            .setBudget(Budget(scope: BudgetScope(occasion: "Christmas"), amount: try Money.parsePrice("10"))))
        #expect(lowered.budgetsCrossed.map(\.budget.scope) == [BudgetScope(occasion: "Christmas")])
        let marked = try service.perform(.markPresent(id: try #require(PresentID(number: 1)), status: .bought))
        #expect(marked.events.count == 1)
        #expect(marked.budgetsCrossed.isEmpty)
    }

    @Test func aChangeAlreadyMadeSaysNothing() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        let again = try service.perform(.markPresent(id: try #require(PresentID(number: 1)), status: .idea))
        #expect(again.events.isEmpty)
        #expect(again.budgetsCrossed.isEmpty)
    }
}
