import Foundation
import Glibc
import Testing

/// What a finished run of a program left behind.
struct Outcome: CustomStringConvertible {
    let status: Int32
    let stdoutBytes: [UInt8]
    let stderrBytes: [UInt8]
    let timedOut: Bool

    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    /// Standard error's lines without the notifications (🔓, 🔒, ⚠️, 🚨), which scripts and
    /// one-shots print there too: what went wrong.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init).filter { !Self.isNotification($0) } }
    /// The notifications on standard error, in order.
    var notifications: [String] { stderr.split(separator: "\n").map(String.init).filter(Self.isNotification) }

    static func isNotification(_ line: String) -> Bool {
        ["🔓", "🔒", "⚠️", "🚨"].contains { line.hasPrefix($0) }
    }
    /// The `giftkeeper: error: …` lines of standard error.
    var errorLines: [String] { stderrLines.filter { $0.hasPrefix("giftkeeper: error: ") } }

    var description: String {
        "exit \(status)\(timedOut ? " (timed out, killed)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// A child process whose standard input, output and error are pipes to this process.
/// Nothing here blocks without a deadline: ``pump(until:timeout:)`` moves bytes both ways
/// with `poll` and reaps the child when it exits; a child still running at the deadline
/// is killed and reported as timed out.
final class ChildProcess {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private let error: Int32
    private var pendingInput: [UInt8] = []
    private var closeInputWhenWritten = false
    private var outputOpen = true
    private var errorOpen = true
    private(set) var stdoutBytes: [UInt8] = []
    private(set) var stderrBytes: [UInt8] = []
    private(set) var status: Int32?
    private(set) var timedOut = false

    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Starts `executable` with exactly `arguments` (without argv[0]) and `environment`.
    init(executable: String, arguments: [String], environment: [String: String]) throws {
        _ = Self.ignoreBrokenPipes
        var stdinPipe: [Int32] = [0, 0]
        var stdoutPipe: [Int32] = [0, 0]
        var stderrPipe: [Int32] = [0, 0]
        // Close-on-exec from birth: a pipe end leaked into a child spawned at the same time
        // by another test would keep this child's input open.
        guard closeOnExecPipe(&stdinPipe), closeOnExecPipe(&stdoutPipe), closeOnExecPipe(&stderrPipe)
        else { throw SpawnError(message: "pipe2 failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A fresh process group, so a timeout can kill the child and anything it started.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for argument in argv { free(argument) }
            for variable in envp { free(variable) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard result == 0 else {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            close(stderrPipe[0])
            throw SpawnError(message: "posix_spawn \(executable) failed: errno \(result)")
        }
        pid = child
        input = stdinPipe[1]
        output = stdoutPipe[0]
        error = stderrPipe[0]
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if status == nil {
            kill(-pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
        if input >= 0 { close(input) }
        close(output)
        close(error)
    }

    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }

    /// Queues bytes for the child's standard input (written by ``pump(until:timeout:)``).
    func send(_ text: String) { pendingInput += Array(text.utf8) }
    func send(_ bytes: [UInt8]) { pendingInput += bytes }

    /// Closes standard input once everything queued is written (the child sees end of input).
    func closeInput() { closeInputWhenWritten = true }

    /// Moves bytes until `condition` holds or the child exited and its output ended.
    /// Returns whether `condition` held; on timeout the child is killed.
    @discardableResult
    func pump(until condition: () -> Bool = { false }, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var exitedAt: Date?
        while true {
            if condition() { return true }
            if status != nil, !outputOpen, !errorOpen { return condition() }
            let now = Date()
            if now >= deadline {
                if status == nil {
                    timedOut = true
                    kill(-pid, SIGKILL)
                    var raw: Int32 = 0
                    waitpid(pid, &raw, 0)
                    status = -1
                }
                return condition()
            }
            // The child is gone but something it started holds its output open: stop soon.
            if let exitedAt, now.timeIntervalSince(exitedAt) > 2 { return condition() }
            if input >= 0, pendingInput.isEmpty, closeInputWhenWritten {
                close(input)
                input = -1
            }
            var fds: [pollfd] = []
            if input >= 0, !pendingInput.isEmpty { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            if outputOpen { fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
            if errorOpen { fds.append(pollfd(fd: error, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), 20)
            for entry in fds where entry.revents != 0 {
                if entry.fd == input {
                    let written = pendingInput.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
                    if written > 0 {
                        pendingInput.removeFirst(written)
                    } else if written < 0, errno != EAGAIN, errno != EINTR {
                        pendingInput = []  // EPIPE: the child stopped reading.
                        close(input)
                        input = -1
                    }
                } else {
                    var chunk = [UInt8](repeating: 0, count: 65536)
                    let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        if entry.fd == output { stdoutBytes += chunk[0..<count] } else { stderrBytes += chunk[0..<count] }
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        if entry.fd == output { outputOpen = false } else { errorOpen = false }
                    }
                }
            }
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid {
                    // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (macros are not imported).
                    let signal = raw & 0x7f
                    status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
                    exitedAt = Date()
                }
            }
        }
    }

    /// Closes input, waits for the exit (killing at `timeout`), and returns what happened.
    func finish(timeout: Double = 30) -> Outcome {
        closeInput()
        pump(timeout: timeout)
        return Outcome(status: status ?? -1, stdoutBytes: stdoutBytes, stderrBytes: stderrBytes, timedOut: timedOut)
    }
}

/// `pipe2(fds, O_CLOEXEC)`; Glibc's Swift module does not export `pipe2` (it is `_GNU_SOURCE`).
private func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else { return false }
    let pipe2 = unsafeBitCast(symbol, to: Pipe2.self)
    return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress, O_CLOEXEC) } == 0
}

struct SpawnError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs `executable` to completion with `input` on standard input.
func runProgram(
    _ executable: String, _ arguments: [String], input: [UInt8] = [], environment: [String: String],
    timeout: Double = 30
) throws -> Outcome {
    let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
    child.send(input)
    return child.finish(timeout: timeout)
}

/// Where the built `giftkeeper` is: next to the running test bundle, else `$GIFTKEEPER_BINARY`.
enum GiftKeeperBinary {
    static let path: String? = locate()

    /// The path, or a test failure that says how to provide it.
    static func require() throws -> String {
        guard let path else {
            throw SpawnError(
                message: "the giftkeeper binary was not found next to the test bundle; build it (swift build --build-tests) or set GIFTKEEPER_BINARY")
        }
        return path
    }

    private static func locate() -> String? {
        var starts: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { starts.append(exe) }
        if let first = CommandLine.arguments.first { starts.append(first) }
        starts.append(Bundle.main.bundlePath)
        starts.append(Bundle.main.executablePath ?? "")
        for start in starts where !start.isEmpty {
            var directory = URL(fileURLWithPath: start).standardizedFileURL.deletingLastPathComponent().path
            for _ in 0..<4 {
                let candidate = directory + "/giftkeeper"
                if isExecutableFile(candidate) { return candidate }
                let parent = URL(fileURLWithPath: directory).deletingLastPathComponent().path
                if parent == directory { break }
                directory = parent
            }
        }
        if let fromEnvironment = ProcessInfo.processInfo.environment["GIFTKEEPER_BINARY"],
            isExecutableFile(fromEnvironment)
        {
            return fromEnvironment
        }
        return nil
    }
}

func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
}

/// Finds a program on `$PATH` (tmux, python3).
func findOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where isExecutableFile("\(directory)/\(name)") {
        return "\(directory)/\(name)"
    }
    for directory in ["/usr/local/bin", "/usr/bin", "/bin"] where isExecutableFile("\(directory)/\(name)") {
        return "\(directory)/\(name)"
    }
    return nil
}

/// A private world for one test: its own HOME, XDG state and data directories and
/// journal path, all under one temporary directory removed at the end.
final class Sandbox {
    let root: String
    let binary: String

    init() throws {
        binary = try GiftKeeperBinary.require()
        var template = Array("/tmp/giftkeeper-e2e-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        guard let made else { throw SpawnError(message: "mkdtemp failed: errno \(errno)") }
        root = made
        for directory in [home, state, data] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
    }

    deinit {
        // Make everything removable again (tests chmod files and directories).
        if let walker = FileManager.default.enumerator(atPath: root) {
            while let relative = walker.nextObject() as? String { chmod(root + "/" + relative, 0o700) }
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    var home: String { root + "/home" }
    var state: String { root + "/state" }
    var data: String { root + "/data" }
    /// The default journal of a test: in a directory giftkeeper creates (mode 0700).
    var journal: String { root + "/journals/gifts.journal" }

    /// The environment every run gets: nothing of the real user's.
    var environment: [String: String] {
        ["HOME": home, "XDG_STATE_HOME": state, "XDG_DATA_HOME": data, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
    }

    /// Runs giftkeeper with `arguments` and `input` on standard input.
    func run(_ arguments: [String], input: String = "", environment extra: [String: String] = [:]) throws -> Outcome {
        try run(arguments, bytes: Array(input.utf8), environment: extra)
    }

    func run(_ arguments: [String], bytes: [UInt8], environment extra: [String: String] = [:]) throws -> Outcome {
        try runProgram(binary, arguments, input: bytes, environment: environment.merging(extra) { $1 })
    }

    /// A REPL script (one command per line) against `journal` (the sandbox's by default).
    func script(_ lines: [String], journal: String? = nil) throws -> Outcome {
        try run(["--journal", journal ?? self.journal], input: lines.joined(separator: "\n") + "\n")
    }

    /// A REPL script run by the built binary under `faketime` (Debian's libfaketime), its
    /// clock starting at `time` (`2026-11-24 09:00:00`, UTC) and running on from there.
    func script(at time: String, _ lines: [String]) throws -> Outcome {
        try runProgram(
            Self.faketime, ["-f", "@" + time, binary, "--journal", journal],
            input: Array((lines.joined(separator: "\n") + "\n").utf8), environment: environment.merging(["TZ": "UTC"]) { $1 })
    }

    /// Debian's faketime, which `make`'s dependency step installs.
    static let faketime = "/usr/bin/faketime"

    /// Starts giftkeeper without waiting for it.
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(executable: binary, arguments: arguments, environment: environment)
    }

    /// Creates the sandbox journal with account `name`, password `password` and `presents`
    /// (each a line after `add `), at the cheapest production cost.
    @discardableResult
    func createJournal(
        name: String = "Alice", password: String = "secret-pw", presents: [String] = [], journal: String? = nil
    ) throws -> Outcome {
        let outcome = try script(
            ["setup \(name) --kdf interactive", password, password] + presents.map { "add " + $0 } + ["quit"],
            journal: journal)
        #expect(outcome.status == 0, "setup failed: \(outcome)")
        return outcome
    }

    /// `giftkeeper verify` on `journal`: the structure and chain are intact.
    func verifies(_ journal: String? = nil) throws -> Bool {
        let outcome = try run(["verify", "--journal", journal ?? self.journal])
        return outcome.status == 0 && outcome.stdout.hasPrefix("OK: ")
    }

    /// `giftkeeper audit` with `password`: every frame authenticates.
    func audits(password: String = "secret-pw", _ journal: String? = nil) throws -> Outcome {
        try run(["audit", "--journal", journal ?? self.journal], input: password + "\n")
    }

    /// Every regular file under the sandbox, as absolute paths.
    func allFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { files.append(path) }
        }
        return files
    }
}

/// The permission bits of `path` (`stat`), or nil.
func permissions(of path: String) -> UInt32? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return UInt32(info.st_mode) & 0o7777
}

func fileBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        throw SpawnError(message: "could not write \(path)")
    }
    chmod(path, mode)
}

/// Whether `haystack` contains `needle` as a contiguous byte run.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
        if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
        index += 1
    }
    return false
}

/// Whether the process runs as root (who reads and writes files whatever their mode).
let runningAsRoot = getuid() == 0
