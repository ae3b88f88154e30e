import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperTestSupport
import Testing

/// A household member's sign-ins on their device, as a person's journal does them (SPEC §13:
/// "failed-login reports and rollback detection per member"): a wrong password is recorded
/// without any key and told to that member alone at their next sign-in; a device that
/// verified the journal at head N refuses an older copy of it.
@Suite struct HouseholdSignInTests {
    /// `name`'s shell service over the household in `home`, their record at `record`.
    static func shell(_ home: HouseholdSessionTests.Household, _ session: HouseholdSession, record: String) -> HouseholdShellService {
        HouseholdShellService(
            journalPath: record, member: session.id, name: session.name, now: HouseholdSessionTests.Household.now, server: nil,
            openStore: { [store = home.store] _ in store.handle() })
    }

    @Test("Two wrong passwords on Bob's device are told at his next sign-in there, and to nobody else; they write no name and no key")
    func failedSignInsAreReported() throws {
        let home = try HouseholdSessionTests.Household()
        let directory = try TemporaryDirectory()
        let (bobsRecord, carolsRecord) = (directory.file("bob.gk"), directory.file("carol.gk"))
        var told: [LoginNotification] = []
        func signIn(_ service: HouseholdShellService, _ password: String) -> Bool {
            service.onNotification = { told.append($0) }
            defer { try? service.signOut() }
            return (try? service.login(password: try HouseholdSessionTests.secret(password))) != nil
        }
        // A first sign-in keeps Bob's public key beside the record; before it nothing can be sealed.
        #expect(!signIn(Self.shell(home, home.bob, record: bobsRecord), "not-bobs"))
        #expect(!FileManager.default.fileExists(atPath: HouseholdLoginReports.path(bobsRecord)))
        #expect(signIn(Self.shell(home, home.bob, record: bobsRecord), "Bob-pw"))
        #expect(signIn(Self.shell(home, home.carol, record: carolsRecord), "Carol-pw"))
        let kept = try String(contentsOfFile: HouseholdLoginReports.path(bobsRecord), encoding: .utf8)
        told = []
        for _ in 0..<2 { #expect(!signIn(Self.shell(home, home.bob, record: bobsRecord), "not-bobs")) }
        // Each failure recorded, and the hint that the password may have been changed on another device.
        let failed: [LoginNotification] = [.failedAttempt(recorded: true, nextDelaySeconds: 0), .householdPasswordMayBeNew]
        #expect(told == failed + failed)
        let reports = try String(contentsOfFile: HouseholdLoginReports.path(bobsRecord), encoding: .utf8)
        let lines = reports.split(separator: "\n")
        #expect(lines.count == 3 && reports.hasPrefix(kept) && !reports.contains("Bob"))
        #expect(lines.dropFirst().allSatisfy { $0.count == 2 * (48 + 32) && !kept.contains($0) })  // GKFAIL02, its id and time, sealed
        // Carol's sign-in is told nothing; Bob's next one is told both, once.
        told = []
        #expect(signIn(Self.shell(home, home.carol, record: carolsRecord), "Carol-pw"))
        #expect(told.first == .signedIn(name: "Carol", failedAttempts: 0, previousVisit: nil))
        told = []
        #expect(signIn(Self.shell(home, home.bob, record: bobsRecord), "Bob-pw"))
        #expect(told.first == .signedIn(name: "Bob", failedAttempts: 2, previousVisit: nil))
        told = []
        #expect(signIn(Self.shell(home, home.bob, record: bobsRecord), "Bob-pw"))
        #expect(told.first == .signedIn(name: "Bob", failedAttempts: 0, previousVisit: nil))
        // A report sealed to another key (forged with Carol's, say) is not Bob's to count.
        try (kept + hexString(try SealedBox.seal(Array("GKFAIL01".utf8) + [UInt8](repeating: 0, count: 8), to: home.carol.keys.sealing)) + "\n")
            .write(toFile: HouseholdLoginReports.path(bobsRecord), atomically: true, encoding: .utf8)
        told = []
        #expect(signIn(Self.shell(home, home.bob, record: bobsRecord), "Bob-pw"))
        #expect(told.first == .signedIn(name: "Bob", failedAttempts: 0, previousVisit: nil))
    }

    @Test("A device that verified the household's journal at head N refuses a copy that ends before it, naming the events missing")
    func rollbackIsRefused() throws {
        let (world, alice, bob, _) = try HouseholdJournalTests.household()
        for number in 0..<3 { try alice.record([try world.present(for: "Mum", "Gift \(number)")], for: .everyone) }
        let mark = try bob.verifiedMark()
        // The journal as it stood two frames earlier: what a server restored from an old backup serves.
        let older = MemoryFrameStore(header: world.store.header, path: "older")
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: world.store.header.genesisHash), path: "older")
        for frame in try world.frames().dropLast(2) { try batch.add(kind: frame.kind, payload: frame.payload) }
        #expect(try older.handle().append(batch) == .appended(batch.head))
        func signIn(_ store: MemoryFrameStore, _ mark: [UInt8]?) throws -> HouseholdMember {
            try HouseholdMember.open(
                store.handle(), as: bob.id, password: try HouseholdWorld.secret("bob-pw"), verifiedMark: mark,
                initial: HouseholdWorld.initial)
        }
        do {
            _ = try signIn(older, mark)
            Issue.record("an older copy was followed")
        } catch {
            guard case .rolledBack(let missing)? = error as? HouseholdError else {
                Issue.record("not a rollback: \(error)")
                return
            }
            #expect(missing == 2)
        }
        // Worded as a person's journal words it, exit code 1, in the shell and one-shots.
        #expect(ServiceError(.household(.rolledBack(missing: 2))).exitCode == 1)
        // A device that never saw the newer head has nothing to compare: the older copy opens.
        #expect(try signIn(older, nil).store.head == batch.head)
        // The newer journal, with the same mark, still opens without checking a signature again.
        let again = try signIn(world.store, mark)
        #expect(again.keyring.signaturesVerified == 0 && again.state == bob.state)
    }
}
