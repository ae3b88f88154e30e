import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// Offline work and merge in a household (docs/households.md, "Working offline"), through
/// `giftkeeper-server`: a member's device loses the service (its record pointed at a port
/// nobody listens on, so the suite's server keeps serving the others), works from its copy,
/// and sends its changes once the service is back.
extension HouseholdEndToEndTests {
    /// Points `member`'s record at `address` (an unreachable one takes their device offline).
    func point(_ member: Member, at address: String) throws {
        let text = try String(contentsOfFile: member.record, encoding: .utf8)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let current = try #require(record["remote"] as? String)
        let escaped = { (url: String) in url.replacingOccurrences(of: "/", with: "\\/") }
        var changed = text.replacingOccurrences(of: "\"\(escaped(current))\"", with: "\"\(escaped(address))\"")
        if changed == text { changed = text.replacingOccurrences(of: "\"\(current)\"", with: "\"\(address)\"") }
        #expect(changed != text)
        try changed.write(toFile: member.record, atomically: false, encoding: .utf8)
    }

    static let away = "https://127.0.0.1:1"

    @Test("Bob adds offline while Alice adds; back online both see each other's changes, and the present for Bob never reaches him")
    func offlineWorkIsSentWhenTheServiceIsBack() async throws {
        let (alice, bob, carol) = try await household()
        #expect(try await plain(alice, ["add", "Bob", "Telescope"]).status == 0)
        #expect(try await plain(bob, ["list"]).status == 0)  // his device's copy is up to date

        try point(bob, at: Self.away)
        let offline = try await plain(bob, ["add", "Grandma", "Tea"])
        #expect(offline.status == 0, "\(offline)")
        #expect(offline.stderr.contains("Offline"), "\(offline)")
        let pending = try await plain(bob, ["list"])
        #expect(pending.status == 0 && pending.stdout.contains("Tea"), "\(pending)")
        #expect(permissions(of: bob.record + ".pending") == 0o600)
        let sealed = try Data(contentsOf: URL(fileURLWithPath: bob.record + ".pending"))
        #expect(sealed.range(of: Data("Tea".utf8)) == nil, "the pending file holds no clear text")

        #expect(try await plain(alice, ["add", "Grandma", "Scarf"]).status == 0)
        #expect(try await plain(alice, ["add", "Bob", "Kite"]).status == 0)

        try point(bob, at: url)
        let synced = try await plain(bob, ["sync"])
        #expect(synced.status == 0, "\(synced)")
        #expect(!FileManager.default.fileExists(atPath: bob.record + ".pending"), "sent, then forgotten")

        let bobList = try await plain(bob, ["list", "--json"])
        #expect(bobList.stdout.contains("Tea") && bobList.stdout.contains("Scarf"), "\(bobList)")
        #expect(!bobList.stdout.contains("Kite") && !bobList.stdout.contains("Telescope"), "\(bobList)")
        for member in [alice, carol] {
            let list = try await plain(member, ["list", "--json"])
            #expect(list.stdout.contains("Tea") && list.stdout.contains("Scarf"), "\(list)")
        }
        let carolList = try await plain(carol, ["list"])
        #expect(carolList.stdout.contains("Kite") && carolList.stdout.contains("Telescope"), "\(carolList)")
        // Sent once: a second sync sends nothing more.
        #expect(try await plain(bob, ["sync"]).status == 0)
        let again = try await plain(carol, ["list", "--json"])
        #expect(again.stdout.components(separatedBy: "\"Tea\"").count == 2, "\(again)")
    }

    @Test("A member removed while offline keeps their changes on their device, readable, never sent, and is told")
    func aMemberRemovedWhileOfflineKeepsTheirChanges() async throws {
        let (alice, _, carol) = try await household()
        #expect(try await plain(carol, ["list"]).status == 0)
        try point(carol, at: Self.away)
        #expect(try await plain(carol, ["add", "Grandma", "Gloves"]).status == 0)
        #expect(try await run(alice, ["remove", "Carol"]).status == 0)

        try point(carol, at: url)
        let synced = try await plain(carol, ["sync"])
        #expect(synced.stderr.contains("no longer a member") && synced.stderr.contains("never sent"), "\(synced)")
        let kept = try await plain(carol, ["list"])
        #expect(kept.status == 0 && kept.stdout.contains("Gloves"), "\(kept)")
        #expect(kept.stderr.contains("your change made offline stays on this device only"), "\(kept)")
        let exported = try await plain(carol, ["export"])
        #expect(exported.status == 0 && exported.stdout.contains("Gloves"), "\(exported)")
        let aliceList = try await plain(alice, ["list", "--json"])
        #expect(aliceList.status == 0 && !aliceList.stdout.contains("Gloves"), "\(aliceList)")
    }
}
