import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// Issue 13, finding 1: an over-long password line once hung audit, export and import
/// (read to its end, a byte at a time). Now it is refused at its 1,025th byte.
@Suite(.programSlot) struct LongPasswordLineTests {
    @Test("audit < /dev/zero and a 10 MB --password-file line: one line, exit 2, at once")
    func anUnboundedPasswordLineIsRefusedAtOnce() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal()
        let clock = ContinuousClock()
        var started = clock.now
        let zero = try await runProgram(
            "/bin/bash", ["-c", #""$BIN" audit --journal "$J" < /dev/zero"#],
            environment: sandbox.environment.merging(["BIN": sandbox.binary, "J": sandbox.journal]) { $1 }, timeout: .seconds(20))
        #expect(clock.now - started < .seconds(10), "\(zero)")
        #expect(zero.status == 2, "\(zero)")
        #expect(zero.errorLines.count == 1 && zero.errorLines.first?.contains("1024") == true, "\(zero)")

        let file = sandbox.root + "/huge-password"
        try writeNewFile([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20) + [10], to: file)
        started = clock.now
        let huge = try await sandbox.run(["export", "--journal", sandbox.journal, "--password-file", file, "--output", "-"])
        #expect(clock.now - started < .seconds(10), "\(huge)")
        #expect(huge.status == 2, "\(huge)")
        #expect(huge.stdout.isEmpty)
        #expect(try await sandbox.verifies())
    }
}
