public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal
import Glibc

/// Everything the service takes from the outside world, injected so tests are
/// deterministic: the clock, how to wait, and where to remember the journal head.
public struct ServiceEnvironment: Sendable {
    /// The current time.
    public var now: @Sendable () -> Timestamp
    /// Waits `seconds` (the growing delay after failed logins).
    public var sleep: @Sendable (_ seconds: Int) -> Void
    /// Where the authenticated "last seen head" of each journal is remembered
    /// (`$XDG_STATE_HOME/giftkeeper`); nil remembers nothing.
    public var stateDirectory: String?
    /// Test-only switch: lets `setup` write a key-derivation cost below `interactive`.
    /// Production code never sets it.
    public var allowsTestKeyDerivationCost: Bool
    /// Test-only: the cost `setup` uses whatever it was asked for (the shell's tests ask for
    /// `--kdf interactive` and get the test minimum). Honoured only with
    /// ``allowsTestKeyDerivationCost``; production code never sets it.
    public var testKeyDerivationCost: KDFParameters?
    /// Whether the user asked to cancel the running command (Ctrl-C in the shell). Checked
    /// where stopping loses nothing: during the wait after failed logins, and after the
    /// password check, before anything is recorded.
    public var isCancelled: @Sendable () -> Bool = { false }
    /// Finds the sync service a URL names (`https://HOST[:PORT]`), for sharing a journal
    /// between devices (SPEC §12); nil in a build or test that shares nothing.
    public var remoteLocation: (@Sendable (String) throws(JournalError) -> any RemoteLocation)?
    /// The server asked for with `--remote URL` or `$GIFTKEEPER_REMOTE`; once a sync used
    /// it, it is remembered for the journal (``RemoteRecord``) and need not be given again.
    public var requestedRemote: String?

    public init(
        now: @escaping @Sendable () -> Timestamp,
        sleep: @escaping @Sendable (_ seconds: Int) -> Void,
        stateDirectory: String?,
        allowsTestKeyDerivationCost: Bool = false
    ) {
        self.now = now
        self.sleep = sleep
        self.stateDirectory = stateDirectory
        self.allowsTestKeyDerivationCost = allowsTestKeyDerivationCost
    }

    /// The real clock, real sleeping (cut short when `isCancelled` turns true), and the
    /// given state directory.
    public static func system(
        stateDirectory: String?, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) -> ServiceEnvironment {
        var environment = ServiceEnvironment(
            now: {
                var spec = timespec()
                clock_gettime(CLOCK_REALTIME, &spec)
                return Timestamp(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
            },
            sleep: { seconds in
                // In slices of 50 ms, so a cancelled wait ends at once.
                var left = seconds * 20
                while left > 0, !isCancelled() {
                    usleep(50_000)
                    left -= 1
                }
            },
            stateDirectory: stateDirectory)
        environment.isCancelled = isCancelled
        return environment
    }
}

/// The wait before the next password check, from the number of failed attempts recorded
/// since the last success (SPEC §1): the first three cost nothing; then 1 s, 2 s, 4 s …
/// capped at 30 s. Nobody is ever locked out for good.
public func loginDelay(afterFailures failures: Int) -> Int {
    let freeFailures = 3
    guard failures >= freeFailures else { return 0 }
    return min(1 << min(failures - freeFailures, 5), 30)
}
