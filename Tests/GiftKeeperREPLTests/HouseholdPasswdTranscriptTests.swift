import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// `passwd` in a member's shell (SPEC §13): the current password, then the new one twice, as
/// in a person's journal; the device's part (its record, its key for the service, the
/// recovery code shown) is the program's, here a stand-in that renews at the test cost.
@Suite(.serialized) struct HouseholdPasswdTranscriptTests {
    @Test("Bob's passwd in his shell renews his keys; a wrong current password changes nothing; Carol reads his wish after")
    func passwdInTheShell() throws {
        let home = try HouseholdShellTranscriptTests.Household()
        let bob = try #require(home.members["Bob"])
        var renewed: MemberID?
        func service(_ member: MemberID) -> HouseholdShellService {
            let service = HouseholdShellService(
                journalPath: "/households/family.gk", member: member, name: "Bob",
                now: { Timestamp(millisecondsSinceEpoch: 1_795_510_800_000) }, server: nil,
                openStore: { [store = home.store] _ in store.handle() })
            service.onPasswordChange = { _, _, _, renew in renewed = try renew(try Transcript.secret("bob-rc-2"), .testMinimum, nil) }
            return service
        }
        let wrong = try home.transcript.run(["login", "bob-pw", "passwd", "not-bobs"], over: service(bob))
        #expect(wrong.status != 0 && renewed == nil, "\(wrong)")
        let changed = try home.transcript.run(
            ["login", "bob-pw", "passwd", "bob-pw", "bob-new-pw", "bob-new-pw", "wish add Kite", "signout", "login", "bob-new-pw", "wishes"],
            over: service(bob))
        #expect(changed.status == 0 && changed.output.contains("Kite  (Bob)"), "\(changed)")
        let new = try #require(renewed)
        #expect(new != bob)
        let old = try home.transcript.run(["login", "bob-pw"], over: service(new))
        #expect(old.status == 3, "\(old)")
        let carol = try home.shell("Carol", ["wishes Bob"])
        #expect(carol.status == 0 && carol.output.contains("Kite  (Bob)"), "\(carol)")
    }
}
