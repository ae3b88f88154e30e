import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Testing

/// The wait after failed sign-ins to a household on a device, as a person's journal makes it
/// (SPEC §1): the first three failures in a row cost nothing, then each check waits 1 s,
/// 2 s, 4 s … (capped at 30 s), counted down; a sign-in ends the run.
@Suite struct HouseholdSignInWaitTests {
    @Test("From Bob's fourth wrong password in a row on his device each check waits longer, counted down; signing in ends the run")
    func waitGrows() throws {
        let home = try HouseholdSessionTests.Household()
        let directory = try TemporaryDirectory()
        let record = directory.file("bob.gk")
        let (sleeps, waits) = (SleepRecorder(), WaitLog())
        var told: [LoginNotification] = []
        func signIn(_ password: String) -> Bool {
            let service = HouseholdShellService(
                journalPath: record, member: home.bob.id, name: home.bob.name, now: HouseholdSessionTests.Household.now, server: nil,
                sleep: { sleeps.record($0) }, openStore: { [store = home.store] _ in store.handle() })
            service.onNotification = { told.append($0) }
            service.onWaiting = { waits.tick($0) }
            defer { try? service.signOut() }
            return (try? service.login(password: try HouseholdSessionTests.secret(password))) != nil
        }
        #expect(signIn("Bob-pw"))  // the first sign-in here keeps his public key: failures are counted from then on
        told = []
        for _ in 0..<6 { #expect(!signIn("not-bobs")) }
        #expect(told.compactMap { if case .failedAttempt(_, let next) = $0 { next } else { nil } } == [0, 0, 1, 2, 4, 8])
        #expect(told.filter { $0 == .householdPasswordMayBeNew }.count == 6)
        #expect(waits.totals == [1, 2, 4])
        #expect(waits.ticks.suffix(5) == [4, 3, 2, 1, 0])
        #expect(sleeps.delays == Array(repeating: 1, count: 7))
        // The right password waits too (eight seconds now), then the run is over: told once, no wait after.
        told = []
        #expect(signIn("Bob-pw"))
        #expect(waits.totals.last == 8 && sleeps.delays.count == 15)
        #expect(told.first == .signedIn(name: "Bob", failedAttempts: 6, previousVisit: nil))
        #expect(!signIn("not-bobs") && signIn("Bob-pw"))
        #expect(sleeps.delays.count == 15)
    }

    @Test("A one-shot household command waits as the shell does: the same count on the device, 1 s, 2 s, 4 s, counted down; Ctrl-C ends it")
    func oneShotWaits() throws {
        let home = try HouseholdSessionTests.Household()
        let directory = try TemporaryDirectory()
        let record = directory.file("bob.gk")
        // Bob's first sign-in here keeps his public key, from which failures are counted.
        let service = HouseholdShellService(
            journalPath: record, member: home.bob.id, name: home.bob.name, now: HouseholdSessionTests.Household.now, server: nil,
            sleep: { _ in }, openStore: { [store = home.store] _ in store.handle() })
        try service.login(password: try HouseholdSessionTests.secret("Bob-pw"))
        try service.signOut()
        let (sleeps, waits) = (SleepRecorder(), WaitLog())
        func oneShot(cancelAfter: Int? = nil) -> Bool {
            HouseholdLoginReports.waitBeforeChecking(
                record: record, sleep: { sleeps.record($0) }, isCancelled: { cancelAfter.map { sleeps.delays.count >= $0 } ?? false },
                onWaiting: { waits.tick($0) })
        }
        // Before each check, the failures recorded so far: none, 1, 2, 3 (1 s), 4 (2 s), 5 (4 s).
        for _ in 0..<6 {
            #expect(oneShot())  // the check goes on after the wait
            #expect(HouseholdLoginReports.recordFailure(record: record, at: HouseholdSessionTests.Household.now()))
        }
        #expect(waits.totals == [1, 2, 4] && waits.ticks.suffix(5) == [4, 3, 2, 1, 0])
        #expect(sleeps.delays == Array(repeating: 1, count: 7))
        // Ctrl-C two seconds into the next wait (8 s, six failures) ends it: the password is not checked.
        #expect(!oneShot(cancelAfter: 9))
        #expect(sleeps.delays.count == 9 && waits.ticks.last == 0)
        // A sign-in ends the run: no wait after.
        try service.login(password: try HouseholdSessionTests.secret("Bob-pw"))
        try service.signOut()
        #expect(oneShot() && sleeps.delays.count == 9)
    }
}
