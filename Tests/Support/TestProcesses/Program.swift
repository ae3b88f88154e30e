import Glibc
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// What a finished run of a program left behind.
public struct Outcome: Sendable, CustomStringConvertible {
    /// The exit code, 128 + the signal that ended it, or -1 when it was killed at its deadline.
    public let status: Int32
    /// The signal that ended it, or nil when it exited.
    public let signal: Int32?
    public let stdoutBytes: [UInt8]
    public let stderrBytes: [UInt8]
    public let timedOut: Bool

    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    public var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    public var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    public var description: String {
        "exit \(status)\(timedOut ? " (timed out, killed)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// A program started by ``withProgram(_:_:environment:timeout:_:)``, while it runs: what it
/// printed so far, its standard input, signals. Valid only inside the body it is given to.
public final class RunningProgram: Sendable {
    /// The process id (also its process group's: it leads a group of its own).
    public let pid: Int32
    private let input: StandardInputWriter
    private let printed = Mutex(Printed())

    private struct Printed {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var stdoutEnded = false
        var stderrEnded = false
    }

    fileprivate init(pid: Int32, input: StandardInputWriter) {
        self.pid = pid
        self.input = input
    }

    /// Standard output so far.
    public var stdout: String { printed.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    /// Standard error so far.
    public var stderr: String { printed.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// The complete lines of standard output so far.
    public var stdoutLines: [String] {
        printed.withLock { printed in
            guard let end = printed.stdout.lastIndex(of: 10) else { return [] }
            return String(decoding: printed.stdout[..<end], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
        }
    }

    /// Whether both output streams reached their end (the program and all it started closed them).
    public var outputEnded: Bool { printed.withLock { $0.stdoutEnded && $0.stderrEnded } }

    /// Writes `text` to the program's standard input. A program that stopped reading
    /// (a closed pipe) is not an error here: what it did is in its output and exit status.
    public func send(_ text: String) async { await send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) async {
        guard !bytes.isEmpty else { return }
        _ = try? await input.write(bytes)
    }

    /// Closes standard input: the program reads end of input.
    public func closeInput() async { try? await input.finish() }

    /// Sends `signal` to the program alone.
    public func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Waits until `condition` holds for what was printed (stdout, stderr), checking every
    /// 20 ms, or until both output streams ended or `timeout` passed. Returns whether it held.
    @discardableResult
    public func wait(timeout: Duration = .seconds(30), until condition: (_ stdout: String, _ stderr: String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (out, error, ended) = printed.withLock {
                (String(decoding: $0.stdout, as: UTF8.self), String(decoding: $0.stderr, as: UTF8.self), $0.stdoutEnded && $0.stderrEnded)
            }
            if condition(out, error) { return true }
            if ended || ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until standard output holds at least `count` complete lines (or ended); returns them.
    public func lines(atLeast count: Int, timeout: Duration = .seconds(30)) async -> [String] {
        await wait(timeout: timeout) { out, _ in out.count(where: { $0 == "\n" }) >= count }
        return stdoutLines
    }

    fileprivate func take(_ buffer: SubprocessOutputSequence.Buffer, error: Bool) {
        let bytes = buffer.withUnsafeBytes { [UInt8]($0) }
        printed.withLock { error ? $0.stderr.append(contentsOf: bytes) : $0.stdout.append(contentsOf: bytes) }
    }

    fileprivate func end(error: Bool) {
        printed.withLock { if error { $0.stderrEnded = true } else { $0.stdoutEnded = true } }
    }

    fileprivate var output: (stdout: [UInt8], stderr: [UInt8]) { printed.withLock { ($0.stdout, $0.stderr) } }
}

/// SIGPIPE ignored in the test process, once: input written to a program that has already
/// exited (a bad journal refused at once) is then an EPIPE the writer drops, not a signal
/// that ends the whole test process without a word. The programs started get the default
/// back (swift-subprocess resets every signal in the child).
private let closedPipesAreErrors: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

/// Starts `executable` with exactly `arguments` and `environment` (nil: this process's), in
/// a process group of its own, and runs `body` while it runs; then closes its standard input
/// and waits for it to exit and its output to end. At `timeout` the whole group is killed
/// (SIGKILL) and the outcome says so. The child gets default signal dispositions and none
/// of this process's descriptors but its three pipes (swift-subprocess).
public func withProgram<Result: Sendable>(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(30),
    _ body: (RunningProgram) async throws -> Result
) async throws -> (Result, Outcome) {
    // `make test` sets this in the test process that holds journal locks (see the Makefile).
    if getenv("GIFTKEEPER_TESTS_START_NO_PROGRAMS") != nil { throw ProgramNotAllowedHere(executable: executable) }
    _ = closedPipesAreErrors
    var options = PlatformOptions()
    options.processGroupID = 0
    let started = Mutex<Int32?>(nil)
    let finished = Atomic<Bool>(false)
    let killed = Atomic<Bool>(false)
    let deadline = Task {
        try await Task.sleep(for: timeout)
        guard !finished.load(ordering: .acquiring), let pid = started.withLock({ $0 }) else { return }
        killed.store(true, ordering: .releasing)
        _ = kill(-pid, SIGKILL)
    }
    defer { deadline.cancel() }
    let environment: Environment =
        environment.map { .custom(Dictionary(uniqueKeysWithValues: $0.map { (Environment.Key(stringLiteral: $0.key), $0.value) })) }
        ?? .inherit
    let result = try await Subprocess.run(
        .path(FilePath(executable)), arguments: Arguments(arguments), environment: environment, platformOptions: options,
        input: .inputWriter, output: .sequence, error: .sequence
    ) { execution in
        let program = RunningProgram(pid: execution.processIdentifier.value, input: execution.standardInputWriter)
        started.withLock { $0 = program.pid }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await buffer in execution.standardOutput { program.take(buffer, error: false) }
                program.end(error: false)
            }
            group.addTask {
                for try await buffer in execution.standardError { program.take(buffer, error: true) }
                program.end(error: true)
            }
            let value = try await body(program)
            await program.closeInput()
            try await group.waitForAll()
            return (value, program.output)
        }
    }
    finished.store(true, ordering: .releasing)
    let (value, output) = result.closureResult
    let timedOut = killed.load(ordering: .acquiring)
    let status: Int32
    let signal: Int32?
    switch result.terminationStatus {
    case .exited(let code):
        (status, signal) = (timedOut ? -1 : code, nil)
    case .signaled(let code):
        (status, signal) = (timedOut ? -1 : 128 + code, code)
    }
    return (value, Outcome(status: status, signal: signal, stdoutBytes: output.stdout, stderrBytes: output.stderr, timedOut: timedOut))
}

/// A test started a program in the test process that runs beside no program: its suite
/// belongs in the Makefile's PROCESS_TESTS.
public struct ProgramNotAllowedHere: Error, CustomStringConvertible {
    public let executable: String
    public var description: String {
        "'\(executable)' was started by a suite that runs beside tests holding journal locks; add the suite to PROCESS_TESTS in the Makefile"
    }
}

/// Runs `executable` to completion with `input` on its standard input; see
/// ``withProgram(_:_:environment:timeout:_:)``.
public func runProgram(
    _ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil,
    timeout: Duration = .seconds(30)
) async throws -> Outcome {
    try await withProgram(executable, arguments, environment: environment, timeout: timeout) { program in
        await program.send(input)
    }.1
}
