import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import Synchronization

@testable import GiftKeeperREPL

/// The shell in process: a script of lines in, the exact standard output and standard error
/// out. Over the in-memory store, with a clock that ticks one second per reading and the
/// test-minimum key derivation; no process, no terminal, no file but the outputs.
final class Transcript {
    /// The journal the sessions share: a later session on the same transcript sees what an
    /// earlier one wrote (a restart of the shell).
    let location = MemoryStoreLocation(path: "/journals/gifts.journal")
    let clock = TickingClock()
    /// The server the journal is shared through, when a test sets one (SPEC §12).
    var remote: MemoryRemote?
    private let temporary: TemporaryDirectory
    private var directory: String { temporary.path }
    /// Names the output files of each session run.
    private var runs = 0

    init() throws {
        // Local times in transcripts are UTC, whatever the machine's zone (every test wants the same).
        setenv("TZ", "UTC", 1)
        tzset()
        temporary = try TemporaryDirectory(prefix: "giftkeeper-transcript")
    }

    /// What one session printed, and how it ended.
    struct Outcome: CustomStringConvertible {
        let status: Int32
        let output: String
        /// Standard error without the notifications (🔓, 🔒, ⚠️, 🚨), which a script gets
        /// there too: what went wrong.
        var errors: String { errorLines.map { $0 + "\n" }.joined() }
        /// Everything on standard error.
        let standardError: String
        /// What the shell showed while its prompt waited (``run(steps:lockAfterMinutes:)``).
        var shown: [String] = []
        /// What Tab offered at each `.tab` step.
        var completions: [[String]] = []
        var outputLines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        var standardErrorLines: [String] {
            standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        var errorLines: [String] { standardErrorLines.filter { !isNotification($0) } }
        /// The notifications, in order.
        var notifications: [String] { standardErrorLines.filter(isNotification) }
        var description: String { "exit \(status)\n--- stdout\n\(output)--- stderr\n\(standardError)" }
    }

    /// A shell over this transcript's journal, not yet run (for completion).
    func session() throws -> REPLSession {
        var environment = ServiceEnvironment(
            now: { [clock] in clock.now() }, sleep: { _ in }, stateDirectory: directory + "/state",
            allowsTestKeyDerivationCost: true)
        environment.testKeyDerivationCost = .testMinimum
        let editor = ScriptLineEditor(fileDescriptor: -1)
        return REPLSession(
            service: GiftKeeperService(location: location, environment: environment), editor: editor, passwords: editor,
            isInteractive: false, console: Console(output: -1, error: -1))
    }

    /// Runs one script-mode session over `lines` (each a line of standard input).
    func run(_ lines: [String]) throws -> Outcome {
        let input = TestPipe(lines.map { $0 + "\n" }.joined())
        let editor = ScriptLineEditor(fileDescriptor: input.readEnd)
        return try withExtendedLifetime(input) { try run(editor: editor, passwords: editor) }
    }

    /// What happens to a shell, one step at a time (``run(steps:lockAfterMinutes:)``).
    enum Step {
        /// A line typed (a command, an answer or a password).
        case line(String)
        /// Ctrl-C at the prompt.
        case interrupt
        /// The prompt waits `minutes` of the clock; the shell then looks, as it does while idle.
        case wait(minutes: Int64)
        /// Tab after typing `text` at the prompt (the line so far); the step after it is
        /// the line as entered.
        case tab(String)
    }

    /// Runs one session over `steps`, with what a terminal adds to a script's lines: Ctrl-C,
    /// the waits at the prompt, Tab. Still script mode: no prompt is shown, nothing optional asked.
    /// With `interactive`, the shell takes the steps as typed at a terminal: prompts, a
    /// preview and its question, greeting and sign-in at start. Over `service` when given (a
    /// household member's) instead of this transcript's journal.
    func run(
        steps: [Step], lockAfterMinutes: Int64? = nil, interactive: Bool = false, over service: (any ShellService)? = nil
    ) throws -> Outcome {
        let editor = SteppedEditor(steps, clock: clock)
        var outcome = try run(
            editor: editor, passwords: editor, lockAfter: lockAfterMinutes.map { $0 * 60_000 }, interactive: interactive,
            over: service)
        outcome.shown = editor.shown
        outcome.completions = editor.completions
        return outcome
    }

    /// Runs `body` on a session whose standard input is `lines` (a one-shot's password),
    /// e.g. ``REPLSession/runOneShot(_:)``: what it printed and the exit code it returned.
    func oneShot(input lines: [String], _ body: (REPLSession) -> Int32) throws -> Outcome {
        let input = TestPipe(lines.map { $0 + "\n" }.joined())
        let editor = ScriptLineEditor(fileDescriptor: input.readEnd)
        return try withExtendedLifetime(input) { try run(editor: editor, passwords: editor, body) }
    }

    /// Runs one script-mode session over `lines` on `service` (a household member's, say)
    /// instead of this transcript's journal.
    func run(_ lines: [String], over service: any ShellService) throws -> Outcome {
        let input = TestPipe(lines.map { $0 + "\n" }.joined())
        let editor = ScriptLineEditor(fileDescriptor: input.readEnd)
        return try withExtendedLifetime(input) { try run(editor: editor, passwords: editor, over: service) }
    }

    private func run(
        editor: any LineEditor, passwords: any PasswordSource, lockAfter: Int64? = nil, interactive: Bool = false,
        over given: (any ShellService)? = nil, _ body: (REPLSession) -> Int32 = { $0.run() }
    ) throws -> Outcome {
        runs += 1
        let outputPath = directory + "/out-\(runs)"
        let errorPath = directory + "/err-\(runs)"
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let errors = open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(output)
            close(errors)
        }
        let clock = self.clock
        var environment = ServiceEnvironment(
            now: { clock.now() }, sleep: { _ in }, stateDirectory: directory + "/state",
            allowsTestKeyDerivationCost: true)
        environment.testKeyDerivationCost = .testMinimum
        if let remote {
            environment.remoteLocation = { _ in remote }
            environment.requestedRemote = remote.description
        }
        let service = given ?? GiftKeeperService(location: location, environment: environment)
        let session = REPLSession(
            service: service, editor: editor, passwords: passwords, isInteractive: interactive,
            console: Console(output: output, error: errors), lockAfter: lockAfter)
        let status = body(session)
        return Outcome(
            status: status,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// How many frames the journal holds now (0 before setup).
    var frameCount: UInt64 { location.store?.handle(access: .readOnly).head.sequence ?? 0 }

    /// `text` in guarded memory, as a password is read.
    static func secret(_ text: String) throws -> SecureBytes {
        let secret = try SecureBytes(capacity: text.utf8.count, count: 0)
        for byte in text.utf8 { secret.append(byte) }
        return secret
    }

    /// Sets up Alice's journal (password "correct horse"), then runs `lines` signed in.
    func signedIn(_ lines: [String]) throws -> Outcome {
        if location.store == nil {
            _ = try run(["setup Alice --kdf interactive", "correct horse", "correct horse"])
        }
        return try run(["login", "correct horse"] + lines)
    }
}

/// 2026-11-24 09:00:00 UTC, one second later at every reading.
final class TickingClock: Sendable {
    private let milliseconds = Atomic<Int64>(1_795_510_800_000)

    func now() -> Timestamp {
        Timestamp(millisecondsSinceEpoch: milliseconds.add(1000, ordering: .relaxed).oldValue)
    }

    /// Moves the clock `days` days on (a year later, next Christmas).
    func advance(days: Int64) {
        milliseconds.add(days * 86_400_000, ordering: .relaxed)
    }

    /// Moves the clock `minutes` minutes on (a wait at the prompt).
    func advance(minutes: Int64) {
        milliseconds.add(minutes * 60_000, ordering: .relaxed)
    }
}

/// A line editor and password source that plays ``Transcript/Step``s.
final class SteppedEditor: LineEditor, PasswordSource {
    private var steps: [Transcript.Step]
    private let clock: TickingClock
    private var idleCheck: ((Bool) -> IdleReport)?
    private var provider: ((CompletionRequest) -> [String])?
    private(set) var shown: [String] = []
    private(set) var completions: [[String]] = []

    init(_ steps: [Transcript.Step], clock: TickingClock) {
        self.steps = steps
        self.clock = clock
    }

    func readLine(prompt: String) -> LineInput {
        readLine(prompt: prompt, completing: .words)
    }

    func readLine(prompt: String, completing style: CompletionStyle) -> LineInput {
        while !steps.isEmpty {
            switch steps.removeFirst() {
            case .line(let text):
                return .line(text)
            case .interrupt:
                return .interrupted
            case .wait(let minutes):
                clock.advance(minutes: minutes)
                let report = idleCheck?(false) ?? IdleReport()
                shown += report.lines
                if report.endsLine { return .interrupted }
            case .tab(let typed):
                let partial = CommandLineTokenizer.splitPartial(typed)
                let request =
                    style == .wholeLine
                    ? CompletionRequest(line: typed, precedingWords: [], word: typed)
                    : CompletionRequest(line: typed, precedingWords: partial.words, word: partial.current)
                completions.append(
                    (provider?(request) ?? []).filter { $0.lowercased().hasPrefix(request.word.lowercased()) })
            }
        }
        return .endOfInput
    }

    func readPassword(prompt: String) throws -> SecureBytes {
        guard case .line(let text)? = steps.first else { throw PasswordInputError(.endOfInput) }
        steps.removeFirst()
        return try Transcript.secret(text)
    }

    func addToHistory(_ line: String) {}
    func clearHistory() {}
    func setCompletion(_ provider: @escaping (CompletionRequest) -> [String]) { self.provider = provider }
    func setIdleCheck(everyMilliseconds milliseconds: Int, _ check: @escaping (Bool) -> IdleReport) { idleCheck = check }
}
