import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// What scripts and one-shots print on standard error besides results.
extension Outcome {
    /// Standard error's lines without the notifications (🔓, 🔒, ⚠️, 🚨), which scripts and
    /// one-shots print there too: what went wrong.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init).filter { !isNotification($0) } }
    /// The notifications on standard error, in order.
    var notifications: [String] { stderr.split(separator: "\n").map(String.init).filter(isNotification) }

    /// The `giftkeeper: error: …` lines of standard error.
    var errorLines: [String] { stderrLines.filter { $0.hasPrefix("giftkeeper: error: ") } }
}

/// Where the built `giftkeeper` is: `$GIFTKEEPER_BINARY` when set (`make test-release` runs
/// these suites against the release binary), else next to the running test bundle.
enum GiftKeeperBinary {
    static let path: String? = locate()

    /// The path, or a test failure that says how to provide it.
    static func require() throws -> String {
        guard let path else {
            throw TestSupportError(
                "the giftkeeper binary was not found (GIFTKEEPER_BINARY, or next to the test bundle); build it (swift build --build-tests)")
        }
        return path
    }

    private static func locate() -> String? {
        if let fromEnvironment = ProcessInfo.processInfo.environment["GIFTKEEPER_BINARY"] {
            return isExecutableFile(fromEnvironment) ? fromEnvironment : nil
        }
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
        return nil
    }
}

func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
}

/// Finds a program on `$PATH` (tmux).
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
    private let directory: TemporaryDirectory
    var root: String { directory.path }
    let binary: String

    init() throws {
        binary = try GiftKeeperBinary.require()
        directory = try TemporaryDirectory(prefix: "giftkeeper-e2e")
        for directory in [home, state, data] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
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
    func run(
        _ arguments: [String], input: String = "", environment extra: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> Outcome {
        try await run(arguments, bytes: Array(input.utf8), environment: extra, timeout: timeout)
    }

    func run(
        _ arguments: [String], bytes: [UInt8], environment extra: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> Outcome {
        let outcome = try await runProgram(
            binary, arguments, input: bytes, environment: environment.merging(extra) { $1 }, timeout: timeout)
        if outcome.status == 0, let definition = JSONOutputSchema.definition(of: arguments) {
            let check = try await JSONOutputSchema.check(outcome.stdoutBytes, against: definition)
            #expect(check.status == 0, "\(arguments): the output does not follow docs/json-output.schema.json: \(check)")
        }
        return outcome
    }

    /// A REPL script (one command per line) against `journal` (the sandbox's by default).
    func script(_ lines: [String], journal: String? = nil) async throws -> Outcome {
        try await run(["--journal", journal ?? self.journal], input: lines.joined(separator: "\n") + "\n")
    }

    /// A REPL script run by the built binary under `faketime` (Debian's libfaketime), its
    /// clock starting at `time` (`2026-11-24 09:00:00`, UTC) and running on from there.
    func script(at time: String, _ lines: [String]) async throws -> Outcome {
        try await runProgram(
            Self.faketime, ["-f", "@" + time, binary, "--journal", journal],
            input: Array((lines.joined(separator: "\n") + "\n").utf8), environment: environment.merging(["TZ": "UTC"]) { $1 })
    }

    /// Debian's faketime, which `make`'s dependency step installs.
    static let faketime = "/usr/bin/faketime"

    /// Runs giftkeeper with `arguments` while `body` talks to it (see `withProgram`).
    func withShell<Result: Sendable>(
        _ arguments: [String], _ body: (RunningProgram) async throws -> Result
    ) async throws -> (Result, Outcome) {
        try await withProgram(binary, arguments, environment: environment, body)
    }

    /// Creates the sandbox journal with account `name`, password `password` and `presents`
    /// (each a line after `add `), at the cheapest production cost.
    @discardableResult
    func createJournal(
        name: String = "Alice", password: String = "secret-pw", presents: [String] = [], journal: String? = nil
    ) async throws -> Outcome {
        let outcome = try await script(
            ["setup \(name) --kdf interactive", password, password] + presents.map { "add " + $0 } + ["quit"],
            journal: journal)
        #expect(outcome.status == 0, "setup failed: \(outcome)")
        return outcome
    }

    /// `giftkeeper verify` on `journal`: the structure and chain are intact.
    func verifies(_ journal: String? = nil) async throws -> Bool {
        let outcome = try await run(["verify", "--journal", journal ?? self.journal])
        return outcome.status == 0 && outcome.stdout.hasPrefix("OK: ")
    }

    /// `giftkeeper audit` with `password`: every frame authenticates.
    func audits(password: String = "secret-pw", _ journal: String? = nil) async throws -> Outcome {
        try await run(["audit", "--journal", journal ?? self.journal], input: password + "\n")
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

/// Whether the process runs as root (who reads and writes files whatever their mode).
let runningAsRoot = getuid() == 0

/// docs/json-output.schema.json, which every `--json` output (and an export written to
/// standard output) of these tests is checked against, by Debian's python3-jsonschema
/// (`make` installs it) through scripts/check-json-output.py.
enum JSONOutputSchema {
    static let schema = repositoryRoot + "/docs/json-output.schema.json"
    static let checker = repositoryRoot + "/scripts/check-json-output.py"

    /// The schema's definition for what `arguments` print (the command word first), or nil
    /// when they print no JSON on standard output.
    static func definition(of arguments: [String]) -> String? {
        guard let command = arguments.first else { return nil }
        if command == "export" {
            // To standard output only: `export FILE` and `--output FILE` print no document.
            let words = arguments.dropFirst().prefix { !$0.hasPrefix("--") }
            return words.isEmpty && !arguments.contains("--output") ? "export" : nil
        }
        guard arguments.contains("--json") else { return nil }
        switch command {
        case "list", "gifts": return "presentList"
        case "show": return "present"
        case "upcoming", "budget", "summary", "history": return command
        case "occasion": return "occasionList"
        case "person": return "person"
        case "audit": return "auditLine"
        default: return nil
        }
    }

    /// Runs the checker on `output`: status 0 when it follows the definition, else each
    /// error on standard output.
    static func check(_ output: [UInt8], against definition: String) async throws -> Outcome {
        let lines = definition == "auditLine" ? ["--lines"] : []
        return try await runProgram("/usr/bin/python3", [checker, schema, definition] + lines, input: output)
    }
}
