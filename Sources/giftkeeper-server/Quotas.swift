import Hummingbird
import Synchronization

/// What one account may use (SPEC §12): the largest frame, frames appended a minute (on
/// this service process), and journals. A request over a quota is refused whole — nothing
/// written — with 413 or 429 and the quota in words; the device keeps its changes and
/// sends them at a later sync.
struct Quotas: Sendable {
    var maximumFrameBytes = 1 << 20
    /// Enough for a person's whole journal (SPEC §9: 20,000 events) in its first push.
    var framesPerMinute = 120_000
    var journalsPerAccount = 16
}

/// Frames appended per account in the current minute, on this process.
final class AppendRate: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var frames: Int
    }

    private let windows = Mutex<[String: Window]>([:])
    private let limit: Int

    init(framesPerMinute: Int) {
        limit = framesPerMinute
    }

    /// Counts `frames` for `account`, or refuses them when they would pass the quota.
    func take(_ frames: Int, account: String) throws {
        let now = ContinuousClock.now
        let allowed = windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { now - $0.value.start < .seconds(60) } }
            var window = windows[account] ?? Window(start: now, frames: 0)
            if now - window.start >= .seconds(60) { window = Window(start: now, frames: 0) }
            guard window.frames + frames <= limit else { return false }
            window.frames += frames
            windows[account] = window
            return true
        }
        guard allowed else {
            throw HTTPError(.tooManyRequests, message: "over the quota of \(limit) frames a minute; try again in a minute")
        }
    }
}
