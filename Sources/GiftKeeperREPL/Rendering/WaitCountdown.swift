/// The wait before a password check after failed attempts (SPEC §1), as it counts down: on
/// a terminal one line rewritten each second; elsewhere (a script, a one-shot) one note
/// when it starts, so a log says why the command paused.
public final class WaitCountdown {
    private let console: Console
    private let progress: Progress
    private var announced = false

    public init(console: Console, progress: Progress) {
        self.console = console
        self.progress = progress
    }

    /// For ``GiftKeeperService/onWaiting``: the seconds left, 0 when the wait is over.
    public func update(_ secondsLeft: Int) {
        guard secondsLeft > 0 else {
            progress.clear()
            announced = false
            return
        }
        // On a terminal one line under 80 columns, rewritten in place each second.
        if progress.isEnabled {
            progress.show("Waiting \(secondsLeft) s before checking the password (keys typed now are dropped)…")
        } else if !announced {
            console.note("Waiting \(secondsLeft) s before checking the password (failed attempts were recorded)…")
        }
        announced = true
    }
}
