import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperTestSupport
import OrderedCollections
import Testing

/// Offline work and merge in a household (docs/threat-model.md, "Offline work and merge in a
/// household"), in process: Bob works on a fork of the chain (his device's copy, the service
/// out of reach) while Alice and Carol go on; back online, his pending changes are decided
/// again at the shared head, sealed for the audience they have there and signed at their
/// new positions (``HouseholdSession/replay(_:)``).
@Suite struct HouseholdOfflineTests {
    typealias Household = HouseholdSessionTests.Household

    /// A fork of `store` as it is now (the device's copy), and Bob signed in to it offline.
    static func offline(_ home: Household, _ name: String = "Bob") throws -> (session: HouseholdSession, base: UInt64) {
        let shared = home.store.handle()
        let fork = MemoryFrameStore(header: shared.header, path: "offline")
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: shared.header.genesisHash), path: "offline")
        try shared.read(after: 0, progress: nil) { try batch.add(kind: $0.kind, payload: Array($0.payload)) }
        _ = try fork.handle().append(batch)
        let id = try #require([home.alice, home.bob, home.carol].first { $0.name == name }?.id)
        let password = try HouseholdSessionTests.secret(name == "Alice" ? "alice-pw" : name + "-pw")
        let session = try HouseholdSession.open(fork.handle(), as: id, name: name, password: password, now: Household.now)
        return (session, shared.head.sequence)
    }

    static func titles(_ session: HouseholdSession) -> [String] { session.state.presents.values.map(\.title).sorted() }

    static func id(_ title: String, in session: HouseholdSession) throws -> PresentID {
        try #require(session.state.presents.values.first { $0.title == title }?.id)
    }

    @Test func offlineChangesReachEveryoneTheyAreForAndNeverTheirRecipient() throws {
        let home = try Household()
        let (offline, base) = try Self.offline(home)
        try offline.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try offline.perform(.addPresent(recipient: "Alice", title: "Book"))
        try offline.perform(.addPresent(recipient: "Carol", title: "Gloves"), privately: true)
        // Meanwhile, online: numbers Bob cannot see (Kite is for him).
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        try home.alice.perform(.addPresent(recipient: "Bob", title: "Kite"))

        let pending = try offline.pendingChanges(after: base)
        #expect(pending.map(\.events.count) == [1, 1, 1])
        #expect(pending.map(\.privately) == [false, false, true])
        let told = try home.bob.replay(pending)
        try home.sync()

        #expect(Self.titles(home.alice) == ["Kite", "Scarf", "Tea"])
        #expect(Self.titles(home.bob) == ["Book", "Gloves", "Scarf", "Tea"])
        #expect(Self.titles(home.carol) == ["Book", "Kite", "Scarf", "Tea"])
        // Every present has a number of its own, the same for everyone who sees it.
        let carolIDs = home.carol.state.presents.values.map(\.id)
        #expect(Set(carolIDs).count == carolIDs.count)
        #expect(try Self.id("Tea", in: home.alice) == Self.id("Tea", in: home.carol))
        #expect(try Self.id("Kite", in: home.alice) != Self.id("Tea", in: home.bob))
        // Bob's offline numbers were the ones Alice's frames took: each was given a new one, and told.
        #expect(told.count == 3)
        #expect(told.allSatisfy { if case .renumbered = $0 { true } else { false } })
    }

    @Test func laterChangesAboutAnAddOfflineFollowItsNewNumber() throws {
        let home = try Household()
        let (offline, base) = try Self.offline(home)
        try offline.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try offline.perform(.editPresent(id: try Self.id("Tea", in: offline), changes: [.notes("green")]))
        try offline.perform(.markPresent(id: try Self.id("Tea", in: offline), status: .bought))
        try home.carol.perform(.addPresent(recipient: "Grandma", title: "Scarf"))
        try home.carol.perform(.addPresent(recipient: "Grandma", title: "Socks"))

        _ = try home.bob.replay(offline.pendingChanges(after: base))
        try home.sync()
        for member in [home.alice, home.bob, home.carol] {
            let tea = try #require(member.state.presents.values.first { $0.title == "Tea" })
            #expect(tea.notes == "green")
            #expect(tea.status == .bought)
            #expect(Self.titles(member) == ["Scarf", "Socks", "Tea"])
        }
    }

    @Test func aChangeMadeOfflineComesLaterAndWinsAndBringsBackWhatWasRemoved() throws {
        let home = try Household()
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try home.alice.perform(.addPresent(recipient: "Grandma", title: "Vase"))
        try home.sync()
        let (tea, vase) = (try Self.id("Tea", in: home.bob), try Self.id("Vase", in: home.bob))
        let (offline, base) = try Self.offline(home)
        try offline.perform(.editPresent(id: tea, changes: [.notes("Bob's")]))
        try offline.perform(.editPresent(id: vase, changes: [.notes("blue")]))
        try home.alice.perform(.editPresent(id: tea, changes: [.notes("Alice's")]))
        try home.alice.perform(.removePresent(id: vase))

        let told = try home.bob.replay(offline.pendingChanges(after: base))
        try home.sync()
        #expect(told == [.restored(vase, title: "Vase")])
        for member in [home.alice, home.bob, home.carol] {
            #expect(member.state.presents[tea]?.notes == "Bob's")
            #expect(member.state.presents[vase]?.notes == "blue")
        }
    }

    @Test func aMemberRemovedWhileOfflineKeepsTheirChangesAndSendsNothing() throws {
        let home = try Household()
        let (offline, base) = try Self.offline(home)
        try offline.perform(.addPresent(recipient: "Grandma", title: "Tea"))
        try home.alice.remove(home.bob.id)
        let head = home.store.handle().head

        #expect(throws: HouseholdSessionError.self) { try home.bob.replay(offline.pendingChanges(after: base)) }
        #expect(home.store.handle().head == head, "nothing sent")
        // Still his, on his device.
        #expect(Self.titles(offline) == ["Tea"])
        #expect(try offline.pendingChanges(after: base).count == 1)
        try home.sync()
        #expect(Self.titles(home.alice).isEmpty && Self.titles(home.carol).isEmpty)
    }

    @Test("Any interleaving of offline and online changes ends with every member seeing exactly what they may, once")
    func anyInterleavingEndsWithEveryoneSeeingWhatTheyMay() throws {
        var random = TestRandom()
        let people = ["Alice", "Bob", "Carol", "Grandma"]
        for round in 0..<10 {
            let home = try Household()
            let members = [home.alice, home.bob, home.carol]
            let offlineName = members[Int.random(in: 0..<3, using: &random)].name
            let (offline, base) = try Self.offline(home, offlineName)
            let online = members.filter { $0.name != offlineName }
            var recipients: [String: String] = [:]
            var authors: [String: String] = [:]
            var privately: Set<String> = []
            // Online edits reach the journal first; the offline member's come after (theirs win).
            var notes: (online: [String: String], offline: [String: String]) = ([:], [:])
            for step in 0..<Int.random(in: 4...14, using: &random) {
                let author = Bool.random(using: &random) ? offline : online[Int.random(in: 0..<online.count, using: &random)]
                let visible = author.state.presents.values.map(\.title).sorted()
                if !visible.isEmpty, Int.random(in: 0..<3, using: &random) == 0 {
                    let title = visible[Int.random(in: 0..<visible.count, using: &random)]
                    let note = "\(author.name) \(step)"
                    try author.perform(.editPresent(id: try Self.id(title, in: author), changes: [.notes(note)]))
                    if author === offline { notes.offline[title] = note } else { notes.online[title] = note }
                } else {
                    let title = "Present \(round)-\(step)"
                    let recipient = people[Int.random(in: 0..<people.count, using: &random)]
                    let secret = Int.random(in: 0..<5, using: &random) == 0
                    try author.perform(.addPresent(recipient: recipient, title: title), privately: secret)
                    recipients[title] = recipient
                    authors[title] = author.name
                    if secret { privately.insert(title) }
                }
            }
            let reconnected = try #require(members.first { $0.name == offlineName })
            _ = try reconnected.replay(offline.pendingChanges(after: base))
            try home.sync()
            for member in members {
                // Its author sees a present; the others unless it is private, for its author, or for them.
                let expected = recipients.filter { title, recipient in
                    let author = authors[title] ?? ""
                    return author == member.name || (!privately.contains(title) && recipient != author && recipient != member.name)
                }.keys.sorted()
                #expect(Self.titles(member) == expected, "round \(round), \(random)")
                for present in member.state.presents.values {
                    #expect(present.notes == notes.offline[present.title] ?? notes.online[present.title] ?? "", "round \(round), \(random)")
                }
                let ids = member.state.presents.values.map(\.id)
                #expect(Set(ids).count == ids.count, "round \(round), \(random)")
            }
            // One number per present, whoever sees it.
            var numbers: [String: PresentID] = [:]
            for member in members {
                for present in member.state.presents.values {
                    #expect(numbers.updateValue(present.id, forKey: present.title).map { $0 == present.id } ?? true)
                }
            }
            #expect(Set(numbers.values).count == numbers.count, "round \(round), \(random)")
        }
    }
}
