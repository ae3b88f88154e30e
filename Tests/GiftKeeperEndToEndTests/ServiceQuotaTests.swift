import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// SPEC §12, quotas per account: the frames an account appends in a minute are counted in
/// PostgreSQL by the append itself, so every service process in front of one database
/// counts against one quota (counted in each process's memory, two processes allowed twice
/// the quota).
@Suite("Quotas shared by giftkeeper-server processes", .programSlot, .needsService)
struct ServiceQuotaTests {
    let trust = ServiceFixture.deviceEnvironment

    @Test("frames appended through one service process count against the quota on another: the next push there is refused")
    func framesAMinuteAcrossProcesses() async throws {
        let tests = ServiceEndToEndTests()
        let laptop = try Sandbox()
        let tablet = try Sandbox()
        let ports = ServiceFixture.sparePort == 0 ? (0, 0) : (ServiceFixture.sparePort + 8, ServiceFixture.sparePort + 9)
        try await tests.withService(port: ports.0) { first, _ in
            _ = try await tests.sharedLaptop(laptop, service: first)
            let verified = try await laptop.run(["verify", "--journal", laptop.journal], environment: trust)
            let pushed = try #require(
                verified.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(verified)")
            // The second process allows as many frames a minute as the laptop just pushed
            // through the first: the account's quota is used up on both.
            try await tests.withService(port: ports.1, options: ["--max-frames-per-minute", "\(pushed)"]) { second, _ in
                let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                let throughSecond = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    .replacingOccurrences(of: first, with: second)
                let cloned = try await tablet.run(["clone", throughSecond, "--journal", tablet.journal], input: "secret-pw\n", environment: trust)
                #expect(cloned.status == 0, "\(cloned)")

                let refused = try await tablet.run(
                    ["add", "Gran", "Kite", "--journal", tablet.journal], input: "secret-pw\n", environment: trust)
                #expect(refused.status == 0, "\(refused)")
                #expect(refused.stdout.contains("Saved p2"), "\(refused)")
                #expect(refused.stderr.contains("over the quota of \(pushed) frames a minute"), "\(refused)")
                #expect(refused.stderr.contains("Not sent yet (") && !refused.stderr.contains("Offline"), "\(refused)")

                // Nothing of it reached the service: the laptop, through the first process, has no kite.
                let list = try await laptop.run(["list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
                #expect(list.status == 0, "\(list)")
                #expect(list.stdout.contains("Lego set") && !list.stdout.contains("Kite"), "\(list)")
            }
        }
    }
}
