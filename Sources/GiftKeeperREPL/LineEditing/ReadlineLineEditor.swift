import CReadline
import GiftKeeperFiles
import Glibc
import Synchronization

/// Line editing with GNU readline on a terminal: arrow keys, Ctrl-R, tab completion and an
/// in-memory history.
///
/// - History lives only in memory (`stifle_history(1000)`); no history file is ever read
///   or written (this type never calls `read_history`/`write_history`/`append_history`).
/// - Ctrl-C cancels the line and returns ``LineInput/interrupted``; the process goes on.
///   Readline runs through its callback interface (`rl_callback_handler_install`) with
///   `rl_catch_signals = 0`; the editor `poll`s standard input together with the signal
///   self-pipe of ``SignalRouter``. On an interrupt it calls `rl_free_line_state`,
///   `rl_callback_sigcleanup`, `rl_echo_signal_char`, `rl_cleanup_after_signal` and
///   `rl_callback_handler_remove` (which restores the terminal) and prints a newline.
/// - Ctrl-Z gives the terminal back (`rl_callback_sigcleanup`, `rl_cleanup_after_signal`)
///   and stops the process; `fg` prepares the terminal again (`rl_reset_after_signal`),
///   reads its size and redraws the prompt and the half-typed line, which Enter then runs.
/// - Completion never falls back to file names.
///
/// Readline is process-global state: create one editor per process and use it from one thread.
public final class ReadlineLineEditor: LineEditor {
    private var hasPrompted = false
    private var idleCheck: ((Bool) -> IdleReport)?
    /// Whether a key was read since the idle check last ran.
    private var keyPressed = false
    private var idleInterval = 250

    public init() {
        SignalRouter.install()
        giftkeeper_rl_set_readline_name()
        giftkeeper_rl_set_catch_signals(0, 0)
        giftkeeper_rl_set_word_syntax()
        giftkeeper_rl_set_completion_ignore_case(1)
        giftkeeper_rl_set_sort_completion_matches(0)
        giftkeeper_rl_set_backslash_quoting()
        giftkeeper_rl_set_attempted_completion(readlineCompletionTrampoline)
        // Reads ~/.inputrc now (once per process), so its history-size cannot undo the bound.
        _ = rl_initialize()
        stifle_history(1000)
    }

    public func readLine(prompt: String) -> LineInput {
        readLine(prompt: prompt, completing: .words)
    }

    public func readLine(prompt: String, completing style: CompletionStyle) -> LineInput {
        ReadlineBridge.shared.withLock { $0.style = style }
        // An answer is one word from the start of the line, whatever it holds (spaces, quotes).
        if style == .wholeLine { giftkeeper_rl_set_whole_line_word() }
        defer { if style == .wholeLine { giftkeeper_rl_set_word_syntax() } }
        let drained = SignalRouter.drainPromptPipe()
        if drained.resized && hasPrompted {
            rl_reset_screen_size()
        }
        hasPrompted = true
        ReadlineBridge.shared.withLock { $0.result = nil }

        // If a fatal signal comes while readline has the terminal in raw mode, put it back.
        var original = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &original) == 0
        if isTerminal { TerminalRestoration.remember(original, for: STDIN_FILENO) }
        SignalRouter.promptActive.store(true, ordering: .sequentiallyConsistent)
        defer {
            SignalRouter.promptActive.store(false, ordering: .sequentiallyConsistent)
            if isTerminal { TerminalRestoration.clear() }
        }

        rl_callback_handler_install(prompt, readlineLineHandler)
        let signalPipe = SignalRouter.promptPipeRead
        // A change heard elsewhere (a sync service's live socket) runs the idle check at once.
        let bell = idleCheck == nil ? -1 : ChangeBell.descriptor
        while true {
            // poll ignores a negative descriptor.
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: signalPipe, events: Int16(POLLIN), revents: 0),
                pollfd(fd: bell, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 3, Int32(idleCheck == nil ? -1 : idleInterval))
            let rung = ready > 0 && descriptors[2].revents != 0
            if rung { ChangeBell.silence() }
            if ready == 0 || rung {
                let report = idleCheck?(keyPressed) ?? IdleReport()
                keyPressed = false
                if report.endsLine {
                    endLine(showing: report.lines)
                    return .interrupted
                }
                showAbovePrompt(report.lines)
                continue
            }
            if ready < 0 {
                let error = errno
                if error == EINTR { continue }
                rl_callback_handler_remove()
                return .invalid(.readFailed(errno: error))
            }
            if descriptors[1].revents != 0 {
                let signals = SignalRouter.drainPromptPipe()
                if signals.interrupted {
                    cancelLine()
                    return .interrupted
                }
                if signals.suspended { suspend() }
                if signals.suspended || signals.continued {
                    resume(afterStopping: signals.suspended)
                } else if signals.resized {
                    rl_resize_terminal()
                }
            }
            if descriptors[0].revents != 0 {
                keyPressed = true
                rl_callback_read_char()
                if let result = ReadlineBridge.shared.withLock({ $0.result }) {
                    return result
                }
            }
        }
    }

    public func addToHistory(_ line: String) {
        guard !line.isEmpty else { return }
        add_history(line)
    }

    public func clearHistory() {
        giftkeeper_clear_history_wiping()
    }

    public func setIdleCheck(everyMilliseconds milliseconds: Int, _ check: @escaping (_ keyPressed: Bool) -> IdleReport) {
        idleInterval = milliseconds
        idleCheck = check
    }

    /// Prints `lines` where the prompt was, then draws the prompt and the half-typed line
    /// again below them.
    private func showAbovePrompt(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        rl_clear_visible_line()
        giftkeeper_rl_flush_output()
        POSIXIO.writeAll(STDOUT_FILENO, lines.map { $0 + "\n" }.joined())
        rl_forced_update_display()
    }

    /// Drops the half-typed line and shows `lines` where the prompt was; the terminal is
    /// given back, as after Ctrl-C.
    private func endLine(showing lines: [String]) {
        rl_clear_visible_line()
        giftkeeper_rl_flush_output()
        POSIXIO.writeAll(STDOUT_FILENO, lines.map { $0 + "\n" }.joined())
        rl_free_line_state()
        rl_callback_sigcleanup()
        rl_callback_handler_remove()
    }

    public func setCompletion(_ provider: @escaping (CompletionRequest) -> [String]) {
        ReadlineBridge.shared.withLock { $0.provider = UncheckedProvider(call: provider) }
    }

    /// Ctrl-Z at the prompt, as readline's own signal handling does it: the terminal as the
    /// user's shell expects it, then the process stops until `fg`.
    private func suspend() {
        rl_callback_sigcleanup()
        rl_echo_signal_char(SIGTSTP)
        rl_cleanup_after_signal()
        giftkeeper_rl_flush_output()
        POSIXIO.writeAll(STDOUT_FILENO, "\n")
        SignalRouter.stopProcess()
    }

    /// After `fg` (or any SIGCONT): readline's terminal settings again (the shell that had
    /// the terminal meanwhile put its own), the size it may have changed to, and the prompt
    /// with the half-typed line drawn anew on a line of its own.
    private func resume(afterStopping: Bool) {
        if afterStopping {
            _ = SignalRouter.drainPromptPipe()  // the SIGCONT that `fg` sent: handled here
        } else {
            // Stopped by someone else (SIGSTOP): readline still thinks the terminal is its own.
            rl_deprep_terminal()
            POSIXIO.writeAll(STDOUT_FILENO, "\r")
        }
        rl_reset_after_signal()
        rl_resize_terminal()
        rl_forced_update_display()
    }

    /// Throws away the half-typed line and gives the terminal back, like readline's own
    /// SIGINT handling in callback mode, without re-raising the signal.
    private func cancelLine() {
        rl_free_line_state()
        rl_callback_sigcleanup()
        rl_echo_signal_char(SIGINT)
        rl_cleanup_after_signal()
        rl_callback_handler_remove()
        POSIXIO.writeAll(STDOUT_FILENO, "\n")
    }
}

/// The completion provider, called only synchronously by readline on the thread that is
/// inside ``ReadlineLineEditor/readLine(prompt:)``; never across threads.
private struct UncheckedProvider: @unchecked Sendable {
    let call: (CompletionRequest) -> [String]
}

/// The one registry readline's C callbacks reach (they cannot capture context).
private struct ReadlineBridge {
    var provider: UncheckedProvider?
    var style = CompletionStyle.words
    var result: LineInput?
    /// Matches handed to `rl_completion_matches`' generator, one at a time.
    var matches: [String] = []

    static let shared = Mutex(ReadlineBridge())
}

/// `rl_vcpfunc_t`: readline finished a line (`NULL` at end of input).
private let readlineLineHandler: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
    // Removing the handler here stops readline from printing a fresh prompt after the line.
    rl_callback_handler_remove()
    let result: LineInput
    if let line {
        let length = strlen(line)
        result = LineInput.validating(UnsafeRawBufferPointer(start: line, count: length))
        free(line)
    } else {
        result = .endOfInput
        // Readline leaves the cursor after the prompt on Ctrl-D.
        POSIXIO.writeAll(STDOUT_FILENO, "\n")
    }
    ReadlineBridge.shared.withLock { $0.result = result }
}

/// `rl_completion_func_t`: builds the request, asks the provider, keeps the matches.
private let readlineCompletionTrampoline:
    @convention(c) (
        UnsafePointer<CChar>?, Int32, Int32
    ) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, _, end in
        giftkeeper_rl_set_attempted_completion_over(1)
        guard let text, let buffer = giftkeeper_rl_line_buffer() else { return nil }
        let upToCursor = UnsafeRawBufferPointer(start: buffer, count: Int(max(end, 0)))
        let line = String(decoding: upToCursor, as: UTF8.self)
        let (found, style) = ReadlineBridge.shared.withLock { ($0.provider, $0.style) }
        guard let provider = found else { return nil }
        let candidates: [String]
        if style == .wholeLine {
            // The answer so far is the word; a candidate goes in as it is, nothing after it.
            giftkeeper_rl_set_completion_append_character(0)
            candidates = provider.call(CompletionRequest(line: line, precedingWords: [], word: line))
                .filter { $0.lowercased().hasPrefix(line.lowercased()) }
        } else {
            let partial = CommandLineTokenizer.splitPartial(line)
            let request = CompletionRequest(line: line, precedingWords: partial.words, word: partial.current)
            let quote = giftkeeper_rl_completion_quote_character()
            let insideQuotes = quote != 0
            candidates = provider.call(request)
                .filter { $0.lowercased().hasPrefix(request.word.lowercased()) }
                // Inside '…' a candidate holding a ' cannot be written (readline would close the
                // quote early): it is left out; typed unquoted, it completes as "O'Brien".
                .filter { !insideQuotes || !$0.unicodeScalars.contains(Unicode.Scalar(UInt8(truncatingIfNeeded: quote))) }
                .map { insideQuotes ? $0 : CommandLineTokenizer.quoted($0) }
        }
        guard !candidates.isEmpty else { return nil }
        ReadlineBridge.shared.withLock { $0.matches = candidates }
        return rl_completion_matches(text, readlineMatchGenerator)
    }

/// `rl_compentry_func_t`: returns the `state`-th match as a `malloc`ed string, then NULL.
private let readlineMatchGenerator:
    @convention(c) (
        UnsafePointer<CChar>?, Int32
    ) -> UnsafeMutablePointer<CChar>? = { _, state in
        ReadlineBridge.shared.withLock { bridge in
            let index = Int(state)
            guard index < bridge.matches.count else {
                bridge.matches = []
                return nil
            }
            return strdup(bridge.matches[index])
        }
    }
