import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// The service over the in-memory store, and two sessions on one journal: a command that
/// lost the race to append is decided again on the state the other session made.
@Suite struct SharedJournalTests {
    /// A service on `location`, signed in (or set up, the first time).
    func session(_ sandbox: Sandbox, _ location: MemoryStoreLocation, setUp: Bool = false) throws -> GiftKeeperService {
        let service = GiftKeeperService(location: location, environment: sandbox.environment())
        let log = sandbox.notifications
        service.onNotification = { log.items.append($0) }
        try service.open()
        if setUp {
            try service.setup(name: "Alice", password: password("correct horse"), parameters: .testMinimum)
        } else {
            try service.login(password: password("correct horse"))
        }
        return service
    }

    @Test("The whole service runs over the memory store: set up, add, restart, sign in, same state")
    func serviceOverMemoryStore() throws {
        let sandbox = try Sandbox()
        let location = MemoryStoreLocation(path: sandbox.root + "/memory.journal")
        let first = try session(sandbox, location, setUp: true)
        try first.perform(.addPresent(recipient: "Mum", title: "Blue scarf", price: Money(parsing: "25")))
        let before = first.state.presents
        try first.close()

        let second = try session(sandbox, location)
        #expect(second.state.presents == before)
        #expect(second.accountName == "Alice")
        try second.close()
        let wrong = GiftKeeperService(location: location, environment: sandbox.environment())
        try wrong.open()
        #expect(serviceError { try wrong.login(password: password("not it")) }.map { "\($0.code)" } == "wrongPassword(recorded: true)")
    }

    @Test("A command that lost the race is decided again after catching up: the other session's present kept, a new id given")
    func conflictingAddIsDecidedAgain() throws {
        let sandbox = try Sandbox()
        let location = MemoryStoreLocation()
        let laptop = try session(sandbox, location, setUp: true)
        let desktop = try session(sandbox, location)

        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        // The desktop has not seen p1 yet; its add goes in after it, as p2.
        let events = try desktop.perform(.addPresent(recipient: "Mum", title: "Scarf")).events
        guard case .presentAdded(let id, _, _, _, _, _, _, _) = events.first?.body else {
            Issue.record("expected presentAdded, got \(events)")
            return
        }
        #expect(id.description == "p2")
        #expect(desktop.state.presents.keys.map(\.description) == ["p1", "p2"])
        #expect(desktop.state.presents.values.map(\.title) == ["Lego set", "Scarf"])

        // A fresh replay of the shared chain is exactly what the desktop holds.
        try desktop.close()
        try laptop.close()
        let replayed = try session(sandbox, location)
        #expect(replayed.state.presents.values.map(\.title) == ["Lego set", "Scarf"])
    }

    @Test("An edit to a present that another session removed meanwhile is refused after catching up, nothing appended")
    func editAfterRemoteRemove() throws {
        let sandbox = try Sandbox()
        let location = MemoryStoreLocation()
        let laptop = try session(sandbox, location, setUp: true)
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        let desktop = try session(sandbox, location)
        let id = try #require(laptop.state.presents.keys.first)
        try laptop.perform(.removePresent(id: id))
        let head = try #require(location.store?.handle()).head
        let error = serviceError { try desktop.perform(.markPresent(id: id, status: .bought)) }
        #expect(error.map { "\($0.code)" }?.hasPrefix("domain(") == true)
        #expect(try #require(location.store?.handle()).head == head)
        #expect(desktop.state.presents.isEmpty)
    }

    @Test("A password changed in another session signs this one out; the new password opens everything")
    func passwordChangedElsewhere() throws {
        let sandbox = try Sandbox()
        let location = MemoryStoreLocation()
        let laptop = try session(sandbox, location, setUp: true)
        let desktop = try session(sandbox, location)
        try laptop.changePassword(old: password("correct horse"), new: password("battery staple"))
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))

        let error = serviceError { try desktop.perform(.addPresent(recipient: "Mum", title: "Scarf")) }
        #expect(error.map { "\($0.code)" } == "passwordChangedElsewhere")
        #expect(desktop.phase == .locked)
        #expect(sandbox.notifications.items.last == .signedOut)
        try laptop.close()
        let again = GiftKeeperService(location: location, environment: sandbox.environment())
        try again.open()
        try again.login(password: password("battery staple"))
        #expect(again.state.presents.values.map(\.title) == ["Lego set"])
    }

    // MARK: One journal file, several processes (SPEC §12)

    @Test("Two sessions on one journal file both work: each takes in and tells the other's changes, adds never collide")
    func twoSessionsOnOneFile() throws {
        let sandbox = try Sandbox()
        let laptop = try sandbox.setUp()
        let desktop = try sandbox.signIn()
        var toldDesktop: [HistoryEntry] = []
        desktop.onChangesElsewhere = { toldDesktop += $0 }
        var toldLaptop: [HistoryEntry] = []
        laptop.onChangesElsewhere = { toldLaptop += $0 }

        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        try desktop.refresh()
        #expect(desktop.state.presents.values.map(\.title) == ["Lego set"])
        #expect(toldDesktop.compactMap { $0.event?.type } == [EventType.presentAdded])

        // The laptop has not looked since: its add is decided again after the desktop's.
        try desktop.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        try laptop.perform(.addPresent(recipient: "Eve", title: "Kite"))
        #expect(laptop.state.presents.keys.map(\.description) == ["p1", "p2", "p3"])
        #expect(laptop.state.presents.values.map(\.title) == ["Lego set", "Scarf", "Kite"])
        let toldTypes = toldLaptop.compactMap { $0.event?.type }
        #expect(toldTypes.contains(EventType.presentAdded))
        #expect(toldLaptop.last?.event.map { "\($0.body)" }?.contains("Scarf") == true)

        try desktop.refresh()
        #expect(desktop.state == laptop.state)
        try desktop.close()
        try laptop.close()
        let replayed = try sandbox.signIn()
        #expect(replayed.state.presents.values.map(\.title) == ["Lego set", "Scarf", "Kite"])
        try replayed.close()
        #expect(try Journal.verify(at: sandbox.journalPath).isValid)
    }

    @Test("A session still signed out when the password is changed in another signs in with the new one")
    func signInAfterPasswordChangedInAnotherProcess() throws {
        let sandbox = try Sandbox()
        let laptop = try sandbox.setUp()
        let desktop = sandbox.service()
        try desktop.open()
        try laptop.changePassword(old: password("correct horse"), new: password("battery staple"))
        try laptop.perform(.addPresent(recipient: "Dad", title: "Lego set"))
        #expect(serviceError { try desktop.login(password: password("correct horse")) }?.wrongPasswordRecorded == true)
        try desktop.login(password: password("battery staple"))
        #expect(desktop.state.presents.values.map(\.title) == ["Lego set"])
        try desktop.close()
        try laptop.close()
    }
}
