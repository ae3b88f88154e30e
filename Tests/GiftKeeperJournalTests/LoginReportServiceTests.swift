import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import TestProcesses
import Testing

@testable import GiftKeeperRemote
@testable import GiftKeeperSealing

/// The service's part of failed sign-in reports (SPEC §13; docs/threat-model.md, "Failed
/// sign-ins on a member's other devices"): a token registered at a sign-in, a report posted
/// with it alone, a mailbox taken once; the service keeps 400 a member and one a second a
/// token, refuses a made-up token and a key the member no longer has, and holds no token.
extension HouseholdServiceTests {
    @Test("a report goes in with a registered token alone, one a second, at most 400 waiting; it is taken once, by its member only")
    func loginReports() async throws {
        let (alice, bob) = (try Person("alice"), try Person("bob"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        let bobs = try #require(try bob.open(household.id))
        let url = try ServiceFixture.requireURL()
        let token = try randomBytes(count: 32)
        let report = try randomBytes(count: 80)
        #expect(try bobs.takeLoginReports(tokenHash: Blake2b.hash(token), sealingKey: bob.identity.keys.sealing).isEmpty)

        #expect(!ServiceRemote.postLoginReport(url: url, token: try randomBytes(count: 32), report: report), "a made-up token")
        #expect(!ServiceRemote.postLoginReport(url: url, token: token, report: Array(report.prefix(79))), "not a report's size")
        #expect(ServiceRemote.postLoginReport(url: url, token: token, report: report))
        #expect(!ServiceRemote.postLoginReport(url: url, token: token, report: report), "one a second per token")
        #expect(
            try household.store.takeLoginReports(tokenHash: Blake2b.hash(try randomBytes(count: 32)), sealingKey: alice.identity.keys.sealing)
                .isEmpty, "Alice's mailbox is her own")
        #expect(try bobs.takeLoginReports(tokenHash: Blake2b.hash(token), sealingKey: bob.identity.keys.sealing) == [report])
        #expect(try bobs.takeLoginReports(tokenHash: Blake2b.hash(token), sealingKey: bob.identity.keys.sealing).isEmpty, "taken once")

        // 399 waiting: the 400th is kept, the 401st dropped.
        let owner = ServiceFixture.databaseURL
        _ = try await psql(
            owner,
            [
                """
                INSERT INTO gk_login_reports (household_account, member_account, report)
                SELECT household_account, member_account, decode(repeat('00', 80), 'hex') FROM gk_login_tokens, generate_series(1, 399)
                WHERE token_hash = '\\x\(hexString(Blake2b.hash(token)))'
                """
            ])
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(ServiceRemote.postLoginReport(url: url, token: token, report: report))
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(!ServiceRemote.postLoginReport(url: url, token: token, report: report), "the 401st")
        let taken = try bobs.takeLoginReports(tokenHash: Blake2b.hash(token), sealingKey: bob.identity.keys.sealing)
        #expect(taken.count == 400 && taken.filter { $0 == report }.count == 1)

        // A token naming a key Bob does not have (his keys before a passwd) takes no report.
        let stale = try randomBytes(count: 32)
        _ = try bobs.takeLoginReports(tokenHash: Blake2b.hash(stale), sealingKey: try randomBytes(count: 32))
        #expect(!ServiceRemote.postLoginReport(url: url, token: stale, report: report))
        #expect(!ServiceRemote.postLoginReport(url: url, token: token, report: report), "the token before it was replaced")

        let dump = try await runProgram("/usr/bin/pg_dump", [owner])
        #expect(dump.status == 0 && dump.stdout.contains("gk_login_tokens"), "\(dump)")
        for secret in [token, stale] { #expect(!dump.stdout.contains(hexString(secret)), "the dump holds a report token") }
    }
}
