import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Testing

/// Failed sign-ins told on a member's other devices (docs/threat-model.md, "Failed sign-ins
/// on a member's other devices"), in process: Bob's laptop and phone are two records of his
/// on one household, the service's mailbox a stand-in; each attempt is told once, merged by
/// report id, wherever Bob next signs in.
@Suite struct HouseholdLoginReportsTests {
    /// A stand-in for the service's mailbox: a report is kept when posted with a registered
    /// token; a sign-in registers its token and takes every report, whoever's (only Bob's key
    /// opens Bob's). Nothing is posted or taken while it is not `reachable`.
    final class Mailbox: LoginReportMailbox {
        var tokens: Set<[UInt8]> = []
        var reports: [[UInt8]] = []
        var reachable = true

        func post(token: [UInt8], report: [UInt8]) -> Bool {
            guard reachable, tokens.contains(Blake2b.hash(token)) else { return false }
            reports.append(report)
            return true
        }

        func take(tokenHash: [UInt8], sealingKey: [UInt8], store: any FrameStore) -> [[UInt8]]? {
            guard reachable else { return nil }
            tokens.insert(tokenHash)
            defer { reports = [] }
            return reports
        }
    }

    let home: HouseholdSessionTests.Household
    let directory: TemporaryDirectory
    let mailbox = Mailbox()

    init() throws {
        home = try HouseholdSessionTests.Household()
        directory = try TemporaryDirectory()
    }

    /// Signs in on the device whose record is `device` as `member` with `password`: the failed
    /// attempts told (nil: the password was wrong).
    func signIn(_ device: String, _ member: HouseholdSession, _ password: String) throws -> Int? {
        let service = HouseholdShellService(
            journalPath: directory.file(device), member: member.id, name: member.name, now: HouseholdSessionTests.Household.now,
            server: nil, sleep: { _ in }, openStore: { [store = home.store] _ in store.handle() })
        service.loginReports = mailbox
        var told: Int?
        service.onNotification = { if case .signedIn(_, let failed, _) = $0 { told = failed } }
        defer { try? service.signOut() }
        _ = try? service.login(password: try HouseholdSessionTests.secret(password))
        return told
    }

    @Test("A wrong password on Bob's laptop is told once: by his phone, or by the laptop itself, never by both; never to Alice")
    func toldOnce() throws {
        for device in ["laptop", "phone"] { #expect(try signIn(device, home.bob, "Bob-pw") == 0) }
        #expect(try signIn("alice", home.alice, "alice-pw") == 0)

        #expect(try signIn("laptop", home.bob, "not-bobs") == nil)
        #expect(mailbox.reports.count == 1, "posted with the laptop's token")
        #expect(try signIn("phone", home.bob, "Bob-pw") == 1)
        #expect(try signIn("phone", home.bob, "Bob-pw") == 0)
        #expect(try signIn("laptop", home.bob, "Bob-pw") == 0, "the phone told it")

        // The laptop takes its own report back: its file and the mailbox merge by report id.
        #expect(try signIn("laptop", home.bob, "not-bobs") == nil)
        #expect(try signIn("laptop", home.bob, "not-bobs") == nil)
        #expect(try signIn("laptop", home.bob, "Bob-pw") == 2)
        #expect(try signIn("phone", home.bob, "Bob-pw") == 0)

        // Alice's key opens none of Bob's reports.
        #expect(try signIn("laptop", home.bob, "not-bobs") == nil)
        #expect(try signIn("alice", home.alice, "alice-pw") == 0)
    }

    @Test("With the service out of reach a wrong password is kept on the device alone, and told there")
    func unreachable() throws {
        for device in ["laptop", "phone"] { #expect(try signIn(device, home.bob, "Bob-pw") == 0) }
        mailbox.reachable = false
        #expect(try signIn("laptop", home.bob, "not-bobs") == nil)
        #expect(mailbox.reports.isEmpty)
        mailbox.reachable = true
        #expect(try signIn("phone", home.bob, "Bob-pw") == 0)
        #expect(try signIn("laptop", home.bob, "Bob-pw") == 1)
        #expect(try signIn("laptop", home.bob, "Bob-pw") == 0)
    }
}
