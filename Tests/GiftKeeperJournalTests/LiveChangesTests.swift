import Foundation
import GiftKeeperTestSupport
import GiftKeeperWire
import TestProcesses
import Testing

@testable import GiftKeeperRemote

/// SPEC §12's live changes, a device's side: the WebSocket that wakes an idle device opens
/// as soon as its connection signs in, and a socket whose link went silent is closed by
/// its pings, so the device polls again instead of waiting on a dead socket. Through the
/// test service (``ServiceFixture``), the second through a relay that holds every byte.
@Suite(.programSlot, .needsService)
struct LiveChangesTests {
    let journal = [UInt8](repeating: 7, count: 16)

    @Test("a live socket opens as soon as its connection signs in, however long it waited for a token")
    func opensAtSignIn() async throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-live")
        let remote = try ServiceRemote.testDevice(url: try ServiceFixture.requireURL(), stateDirectory: directory.path, deviceName: "live")
        let live = LiveChanges()
        defer { live.stop() }
        #expect(remote.connection.startLive(live, journalID: journal))
        // Waiting for a token once doubled the wait each time it looked (at 2, 6, 14, 30 and
        // 60 s): a sign-in 31 s after the start was seen at 60 s. The bound leaves room for a
        // loaded run, whose blocking calls can keep the socket's task waiting for seconds.
        try await Task.sleep(for: .seconds(31))
        #expect(!live.isOpen)
        _ = try remote.journalIDs()
        #expect(await eventually(within: .seconds(20)) { live.isOpen }, "the socket opened within 20 s of the sign-in")
    }

    @Test("a live socket whose link goes silent is closed by its pings within a few periods")
    func silentLinkCloses() async throws {
        let service = try #require(URL(string: try ServiceFixture.requireURL()))
        let relay = try HoldingRelay(to: try #require(service.port))
        defer { relay.close() }
        let directory = try TemporaryDirectory(prefix: "giftkeeper-live-held")
        let remote = try ServiceRemote.testDevice(
            url: "https://127.0.0.1:\(relay.port)", stateDirectory: directory.path, deviceName: "held")
        _ = try remote.journalIDs()
        let live = LiveChanges()
        defer { live.stop() }
        let connection = remote.connection
        live.start(
            url: "wss://127.0.0.1:\(relay.port)\(Route.live)", journal: "", token: connection.token, tls: connection.tls,
            sniHostname: "localhost", pingPeriod: .seconds(1))
        #expect(await eventually(within: .seconds(30)) { live.isOpen }, "the socket opened")
        relay.hold()
        // Without pings nothing crosses a silent link and the socket would stay open for good.
        #expect(await eventually(within: .seconds(40)) { !live.isOpen }, "the silent socket was closed")
    }

    /// Whether `condition` holds within `limit` (the socket is opened and closed by a task
    /// of its own).
    func eventually(within limit: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
