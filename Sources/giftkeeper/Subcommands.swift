import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperService
import Glibc

/// `giftkeeper [repl]`: the interactive shell (script mode when stdin is not a terminal).
struct REPL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl", abstract: "Start the GiftKeeper shell (the default).")

    @OptionGroup var journal: JournalOption
    // Unconditional, so `--lock-after -5` reaches the check ("cannot be negative").
    @Option(
        name: .customLong("lock-after"), parsing: .unconditional,
        help: ArgumentHelp(
            "Sign out by itself after the prompt waited this long, signed in, on a terminal; 0 never (0.5 is 30 s).",
            valueName: "minutes"))
    var lockAfter = "10"
    /// Set by the shell on itself when it starts afresh after a sign-out (``freshProcess``):
    /// it begins at the signed-out prompt, asking for nothing.
    @Flag(name: .customLong("signed-out"), help: .hidden) var signedOut = false

    func validate() throws {
        _ = try lockAfterMilliseconds()
    }

    /// `--lock-after` in milliseconds, nil for 0 (never). Minutes as a plain decimal
    /// number, at most a year of them.
    func lockAfterMilliseconds() throws -> Int64? {
        let text = lockAfter
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDecimal =
            !text.isEmpty && text != "." && parts.count <= 2 && parts.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) } }
        guard isDecimal, let minutes = Double(text) else {
            if text.hasPrefix("-"), Double(text) != nil {
                throw ValidationError("--lock-after cannot be negative ('\(lockAfter)'); 0 means never")
            }
            throw ValidationError("--lock-after takes a number of minutes such as 10 or 0.5, 0 for never; '\(lockAfter)' is not one")
        }
        guard minutes <= 525_600 else {
            throw ValidationError("--lock-after takes at most 525600 minutes (a year); 0 means never")
        }
        let milliseconds = Int64((minutes * 60_000).rounded())
        return milliseconds == 0 ? nil : milliseconds
    }

    func run() throws {
        let service: any ShellService
        do {
            service = try shellService(journalPath: journal.path, environment: journal.environment)
        } catch {
            throw failure(error)
        }
        // Only a person at the terminal, who read a rollback warning, accepts it by a change;
        // a script, which nobody watches, stops at sign-in instead (exit 1, nothing written).
        service.acceptsRollbackOnChange = TerminalSession.isStandardInputTerminal
        service.refusesRollback = !TerminalSession.isStandardInputTerminal
        let input = TerminalSession.makeREPLInput()
        let session = REPLSession(
            service: service, editor: input.editor, passwords: input.passwords,
            isInteractive: TerminalSession.isStandardInputTerminal, lockAfter: try lockAfterMilliseconds())
        session.startsSignedOut = signedOut
        session.freshProcess = Self.freshProcess
        let code = session.run()
        if code != 0 { throw ExitCode(code) }
    }

    /// Replaces this process with a fresh run of the same program on the same terminal and
    /// journal (`execv` of the file `/proc/self/exe` names, so `ps` still says giftkeeper;
    /// `/proc/self/exe` itself when that file is gone; the same arguments and
    /// `--signed-out`), so that nothing decrypted while signed in -- freed Swift strings
    /// included -- stays in its memory. Returns only when that fails.
    static func freshProcess() {
        var arguments = CommandLine.arguments
        if !arguments.contains("--signed-out") { arguments.append("--signed-out") }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &target, Int(PATH_MAX))
        let named = length > 0 ? String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let program = named.isEmpty || named.hasSuffix(" (deleted)") ? "/proc/self/exe" : named
        let pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        execv(program, pointers)
    }
}

/// `giftkeeper audit`: replay and authenticate the whole journal, read-only.
struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Replay and verify the whole journal with its password, one line per event (read-only).")

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption
    @Flag(help: "JSON lines instead of text.") var json = false

    func run() throws {
        let household: HouseholdShellService?
        do {
            household = try householdShellService(at: journal.path)
        } catch {
            throw failure(error)
        }
        if let household { return try auditHousehold(household) }
        let console = Console()
        let report: AuditReport
        // Each line goes out as its frame verifies: nothing is kept (the audit holds no more
        // than a replay), and the lines leave in chunks.
        var lines = Console.Lines(console)
        let sharesTerminal = isatty(STDOUT_FILENO) == 1
        do {
            let secret = try password.readPassword()
            defer { secret.wipe() }
            let progress = Progress(label: "Auditing")
            defer { progress.finish() }
            // On a terminal: the key derivation takes a while, so say what is happening.
            progress.show("Checking the password…")
            report = try JournalAudit.audit(
                journalPath: journal.path, password: secret, environment: journal.environment,
                progress: { progress.update(completed: $0, total: $1) },
                onRecord: { record in
                    // The lines themselves show the progress on a shared screen.
                    if sharesTerminal { progress.finish() }
                    lines.print(json ? jsonLine(record) : textLine(record))
                })
            lines.flush()
        } catch {
            lines.flush()
            // Damage found before any frame could be read (in the header, or before the key
            // wrap this password opens) still gets its verdict line.
            if let error = error as? ServiceError, error.exitCode == 1 {
                printFailedVerdict(error, verified: 0, console: console)
            }
            throw failure(error)
        }
        let failed = report.reportedFailedLogins.count
        for broken in report.textRuleBreaks { console.warning(AuditWords.warning(broken)) }
        if let tail = report.tornTail {
            console.warning("The last \(tail.length) bytes are an incomplete write (a crash). Opening the journal for writing trims them.")
        }
        if let problem = report.failure {
            // Every frame verified when only the rollback check failed.
            printFailedVerdict(problem, verified: report.verifiedCount, allVerified: report.problem == nil, console: console)
            throw failure(problem, console: console)
        }
        if json {
            console.print(
                JSONWriter.line([
                    ("verdict", .string("ok")), ("events", .number(Int64(report.verifiedCount))),
                    ("failedLoginsReported", .number(Int64(failed))),
                ]))
        } else {
            console.print("OK: \(counted(report.verifiedCount, "frame")) verified; \(counted(failed, "failed login")) reported")
        }
    }

    /// One record's line with `--json`: a JSON object.
    private func jsonLine(_ record: AuditRecord) -> String {
        JSONWriter.line([
            ("seq", .number(Int64(record.sequence))),
            ("time", record.at.map { .string($0.iso8601) } ?? .null),
            ("event", .string(record.type)),
            ("summary", .string(AuditWords.summary(record))),
            ("reported", .bool(record.isReported)),
        ])
    }

    /// One record's text line, tab-separated: sequence, time, event, summary.
    private func textLine(_ record: AuditRecord) -> String {
        "\(record.sequence)\t\(record.at?.iso8601 ?? "-")\t\(record.type)\t\(AuditWords.summary(record))"
            + (record.isReported ? " (reported)" : "")
    }
}

extension Audit {
    /// The verdict line of a failed audit, on standard output after the verified frames.
    func printFailedVerdict(_ problem: ServiceError, verified: Int, allVerified: Bool = false, console: Console) {
        if json {
            console.print(
                JSONWriter.line([
                    ("verdict", .string("failed")), ("events", .number(Int64(verified))),
                    ("reason", .string(problem.sentence)),
                ]))
        } else if allVerified {
            console.print("FAILED: \(counted(verified, "frame")) verified, but: \(problem.sentence)")
        } else {
            console.print("FAILED after \(counted(verified, "verified frame")): \(problem.sentence)")
        }
    }
}

/// Runs `task` as a one-shot on the journal and password the options name
/// (``REPLSession/runOneShotTask(_:)``, the runner every one-shot shares), and exits with
/// its code when it failed.
func runOneShotTask(
    journal: JournalOption, password: PasswordOption, creatingJournal: Bool = false, _ task: (REPLSession) throws -> Void
) throws {
    let session: REPLSession
    do {
        session = try oneShotSession(
            journalPath: journal.path, environment: journal.environment, passwordFile: password.passwordFile)
    } catch {
        throw failure(error)
    }
    let code = session.runOneShotTask(creatingJournal: creatingJournal, task)
    if code != 0 { throw ExitCode(code) }
}

/// `giftkeeper export`: the decrypted state as JSON.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the decrypted list as giftkeeper.export.v2 JSON (to standard output, or --output FILE with mode 0600).")

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption
    @Argument(
        help: ArgumentHelp("Write to this file (mode 0600), as --output does; - is standard output.", valueName: "file"),
        completion: .file())
    var file: String?
    @Option(name: .long, help: ArgumentHelp("Write to this file (mode 0600).", valueName: "file"), completion: .file())
    var output: String?
    @Flag(help: "Replace the output file if it exists.") var force = false
    @Option(
        name: .customLong("as-of"), parsing: .unconditional,
        help: ArgumentHelp("The list as it was then: YYYY-MM-DD[THH:MM[:SS]], yesterday, -7d.", valueName: "DATE"))
    var asOf: String?

    func run() throws {
        let output: String?
        let time: Timestamp?
        do {
            // FILE or --output FILE, as in the shell; `-` is standard output, as for most tools.
            output = try exportDestination(file: file, output: self.output)
            // Checked before the password is asked for, as a bad --output is.
            time = try asOf.map { text throws(REPLError) in try LocalTime.parseAsOf(text, now: journal.environment.now()) }
            if let output { try PrivateFile.checkWritable(output, replacing: force) }
        } catch {
            throw failure(error)
        }
        try runOneShotTask(journal: journal, password: password) { session in
            try session.signIn()
            let service = session.service
            let then = try time.map { try service.state(asOf: $0) }
            let count = (then ?? service.state).presentCount
            if let output {
                var file = PrivateFile.Writer(path: output, replacing: force)
                try service.export(to: &file, asOf: then)
                Console().note(PrivateFile.exportedSentence(presents: count, to: file))
            } else {
                var console = Console()
                try service.export(to: &console, asOf: then)
            }
        }
    }
}

/// `giftkeeper import FILE`: append the events that recreate an export document, or a
/// spreadsheet's rows.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Restore the presents of a giftkeeper.export.v2 (or v1) document, ids and all, into a journal that has none of those ids (e.g. a new one), with its occasions, budgets and currency; checked whole first, nothing added if it is malformed. With --merge its presents take new ids; with --csv (or a .csv file) a spreadsheet's rows are added, each bad row named by its line."
    )

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption
    @Argument(help: ArgumentHelp("The export document or spreadsheet.", valueName: "file"), completion: .file(extensions: ["json", "csv"]))
    var file: String
    @Flag(help: "Read FILE as a CSV spreadsheet with a header row (the default for a name ending in .csv).") var csv = false
    @Flag(help: "Add an export's presents under the journal's next free ids, to a journal that has presents.") var merge = false
    @Option(help: ArgumentHelp("Your name, for the journal the import creates when there is none (else asked).", valueName: "name"))
    var name: String?

    func run() throws {
        // Checked whole before the journal is opened or the password asked for.
        let source: ImportSource
        do {
            source = try ImportSource.read(file, csv: csv, merge: merge)
        } catch {
            throw failure(error)
        }
        // No journal yet: the import makes it (the account and password first, as `setup`).
        try runOneShotTask(journal: journal, password: password, creatingJournal: true) { session in
            if session.service.phase == .noAccount {
                try session.setUp(name: name)
            } else {
                try session.signIn()
            }
            try session.importChecked(source, from: file)
        }
    }
}

/// `giftkeeper verify`: keyless check of structure and chain.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the journal's structure and hash chain without the password (accidents, not forgery: use audit for that).")

    @OptionGroup var journal: JournalOption

    func run() throws {
        let console = Console()
        let report: JournalCheck
        do {
            report = try JournalCheck.verify(journalPath: journal.path)
        } catch {
            throw failure(error, console: console)
        }
        if let tail = report.incompleteWrite {
            console.warning(
                "The last \(tail.length) bytes (from byte offset \(tail.offset)) are an incomplete write, e.g. a crash. The next session trims them.")
        }
        if let problem = report.problem {
            let place = problem.place
            console.print("FAILED \(place): \(problem.damage.words)")
            console.error("The journal failed verification \(place): \(problem.damage.words). Restore it from a backup.")
            throw ExitCode(1)
        }
        console.print(
            "OK: \(counted(report.frameCount, "frame")), structure and hash chain intact (last sequence number \(report.lastSequence))")
    }
}
