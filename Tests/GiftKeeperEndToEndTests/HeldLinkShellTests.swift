import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// SPEC §12, "Never frozen": an open shell whose link to the service goes silent mid-session
/// (a relay of the test's own that, on a switch, holds every byte both ways) answers within
/// the deadline, keeps working locally, and sends its change by itself once the link is back.
@Suite("An open shell on a link that goes silent", .programSlot, .needsService)
struct HeldLinkShellTests {
    @Test("held mid-session: the shell saves at once, says offline within the deadline, keeps answering, and syncs once released")
    func openShellOnAHeldLink() async throws {
        let service = try #require(URL(string: try ServiceFixture.requireURL()))
        let relay = try HoldingRelay(to: try #require(service.port))
        defer { relay.close() }
        let address = "https://127.0.0.1:\(relay.port)"
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let tests = ServiceEndToEndTests()
        _ = try await tests.sharedLaptop(laptop, service: address)
        try await tests.enrolAndClone(from: laptop, to: desktop)

        let tmux = try await tests.signedInShell(desktop, environment: "GIFTKEEPER_REMOTE_TIMEOUT=2 ")
        try await Task.sleep(for: .seconds(1))

        // The link goes silent: every byte held, on the connections open and on new ones.
        relay.hold()
        let clock = ContinuousClock()
        let start = clock.now
        try await tmux.enter("desktop", "add Eve Kite")
        try await tmux.waitFor("desktop", text: "Saved p2", timeout: 10)
        try await tmux.waitFor("desktop", text: "Offline (", timeout: 10)
        try await tmux.waitForLine("desktop")
        let answered = clock.now - start
        #expect(answered < .seconds(7), "with 2-second deadlines the shell took \(answered) to answer")
        // Still working, and not waiting out another deadline for each command.
        let listed = clock.now
        try await tmux.enter("desktop", "list")
        try await tmux.waitFor("desktop", text: "2 presents", timeout: 10)
        #expect(clock.now - listed < .seconds(3), "list took \(clock.now - listed) while the link was held")

        // Back: the shell sends its change by itself (it tries again every 15 s).
        relay.release()
        #expect(
            try await tests.lists("Kite", on: laptop, within: 25), "the shell's change did not reach the laptop within 50 s of the link's return")
        try await tests.close(tmux)
    }
}
