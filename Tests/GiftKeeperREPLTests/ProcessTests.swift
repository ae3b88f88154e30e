import GiftKeeperCrypto
import Glibc
import Synchronization
import Testing

@testable import GiftKeeperREPL

@Suite struct ProcessTests {
    @Test func hardeningSucceeds() throws {
        let previous = umask(0o022)
        defer { _ = umask(previous) }
        try ProcessHardening.apply()
        let now = umask(0o077)
        #expect(now == 0o077)
        var limit = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0)
        #expect(limit.rlim_cur == 0)
    }

    @Test func wipersRunUntilCancelled() throws {
        let secret = try SecureBytes(capacity: 4, count: 0)
        secret.append(42)
        let runs = Atomic<Int>(0)
        let registration = SecretWiping.register {
            secret.wipe()
            runs.add(1, ordering: .relaxed)
        }
        SecretWiping.wipeAll()
        #expect(secret.count == 0)
        #expect(runs.load(ordering: .relaxed) == 1)
        registration.cancel()
        SecretWiping.wipeAll()
        #expect(runs.load(ordering: .relaxed) == 1)
    }
}
