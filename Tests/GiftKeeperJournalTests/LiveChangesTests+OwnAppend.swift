import Foundation
import GiftKeeperJournal
import GiftKeeperTestSupport
import GiftKeeperWire
import TestProcesses
import Testing

@testable import GiftKeeperRemote

/// A device hears its own appends back on its live socket; a message naming no head past
/// the one its store holds is not counted (no read, no bell for it), one naming a later
/// head is.
extension LiveChangesTests {
    @Test("a live message naming the head the store holds already is not counted; a later one is")
    func ownAppendNotCounted() async throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-live-own")
        let name = "own-\(UUID().uuidString)"
        let remote = try ServiceRemote.testDevice(url: try ServiceFixture.requireURL(), stateDirectory: directory.path, deviceName: name)
        _ = try remote.journalIDs()
        let live = LiveChanges()
        defer { live.stop() }
        let connection = remote.connection
        let url = try ServiceFixture.requireURL().replacingOccurrences(of: "https://", with: "wss://")
        live.start(
            url: url + Route.live, journal: hexString(journal), token: connection.token, tls: connection.tls,
            sniHostname: "localhost", pingPeriod: .seconds(10))
        #expect(await eventually(within: .seconds(30)) { live.isOpen }, "the socket opened")
        let opened = live.count
        live.hold(2)
        // As the service tells a change of this account's journal: the account, the journal, the new head.
        let account = "(SELECT account_id::text FROM gk_devices WHERE name = '\(name)')"
        let told = { (head: Int) in "SELECT pg_notify('gk_changes', \(account) || ' \(hexString(journal)) \(head)');" }
        let psql = try await runProgram(
            "/usr/bin/psql", [ServiceFixture.databaseURL, "-q", "-v", "ON_ERROR_STOP=1", "-c", told(1), "-c", told(2), "-c", told(3)])
        #expect(psql.status == 0, "\(psql)")
        // In order: once the third is counted, the first two were heard and passed over.
        #expect(await eventually(within: .seconds(20)) { live.count > opened }, "the message of head 3 was counted")
        #expect(live.count == opened + 1)
    }
}
