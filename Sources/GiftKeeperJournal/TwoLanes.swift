import Dispatch

/// Two pieces of work at once: one on the calling thread, one on another.
///
/// The replay's independent work — a frame's chain hashes are keyed by the *stored* hash
/// before it, an event's AEAD by its own additional data — goes on the second lane while
/// what must stay in order (the scan's bookkeeping, the fold) stays on the caller's
/// thread. Fork and join in one call: both lanes are done when it returns, so nothing
/// either lane wrote needs more synchronisation than the join gives. On a machine with one
/// core the system simply runs them one after the other.
public enum TwoLanes {
    /// A queue of its own rather than a global one: it gets a thread even when every thread
    /// of the global pool is busy or waiting (this one's callers wait for it).
    private static let second = DispatchQueue(label: "giftkeeper.second-lane", attributes: .concurrent)

    /// Runs `here` on the calling thread and `there` on another thread, and
    /// returns when both have finished. Neither may throw: each records what it found.
    public static func run(here: () -> Void, there: () -> Void) {
        withoutActuallyEscaping(there) { there in
            let handed = Handed(work: there)
            second.async {
                handed.work?()
                // Let go of the closure before the caller is released: it must not outlive the call.
                handed.work = nil
                handed.done.signal()
            }
            here()
            handed.done.wait()
        }
    }
}

/// The second lane's closure, handed to another thread. `run(here:there:)` waits for it
/// before returning, so whatever it captures outlives its use and is not touched by the
/// calling thread's lane meanwhile (each lane works on its own part).
private final class Handed: @unchecked Sendable {
    var work: (() -> Void)?
    let done = DispatchSemaphore(value: 0)

    init(work: @escaping () -> Void) {
        self.work = work
    }
}
