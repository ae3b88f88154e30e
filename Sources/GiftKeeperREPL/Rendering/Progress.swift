import Glibc
import Synchronization

/// A progress line on standard error, rewritten in place with `\r`, shown only when
/// the output is a terminal (nothing at all otherwise, so scripts and logs stay clean),
/// and on standard error only when standard output is a terminal too: with standard
/// output piped, to a pager (`giftkeeper export | less`), each redraw would land on the
/// pager's screen.
///
/// Thread-safe; updates are throttled to about ten per second.
public final class Progress: Sendable {
    private struct State {
        var startedAt: ContinuousClock.Instant?
        var lastDrawn: ContinuousClock.Instant?
        var lastText = ""
        var finished = false
    }

    private let label: String
    private let output: Int32
    private let showAfter: Duration
    /// Whether anything is written at all.
    public let isEnabled: Bool
    private let state = Mutex(State())

    /// - Parameters:
    ///   - label: what is being done, e.g. `Opening journal`.
    ///   - output: the descriptor to write to (standard error by default).
    ///   - isEnabled: forces output on or off; by default, on only if `output` is a terminal
    ///     (and, for standard error, standard output too: ``drawsOnTerminal(_:)``).
    ///   - showAfter: nothing is drawn for work that ends sooner (a small journal opens
    ///     without a flash of "100%").
    public init(label: String, output: Int32 = 2, isEnabled: Bool? = nil, showAfter: Duration = .milliseconds(250)) {
        self.label = label
        self.output = output
        self.showAfter = showAfter
        self.isEnabled = isEnabled ?? Self.drawsOnTerminal(output)
    }

    /// Whether something may be drawn on `output` while the program runs: it is a terminal,
    /// and for standard error, standard output is one too. With standard output piped and
    /// standard error on the terminal, a pager is likely showing the output on that same
    /// terminal (`giftkeeper export | less`): whatever is written there lands on its screen.
    public static func drawsOnTerminal(_ output: Int32) -> Bool {
        isatty(output) == 1 && (output != STDERR_FILENO || isatty(STDOUT_FILENO) == 1)
    }

    /// Reports `completed` of `total` units (`total` nil or 0: a count without a percentage).
    public func update(completed: Int, total: Int?) {
        guard isEnabled else { return }
        let text: String
        if let total, total > 0 {
            let percent = min(100, completed * 100 / total)
            text = "\(label): \(percent)% (\(completed)/\(total))"
        } else {
            text = "\(label): \(completed)"
        }
        let now = ContinuousClock.now
        let showAfter = self.showAfter
        let shouldDraw = state.withLock { state -> Bool in
            guard !state.finished, text != state.lastText else { return false }
            let startedAt = state.startedAt ?? now
            state.startedAt = startedAt
            if state.lastDrawn == nil && now - startedAt < showAfter { return false }
            let isLast = total.map { completed >= $0 } ?? false
            if let last = state.lastDrawn, now - last < .milliseconds(100), !isLast {
                return false
            }
            state.lastDrawn = now
            state.lastText = text
            return true
        }
        if shouldDraw {
            // \r back to column 0, then clear to the end of the line.
            POSIXIO.writeAll(output, "\r\(TerminalText.sanitized(text))\u{1B}[K")
        }
    }

    /// Draws `text` on the progress line at once (a countdown), replacing what it showed.
    public func show(_ text: String) {
        guard isEnabled else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            state.startedAt = state.startedAt ?? now
            state.lastDrawn = now
            state.lastText = text
        }
        POSIXIO.writeAll(output, "\r\(TerminalText.sanitized(text))\u{1B}[K")
    }

    /// Erases the progress line if one is shown, so a prompt or a message can take the line;
    /// the next update draws a new one.
    public func clear() {
        erase(finishing: false)
    }

    /// Erases the progress line. Later updates are ignored.
    public func finish() {
        erase(finishing: true)
    }

    private func erase(finishing: Bool) {
        guard isEnabled else { return }
        let wasDrawn = state.withLock { state -> Bool in
            defer {
                state.startedAt = nil
                state.lastDrawn = nil
                state.lastText = ""
                if finishing { state.finished = true }
            }
            return !state.finished && state.lastDrawn != nil
        }
        if wasDrawn {
            POSIXIO.writeAll(output, "\r\u{1B}[K")
        }
    }
}
