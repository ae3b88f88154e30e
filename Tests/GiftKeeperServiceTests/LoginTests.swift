import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import OrderedCollections
import Testing

@Suite struct NotificationTests {
    /// Signed in, signed out and failed attempt, in the order they happen.
    @Test func everyLoginStatusChangeIsAnnounced() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Alice")
        #expect(sandbox.notifications.items == [.signedIn(name: "Alice", failedAttempts: 0, previousVisit: nil)])
        try service.signOut()
        #expect(sandbox.notifications.items.last == .signedOut)

        _ = serviceError { try service.login(password: password("nope")) }
        _ = serviceError { try service.login(password: password("still nope")) }
        #expect(
            Array(sandbox.notifications.items.suffix(2)) == [
                .failedAttempt(recorded: true, nextDelaySeconds: 0),
                .failedAttempt(recorded: true, nextDelaySeconds: 0),
            ])
        try service.login(password: password("correct horse"))
        guard case .signedIn("Alice", 2, let previous)? = sandbox.notifications.items.last else {
            Issue.record("expected signedIn with 2 failed attempts: \(sandbox.notifications.items)")
            return
        }
        // The previous visit is the setup's sign-in: the first instant of the clock.
        #expect(previous == Timestamp(millisecondsSinceEpoch: CounterClock.start))

        // The failed attempts are counted once: the next visit reports none.
        try service.signOut()
        try service.login(password: password("correct horse"))
        guard case .signedIn(_, 0, _)? = sandbox.notifications.items.last else {
            Issue.record("expected signedIn with 0 failed attempts: \(sandbox.notifications.items)")
            return
        }
        try service.close()
        #expect(sandbox.notifications.items.last == .signedOut)
    }

    /// A crash (the service dropped without signOut or close) is recorded at the next login.
    @Test func aSessionEndedWithoutSignOutIsRecordedAsUnclean() throws {
        let sandbox = try Sandbox()
        do {
            let crashed = try sandbox.setUp()
            try crashed.perform(.addPresent(recipient: "Mum", title: "Scarf"))
            // `crashed` goes out of scope here without close() or sign-out.
        }
        sandbox.notifications.items.removeAll()
        let service = try sandbox.signIn()
        #expect(sandbox.notifications.items.count == 2)
        #expect(sandbox.notifications.items.first == .uncleanSessionRecorded)
        guard case .signedIn("Alice", 0, _)? = sandbox.notifications.items.last else {
            Issue.record("expected signedIn: \(sandbox.notifications.items)")
            return
        }
        let history = try service.historyEntries()
        let signOuts = history.compactMap { record -> Bool? in
            if case .signedOut(let clean)? = record.event?.body { return clean }
            return nil
        }
        #expect(signOuts == [false])
        #expect(service.state.presents.count == 1)
        // A clean sign-out afterwards is not reported as unclean next time.
        try service.signOut()
        sandbox.notifications.items.removeAll()
        try service.login(password: password("correct horse"))
        #expect(!sandbox.notifications.items.contains(.uncleanSessionRecorded))
        try service.close()
    }
}

@Suite struct BackoffTests {
    /// SPEC §1: three failures cost nothing; then 1 s, 2 s, 4 s … capped at 30 s.
    @Test func theDelayDoublesFromOneSecondAndIsCappedAtThirty() {
        #expect((0...10).map { loginDelay(afterFailures: $0) } == [0, 0, 0, 1, 2, 4, 8, 16, 30, 30, 30])
        #expect(loginDelay(afterFailures: 1_000_000) == 30)
        #expect(loginDelay(afterFailures: -1) == 0)
    }

    /// After n wrong passwords the next try waits nothing for n < 3, then 1, 2, 4, 8, 16,
    /// 30 s, counted down a second at a time; the count comes from the journal, so a new
    /// process waits too; a success resets it.
    @Test func consecutiveFailuresSlowTheNextTryEvenInANewProcess() throws {
        let sandbox = try Sandbox()
        let first = try sandbox.setUp()
        try first.signOut()
        #expect(first.nextLoginDelay == 0)
        sandbox.sleeps.removeAll()
        sandbox.waits.removeAll()
        var announced: [Int] = []
        for _ in 0..<8 {
            let error = serviceError { try first.login(password: password("wrong")) }
            #expect(error?.wrongPasswordRecorded == true)
            if case .failedAttempt(_, let delay)? = sandbox.notifications.items.last { announced.append(delay) }
        }
        // The sleep before the (n+1)-th try, after n failures.
        #expect(sandbox.waits.totals == [1, 2, 4, 8, 16])
        #expect(Array(sandbox.waits.ticks.prefix(6)) == [1, 0, 2, 1, 0, 4], "a countdown, second by second")
        #expect(sandbox.sleeps.delays == Array(repeating: 1, count: 31), "in one-second steps")
        #expect(announced == [0, 0, 1, 2, 4, 8, 16, 30])
        #expect(first.nextLoginDelay == 30)
        try first.close()

        sandbox.waits.removeAll()
        let second = sandbox.service()
        try second.open()
        #expect(second.phase == .locked)
        #expect(second.nextLoginDelay == 30)
        try second.login(password: password("correct horse"))
        #expect(sandbox.waits.totals == [30])
        guard case .signedIn(_, 8, _)? = sandbox.notifications.items.last else {
            Issue.record("expected 8 failed attempts: \(sandbox.notifications.items)")
            return
        }
        try second.signOut()
        #expect(second.nextLoginDelay == 0)
        try second.close()

        let third = sandbox.service()
        try third.open()
        #expect(third.nextLoginDelay == 0)
        sandbox.waits.removeAll()
        for _ in 0..<3 { _ = serviceError { try third.login(password: password("wrong")) } }
        #expect(third.nextLoginDelay == 1)
        try third.login(password: password("correct horse"))
        #expect(sandbox.waits.totals == [1])
        try third.close()
    }

    /// An empty password is refused before any wait or any work, and recorded nowhere.
    @Test func anEmptyPasswordIsRefusedWithoutBeingRecorded() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.signOut()
        let before = try sandbox.journalBytes()
        sandbox.sleeps.removeAll()
        let error = serviceError { try service.login(password: password("")) }
        guard case .emptyPassword? = error?.code else {
            Issue.record("expected emptyPassword, got \(String(describing: error))")
            return
        }
        #expect(try sandbox.journalBytes() == before)
        #expect(sandbox.sleeps.delays.isEmpty)
    }
}
