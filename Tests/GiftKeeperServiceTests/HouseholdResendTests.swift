import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperTestSupport
import OrderedCollections
import Testing

/// Offline work sent once (docs/threat-model.md, "Offline work and merge in a household",
/// "Sent once"): a connection that dies while the pending changes go, before an append or
/// after it was committed with its answer lost, leaves the next sync to send the rest; no
/// present exists twice. And the member whose edit gave way to an offline one is told.
@Suite struct HouseholdResendTests {
    typealias Household = HouseholdSessionTests.Household

    /// The service's journal over a connection that dies at one append (counted from when
    /// ``dieAt`` is set): before it reaches the journal, or after it was committed (its
    /// answer lost). Dead, every call fails as an unreachable service's.
    final class DyingConnection: FrameStore {
        let inner: MemoryFrameStore
        var dieAt: (append: Int, committed: Bool)?
        private var appends = 0
        private var dead = false

        init(_ inner: MemoryFrameStore) {
            self.inner = inner
        }

        var name: String { inner.name }
        var header: JournalHeader { inner.header }
        var head: JournalHead { inner.head }
        var frameIndex: FrameIndex { inner.frameIndex }

        func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
            try alive()
            guard let dieAt else { return try inner.append(batch) }
            appends += 1
            guard appends == dieAt.append else { return try inner.append(batch) }
            if dieAt.committed { _ = try inner.append(batch) }
            dead = true
            throw JournalError(.unreachable(.noConnection), path: name)
        }

        func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
            try alive()
            try inner.read(after: sequence, progress: progress, body)
        }

        func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
            try alive()
            return try inner.waitForFrames(after: sequence, milliseconds: milliseconds)
        }

        private func alive() throws(JournalError) {
            if dead { throw JournalError(.unreachable(.noConnection), path: name) }
        }
    }

    /// A clock a millisecond later at each look: each offline command is a change of its own.
    final class Ticking: @unchecked Sendable {
        private let lock = NSLock()
        private var milliseconds: Int64 = 1_800_000_000_000

        func now() -> Timestamp {
            lock.lock()
            defer { lock.unlock() }
            milliseconds += 1
            return Timestamp(millisecondsSinceEpoch: milliseconds)
        }
    }

    static func password(_ name: String) throws -> SecureBytes {
        try HouseholdSessionTests.secret(name == "Alice" ? "alice-pw" : name + "-pw")
    }

    /// Bob on his device's copy of the journal as it is now (the service out of reach), his
    /// clock ticking; the shared head his pending work follows.
    static func offline(_ home: Household, clock: Ticking) throws -> (session: HouseholdSession, base: UInt64) {
        let shared = home.store.handle()
        let fork = MemoryFrameStore(header: shared.header, path: "offline")
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: shared.header.genesisHash), path: "offline")
        try shared.read(after: 0, progress: nil) { try batch.add(kind: $0.kind, payload: Array($0.payload)) }
        _ = try fork.handle().append(batch)
        let session = try HouseholdSession.open(
            fork.handle(), as: home.bob.id, name: "Bob", password: try password("Bob"), now: { clock.now() })
        return (session, shared.head.sequence)
    }

    /// Bob signed in again through the service (a new connection: the next sync).
    static func online(_ home: Household, over store: any FrameStore) throws -> HouseholdSession {
        try HouseholdSession.open(store, as: home.bob.id, name: "Bob", password: try password("Bob"), now: Household.now)
    }

    /// A household with Grandma's "Tea" (its id), and Alice's device: its copy keeps her
    /// verified mark only (in memory); each of her shells there reads the household's journal.
    final class AlicesDevice {
        let home: Household
        let tea: PresentID
        private var mark: [UInt8]?
        private let directory: TemporaryDirectory

        init() throws {
            home = try Household()
            try home.alice.perform(.addPresent(recipient: "Grandma", title: "Tea"))
            try home.sync()
            tea = try #require(home.bob.state.presents.values.first?.id)
            directory = try TemporaryDirectory()
        }

        func shell() -> HouseholdShellService {
            let copy = HouseholdShellService.DeviceCopy(
                mark: { [unowned self] in self.mark }, keep: { [unowned self] in self.mark = try? $0.verifiedMark() })
            return HouseholdShellService(
                journalPath: directory.file("alice.gk"), member: home.alice.id, name: "Alice", now: Household.now, server: nil, copy: copy,
                openStore: { [store = home.store] _ in store.handle() })
        }

        /// A shell of Alice's, signed in, her notes on "Tea" set after the head Bob's offline
        /// copy set his from; `send` sends Bob's.
        func aliceEditsAfterBobOffline() throws -> (alice: HouseholdShellService, send: () throws -> Void) {
            let alice = shell()
            try alice.login(password: try HouseholdResendTests.password("Alice"))
            let (offline, base) = try HouseholdResendTests.offline(home, clock: Ticking())
            try offline.perform(.editPresent(id: tea, changes: [.notes("Bob's")]))
            try alice.perform(.editPresent(id: tea, changes: [.notes("Alice's")]))
            return (alice, { [home] in _ = try home.bob.replay(try offline.pendingChanges(after: base)) })
        }
    }

    static func titles(_ session: HouseholdSession) -> [String] { session.state.presents.values.map(\.title).sorted() }

    @Test("A connection lost after k of n offline changes went, or with an answer lost, never sends one twice")
    func aLostConnectionNeverSendsAChangeTwice() throws {
        var random = TestRandom()
        let people = ["Alice", "Carol", "Grandma"]
        for round in 0..<12 {
            let home = try Household()
            let clock = Ticking()
            let (offline, base) = try Self.offline(home, clock: clock)
            var recipients: [String: String] = [:]
            var privately: Set<String> = []
            var notes: [String: String] = [:]
            let count = Int.random(in: 2...6, using: &random)
            for step in 0..<count {
                let mine = offline.state.presents.values.filter { recipients[$0.title] != nil }
                if let present = mine.randomElement(using: &random), Bool.random(using: &random) {
                    // Follows the number its add is given when sent.
                    try offline.perform(.editPresent(id: present.id, changes: [.notes("note \(step)")]))
                    notes[present.title] = "note \(step)"
                } else {
                    let title = "Offline \(round)-\(step)"
                    let secret = Int.random(in: 0..<4, using: &random) == 0
                    recipients[title] = people[Int.random(in: 0..<people.count, using: &random)]
                    try offline.perform(.addPresent(recipient: recipients[title] ?? "", title: title), privately: secret)
                    if secret { privately.insert(title) }
                }
            }
            // Meanwhile, online: Bob's offline numbers are taken.
            try home.alice.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
            recipients["Scarf"] = "Grandma"
            let pending = try offline.pendingChanges(after: base)
            #expect(pending.count == count, "round \(round), \(random)")

            let connection = DyingConnection(home.store.handle())
            let first = try Self.online(home, over: connection)
            let dying = (append: Int.random(in: 1...count, using: &random), committed: Bool.random(using: &random))
            connection.dieAt = dying
            #expect(throws: HouseholdSessionError.self, "round \(round), \(dying)") { try first.replay(pending) }

            // The next sync sends the rest; the one after finds nothing to send.
            _ = try Self.online(home, over: home.store.handle()).replay(try offline.pendingChanges(after: base))
            let head = home.store.handle().head
            _ = try Self.online(home, over: home.store.handle()).replay(try offline.pendingChanges(after: base))
            #expect(home.store.handle().head == head, "round \(round), \(dying): nothing sent twice")
            try home.sync()

            for member in [home.alice, home.bob, home.carol] {
                let expected = recipients.filter { title, recipient in
                    title == "Scarf" || member.name == "Bob" || (!privately.contains(title) && recipient != member.name)
                }.keys.sorted()
                #expect(Self.titles(member) == expected, "round \(round), \(dying), \(random): each present once")
                for present in member.state.presents.values {
                    #expect(present.notes == notes[present.title] ?? "", "round \(round), \(dying)")
                }
            }
        }
    }

    @Test func twoProcessesOfOneDeviceSendingAtOnceSendEachChangeOnce() throws {
        let home = try Household()
        let (offline, base) = try Self.offline(home, clock: Ticking())
        try offline.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try offline.perform(.editPresent(id: try #require(offline.state.presents.values.first?.id), changes: [.notes("green")]))
        try offline.perform(.addPresent(recipient: "Carol", title: "Gloves"))
        try home.carol.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        let pending = try offline.pendingChanges(after: base)
        let (one, other) = (try Self.online(home, over: home.store.handle()), try Self.online(home, over: home.store.handle()))

        _ = try one.replay(Array(pending.prefix(1)))
        // The other process appends after the first one's change: it finds it there and sends the rest.
        _ = try other.replay(pending)
        let head = home.store.handle().head
        _ = try one.replay(pending)
        #expect(home.store.handle().head == head)
        try home.sync()
        #expect(Self.titles(home.alice) == ["Gloves", "Scarf", "Tea"])
        #expect(Self.titles(home.carol) == ["Scarf", "Tea"])
        #expect(home.alice.state.presents.values.first { $0.title == "Tea" }?.notes == "green")
    }

    @Test func aMemberWhoseEditAnOfflineChangeOverrodeIsToldAndNobodyElse() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Tea", price: Money(parsing: "30")))
        try home.sync()
        let tea = try #require(home.bob.state.presents.values.first?.id)
        try home.alice.perform(.editPresent(id: tea, changes: [.notes("before")]))
        try home.sync()
        let (offline, base) = try Self.offline(home, clock: Ticking())
        try offline.perform(.editPresent(id: tea, changes: [.notes("Bob's"), .price(Money(parsing: "40"))]))
        // After the head Bob worked from: Alice sets the notes, Carol the occasion.
        try home.alice.perform(.editPresent(id: tea, changes: [.notes("Alice's")]))
        try home.carol.perform(.editPresent(id: tea, changes: [.occasion("Christmas")]))
        let told = (alice: home.alice.member.store.head.sequence, carol: home.carol.member.store.head.sequence)

        _ = try home.bob.replay(try offline.pendingChanges(after: base))
        try home.sync()
        let overridden = home.alice.overridden(after: told.alice)
        #expect(overridden.map(\.id) == [tea])
        #expect(overridden.map(\.title) == ["Tea"])
        #expect(overridden.map(\.kind) == [.replaced(yours: .field(.notes("Alice's")), winning: .field(.notes("Bob's")))])
        #expect(overridden.map(\.winner) == [.member("Bob")], "the signature names whose change won")
        #expect(home.carol.overridden(after: told.carol).isEmpty, "Carol's occasion stands")
        #expect(home.bob.overridden(after: base).isEmpty, "his own")
        #expect(home.alice.state.presents[tea]?.notes == "Bob's")
    }

    @Test func anEditAnotherDeviceOfTheSameMemberOverrodeIsToldAsTheirs() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try home.sync()
        let tea = try #require(home.bob.state.presents.values.first?.id)
        let (offline, base) = try Self.offline(home, clock: Ticking())
        try offline.perform(.editPresent(id: tea, changes: [.notes("from the laptop")]))
        // Bob's phone, online, sets the notes after the head his laptop worked from.
        let phone = try Self.online(home, over: home.store.handle())
        try phone.perform(.editPresent(id: tea, changes: [.notes("from the phone")]))
        let told = phone.member.store.head.sequence

        _ = try home.bob.replay(try offline.pendingChanges(after: base))
        try phone.catchUp()
        let overridden = phone.overridden(after: told)
        #expect(overridden.map(\.kind) == [.replaced(yours: .field(.notes("from the phone")), winning: .field(.notes("from the laptop")))])
        #expect(overridden.map(\.winner) == [.yourOtherDevice])
    }

    @Test func theShellTellsItAtItsNextSyncOnce() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try home.sync()
        let tea = try #require(home.bob.state.presents.values.first?.id)
        let directory = try TemporaryDirectory()
        let alice = HouseholdSignInTests.shell(home, home.alice, record: directory.file("alice.gk"))
        try alice.login(password: try Self.password("Alice"))
        let (offline, base) = try Self.offline(home, clock: Ticking())
        try offline.perform(.editPresent(id: tea, changes: [.notes("Bob's")]))
        try alice.perform(.editPresent(id: tea, changes: [.notes("Alice's")]))
        try alice.refresh()
        #expect(try alice.syncIfNeeded() == nil, "nothing to tell yet")

        _ = try home.bob.replay(try offline.pendingChanges(after: base))
        try alice.refresh()
        let report = try #require(try alice.syncIfNeeded())
        #expect(report.overridden.map(\.kind) == [.replaced(yours: .field(.notes("Alice's")), winning: .field(.notes("Bob's")))])
        try alice.refresh()
        #expect(try alice.syncIfNeeded() == nil, "told once")
    }

    @Test func aShellThatEndsWithoutSigningOutAfterTellingItDoesNotTellItAgain() throws {
        let device = try AlicesDevice()
        let (alice, send) = try device.aliceEditsAfterBobOffline()
        try send()
        try alice.refresh()
        let report = try #require(try alice.syncIfNeeded())
        #expect(report.overridden.map(\.winner) == [.member("Bob")])

        // Alice's shell ends there, never signing out (killed); her next one does not tell it again.
        let next = device.shell()
        try next.login(password: try Self.password("Alice"))
        #expect(try next.syncIfNeeded() == nil, "told once, before the crash")
        try next.signOut()
    }

    @Test func aPayloadWithoutAMarkReadsAsItAlwaysDidAndOneCutShortIsRefused() throws {
        let event = EventCodec.encode(Event(at: Household.now(), .presentRemoved(id: try #require(PresentID(number: 3)))))
        let plain = try #require(ReplayMark.split(event))
        #expect(plain.mark == nil && plain.event == event)
        let mark = ReplayMark(origin: Array(repeating: 7, count: 32), base: 41)
        #expect(mark.origin.count == ReplayMark.originLength)
        let marked = try #require(ReplayMark.split(mark.marking(event)))
        #expect(marked.mark == mark && marked.event == event)
        #expect(ReplayMark.split(Array(mark.marking(event).prefix(20))) == nil)
    }

    @Test("The copy and the pending file part where their chains do: the copy as it was, grown since, or replaced")
    func theCopyAndThePendingFilePartWhereTheirChainsDo() throws {
        let header = try VerifiedFrames.newHeader(journalID: try randomBytes(count: 16), path: "copy", household: true).header
        func store(_ payloads: [[UInt8]]) throws -> MemoryFrameStore {
            let store = MemoryFrameStore(header: header, path: "copy")
            var batch = FrameBatch(after: JournalHead(sequence: 0, hash: header.genesisHash), path: "copy")
            for payload in payloads { try batch.add(kind: .householdEvent, payload: payload) }
            _ = try store.handle().append(batch)
            return store.handle()
        }
        let shared: [[UInt8]] = (1...3).map { [UInt8](repeating: $0, count: 40) }
        let pending = try store(shared + [[9, 9], [9, 8]])
        #expect(try HouseholdOffline.base(pending: pending, copy: try store(shared)) == 3)
        #expect(try HouseholdOffline.base(pending: pending, copy: try store(shared + [[7], [7, 7]])) == 3, "grown since")
        #expect(try HouseholdOffline.base(pending: pending, copy: try store(Array(shared.prefix(1)) + [[5]])) == 1, "replaced")
        #expect(try HouseholdOffline.base(pending: try store(shared), copy: try store(shared)) == 3, "nothing pending")
        #expect(try HouseholdOffline.base(pending: pending, copy: try store([[6]])) == 0, "no frame in common")
    }

    @Test func aDeviceSignedOutWhenTheChangeCameIsToldAtItsNextSignInOnce() throws {
        let device = try AlicesDevice()
        let (alice, send) = try device.aliceEditsAfterBobOffline()
        try alice.signOut()

        try send()
        try alice.login(password: try Self.password("Alice"))
        let report = try #require(try alice.syncIfNeeded())
        #expect(report.overridden.map(\.kind) == [.replaced(yours: .field(.notes("Alice's")), winning: .field(.notes("Bob's")))])
        try alice.signOut()
        try alice.login(password: try Self.password("Alice"))
        #expect(try alice.syncIfNeeded() == nil, "told once")
    }
}
