import Synchronization

/// Closures that wipe secrets (keys, passwords) when the process ends.
///
/// They run on normal exit (`atexit`, and whenever the REPL calls ``wipeAll()`` itself,
/// e.g. on `quit`) and on a fatal signal (SIGINT outside a prompt, SIGTERM, SIGHUP,
/// SIGQUIT). On a signal the async-signal-safe handler only writes to a self-pipe; a
/// watcher thread then runs the closures on an ordinary thread and calls
/// `_exit(128 + signal)`. So a closure may run on another thread while its owner is
/// using the secret: an owner that must not see a key vanish mid-operation (a seal being
/// appended) should take the same lock in its closure as around that operation.
/// Closures must be idempotent; they may run more than once.
public enum SecretWiping {
    private struct Registry {
        var next: UInt64 = 0
        var wipers: [UInt64: @Sendable () -> Void] = [:]
    }

    private static let registry = Mutex(Registry())

    /// Registers `wipe`; keep the returned registration and ``SecretWipingRegistration/cancel()``
    /// it when the secret is gone (e.g. after sign-out wiped it).
    /// Installs the signal handlers on first use.
    @discardableResult
    public static func register(_ wipe: @escaping @Sendable () -> Void) -> SecretWipingRegistration {
        SignalRouter.install()
        let identifier = registry.withLock { registry in
            registry.next += 1
            registry.wipers[registry.next] = wipe
            return registry.next
        }
        return SecretWipingRegistration(identifier: identifier)
    }

    /// Runs every registered closure (outside the lock, so closures may register or cancel).
    public static func wipeAll() {
        let wipers = registry.withLock { Array($0.wipers.sorted { $0.key < $1.key }.map(\.value)) }
        for wipe in wipers {
            wipe()
        }
    }

    /// Installs the SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers and the `atexit` hook now
    /// (they are otherwise installed by the first registration, password read or prompt).
    public static func installSignalHandlers() {
        SignalRouter.install()
    }

    fileprivate static func cancel(_ identifier: UInt64) {
        _ = registry.withLock { $0.wipers.removeValue(forKey: identifier) }
    }
}

/// A registration made with ``SecretWiping/register(_:)``.
public struct SecretWipingRegistration: Sendable, Hashable {
    let identifier: UInt64

    /// Removes the closure; it will not run again.
    public func cancel() {
        SecretWiping.cancel(identifier)
    }
}
