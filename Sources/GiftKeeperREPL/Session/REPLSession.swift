import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
public import GiftKeeperService
import Glibc
import OrderedCollections

/// The interactive shell: reads command lines, runs them against the service, prints
/// results, notifications and one-line errors. Errors never end the session.
///
/// On a terminal it uses GNU readline and asks for missing arguments; in script mode
/// (standard input not a terminal) it reads one command per line with no prompt, takes
/// answers from the next line, and asks nothing unprompted. ``run()`` returns 0 when
/// every command succeeded, else the exit code of the last failure.
public final class REPLSession {
    private let service: GiftKeeperService
    private let editor: any LineEditor
    private let passwords: any PasswordSource
    private let isInteractive: Bool
    private let console: Console
    /// Opening and unlocking show it on a terminal; anything printed clears it first.
    private let progress = Progress(label: "Reading the journal")
    private var exitCode: Int32 = 0
    /// Answer lines (prompted arguments, passwords) the running command has read so far.
    private var answersRead = ScriptAnswers()
    private var isRunning = true

    public init(
        service: GiftKeeperService, editor: any LineEditor, passwords: any PasswordSource,
        isInteractive: Bool, console: Console = Console()
    ) {
        self.service = service
        self.editor = editor
        self.passwords = passwords
        self.isInteractive = isInteractive
        self.console = console
    }

    /// Runs until `quit`, Ctrl-D or the end of the script; signs out and releases the journal.
    public func run() -> Int32 {
        let console = self.console
        let progress = self.progress
        service.onProgress = { done, total in progress.update(completed: done, total: total) }
        service.onNotification = { notification in
            progress.clear()
            console.print(notification.sentence)
        }
        defer { progress.finish() }
        editor.setCompletion { [weak self] request in self?.completions(for: request) ?? [] }
        do {
            try service.open()
        } catch {
            progress.clear()
            console.error(error.sentence)
            return error.exitCode
        }
        progress.clear()
        if let tail = service.trimmedTail {
            let saved = tail.savedAs.map { " They were saved to \(CommandLineTokenizer.quoted($0)) first." } ?? ""
            console.warning(
                "The journal's last write was incomplete (a crash or power loss): \(tail.length) bytes were trimmed. The events before them are intact."
                    + saved)
        }
        if isInteractive {
            greet()
            progress.clear()
        }
        while isRunning {
            switch editor.readLine(prompt: prompt) {
            case .line(let line):
                let trimmed = line.trimmingWhitespace
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                let keep: Bool
                if isInteractive {
                    keep = CommandInterruption.whileRunning { execute(line) }
                } else {
                    keep = execute(line)
                }
                if keep { editor.addToHistory(line) }
                progress.clear()
                reportLostOutput()
            case .endOfInput:
                isRunning = false
            case .interrupted:
                continue
            case .invalid(let problem):
                fail(problem.description, code: 2)
            }
        }
        finish()
        reportLostOutput()
        // On a terminal every error was seen as it happened, and the session went on: ending
        // it normally is a success. A script's exit code says whether anything failed.
        return isInteractive ? 0 : exitCode
    }

    private var prompt: String {
        switch service.phase {
        case .noAccount: return "giftkeeper (new)> "
        case .locked: return "giftkeeper (locked)> "
        case .signedIn: return "giftkeeper> "
        }
    }

    private func greet() {
        switch service.phase {
        case .noAccount:
            console.print("Welcome to GiftKeeper. There is no journal at \(service.journalPath) yet.")
            console.print("Type 'setup <your name>' to create one, or 'help' to see the commands.")
        case .locked:
            console.print("GiftKeeper: \(service.journalPath) is locked.")
            while service.phase == .locked {
                guard CommandInterruption.whileRunning({ login() }) else { break }
            }
        case .signedIn:
            break
        }
    }

    /// Signs out (announced) and releases the journal.
    private func finish() {
        editor.clearHistory()
        do {
            if service.phase == .signedIn {
                try service.signOut()
            }
            try service.close()
        } catch {
            fail(error.sentence, code: error.exitCode)
        }
    }

    // MARK: Dispatch

    /// Runs one line. Returns whether it may go into the history: not a line that names no
    /// command (it may be a password typed at the wrong prompt), nor an account command
    /// given words it does not take (a password typed on its line).
    @discardableResult
    func execute(_ line: String) -> Bool {
        let words: [String]
        do {
            words = try CommandLineTokenizer.split(line)
        } catch {
            fail(error.description, code: 2)
            return false
        }
        guard let name = words.first else { return false }
        guard REPLCommands.commandNames.contains(name) else {
            fail(unknownCommand(name), code: 2)
            return false
        }
        // `add --help` is `help add` (argument-parser would show the whole tree instead); it
        // asks for nothing.
        if words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            var help = REPLCommands.Help()
            help.command = name
            runHelp(help)
            return true
        }
        // In a script, the lines a command would ask for follow it. They are read even when
        // the command fails before asking, so that an answer (a password above all) is never
        // run as a command, nor repeated in an error.
        answersRead = ScriptAnswers()
        var expected = ScriptAnswers(unparsed: words)
        defer { skipUnreadAnswers(expected) }
        let command: any ParsableCommand
        do {
            command = try REPLCommands.parseAsRoot(words)
        } catch {
            if REPLCommands.exitCode(for: error) == .success {
                console.print(REPLCommands.fullMessage(for: error))
            } else if let usage = ScriptAnswers.secretSafeUsage(words) {
                fail(usage, code: 2)
                return false
            } else {
                fail(sentence(REPLCommands.message(for: error)) + " Type 'help \(name)' for its usage.", code: 2)
            }
            return true
        }
        expected = ScriptAnswers(command)
        do {
            try run(command)
        } catch let error as ServiceError {
            if case .cancelled = error.code {
                noteCancelled("Cancelled.")
            } else {
                fail(error.sentence, code: error.exitCode)
            }
        } catch let error as DomainError {
            fail(error.sentence, code: 2)
        } catch let error as PasswordInputError where error.code == .interrupted {
            noteCancelled("Cancelled.")
        } catch let error as PasswordInputError {
            fail(error.description, code: 2)
        } catch let error as REPLError {
            fail(error.description, code: error.exitCode)
        } catch {
            fail("\(error)", code: 5)
        }
        // `signout` emptied the history; it does not start the next one either.
        return !(command is REPLCommands.SignOut)
    }

    private func run(_ command: any ParsableCommand) throws {
        switch command {
        case let setup as REPLCommands.Setup: try runSetup(setup)
        case is REPLCommands.Login: try runLogin()
        case is REPLCommands.SignOut:
            if service.phase == .signedIn {
                try service.signOut()
                // The locked prompt must not give back (Up, Ctrl-R) what was typed signed in.
                editor.clearHistory()
            } else {
                console.print("Already signed out.")
            }
        case let add as REPLCommands.Add: try runAdd(add)
        case let list as REPLCommands.List: try runList(list)
        case let show as REPLCommands.Show: try runShow(show)
        case let edit as REPLCommands.Edit: try runEdit(edit)
        case let mark as REPLCommands.Mark: try runMark(mark)
        case let remove as REPLCommands.Remove: try runRemove(remove)
        case let history as REPLCommands.History: try runHistory(history)
        case let export as REPLCommands.Export: try runExport(export)
        case let importing as REPLCommands.Import: try runImport(importing)
        case is REPLCommands.Passwd: try runPasswd()
        case let help as REPLCommands.Help: runHelp(help)
        case is REPLCommands.Quit: isRunning = false
        default: console.print(REPLCommands.helpMessage())
        }
    }

    /// Reports an error; in a script, the first failure's code becomes the exit code (the
    /// cause, e.g. a journal that failed verification, rather than what followed from it).
    private func fail(_ message: String, code: Int32) {
        progress.clear()
        console.error(message)
        if exitCode == 0 { exitCode = code }
    }

    /// A cancelled command or prompt is no error: a note, on a line of its own.
    private func noteCancelled(_ text: String) {
        progress.clear()
        console.note(text)
    }

    /// Output that could not be written (standard output on a full disk) is an error, once.
    private func reportLostOutput() {
        guard let failure = console.takeOutputFailure() else { return }
        fail(ServiceError.standardOutputFailure(errno: failure), code: 5)
    }

    // MARK: Asking

    /// Asks for a missing argument: a prompt on a terminal, the next line in a script.
    private func ask(_ label: String) throws -> String {
        let input = editor.readLine(prompt: isInteractive ? "\(label): " : "")
        switch input {
        case .line(let answer):
            answersRead.arguments += 1
            return answer
        case .interrupted:
            throw ServiceError(.cancelled)
        case .endOfInput:
            throw REPLError(.noAnswer(label))
        case .invalid(let problem):
            answersRead.arguments += 1
            throw REPLError(.invalidAnswer(label, problem.reason))
        }
    }

    private func value(_ given: String?, ask label: String) throws -> String {
        if let given { return given }
        return try ask(label)
    }

    private func readPassword(_ prompt: String) throws -> SecureBytes {
        answersRead.passwords += 1
        let raw = try passwords.readPassword(prompt: prompt)
        return try PasswordReader.normalized(raw)
    }

    /// In a script, reads and drops the answer lines `expected` that the command did not read
    /// (it failed first). Passwords go through guarded memory and are wiped; when another
    /// source gives them (not the script's own lines), no script line is theirs.
    private func skipUnreadAnswers(_ expected: ScriptAnswers) {
        guard !isInteractive else { return }
        for _ in answersRead.arguments..<max(expected.arguments, answersRead.arguments) {
            if case .endOfInput = editor.readLine(prompt: "") { return }
        }
        guard (passwords as AnyObject) === (editor as AnyObject) else { return }
        for _ in answersRead.passwords..<max(expected.passwords, answersRead.passwords) {
            guard let skipped = try? passwords.readPassword(prompt: "") else { return }
            skipped.wipe()
        }
    }

    /// On a terminal the word is what the user just typed; in a script it may be a
    /// misplaced answer (a password), so it is not repeated: the line number says where.
    private func unknownCommand(_ name: String) -> String {
        guard !isInteractive else {
            let suggestion = REPLCommands.commandNames.first { $0.hasPrefix(name.lowercased()) }
            return "Unknown command '\(name)'."
                + (suggestion.map { " Did you mean '\($0)'?" } ?? "") + " Type 'help' to see the commands."
        }
        let place = (editor as? ScriptLineEditor).map { "Line \($0.linesRead)" } ?? "A line"
        return "\(place) is not a command (it is not repeated here: it may be a misplaced answer, such as a password). "
            + "Type 'help' to see the commands."
    }

    /// A password check on a terminal: keys typed meanwhile are hidden and dropped.
    private func checking(_ body: () throws -> Void) throws {
        if isInteractive {
            try TypeAhead.discarded(body)
        } else {
            try body()
        }
    }

    /// `~/gifts.json` as the shell would read it (the REPL's words are not shell words).
    private func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty
        else { return path }
        return home + path.dropFirst()
    }

    private func requireSignedIn() throws {
        switch service.phase {
        case .signedIn: return
        case .locked: throw ServiceError(.notSignedIn)
        case .noAccount: throw REPLError(.noAccountYet)
        }
    }

    private func presentID(_ text: String) throws -> PresentID {
        try PresentID.parse(text.trimmingWhitespace)
    }

    // MARK: Account commands

    private func runSetup(_ command: REPLCommands.Setup) throws {
        guard service.phase == .noAccount else {
            if service.phase == .signedIn { throw REPLError(.setupWhileSignedIn) }
            throw ServiceError(.journalExists(path: service.journalPath))
        }
        let name = try value(command.name, ask: "Your name")
        try service.checkSetup(name: name)
        let first = try readPassword("New password: ")
        defer { first.wipe() }
        guard first.count > 0 else { throw ServiceError(.emptyPassword) }
        let second = try readPassword("Repeat the password: ")
        defer { second.wipe() }
        guard first.constantTimeEquals(second) else { throw ServiceError(.passwordsDoNotMatch) }
        let parameters: KDFParameters
        switch command.kdf {
        case .interactive: parameters = .interactive
        case .moderate: parameters = .moderate
        case .sensitive: parameters = .sensitive
        }
        try checking { try service.setup(name: name, password: first, parameters: parameters) }
        console.print("Journal created at \(service.journalPath) (mode 0600). Type 'add <recipient> <title>' to add a present.")
    }

    private func runLogin() throws {
        switch service.phase {
        case .noAccount: throw REPLError(.noAccountYet)
        case .signedIn: throw ServiceError(.alreadySignedIn)
        case .locked: break
        }
        let password = try readPassword("Password: ")
        defer { password.wipe() }
        let delay = service.nextLoginDelay
        if delay > 0, isInteractive {
            console.note("Waiting \(delay) s before checking (failed attempts were recorded)…")
        }
        try checking { try service.login(password: password) }
    }

    /// The interactive login at start-up: true to try again after a wrong password.
    private func login() -> Bool {
        do {
            try runLogin()
            return false
        } catch let error as ServiceError {
            if case .cancelled = error.code {
                noteCancelled("Cancelled. Type 'login' to unlock, or 'quit'.")
                return false
            }
            fail(error.sentence, code: error.exitCode)
            if case .wrongPassword = error.code { return true }
            return false
        } catch let error as PasswordInputError {
            // Ctrl-C or Ctrl-D at the start-up prompt: stay locked at the prompt.
            switch error.code {
            case .interrupted:
                noteCancelled("Cancelled. Type 'login' to unlock, or 'quit'.")
            case .endOfInput: break
            default: fail(error.description, code: 2)
            }
            return false
        } catch {
            fail("\(error)", code: 5)
            return false
        }
    }

    private func runPasswd() throws {
        try requireSignedIn()
        let old = try readPassword("Current password: ")
        defer { old.wipe() }
        guard old.count > 0 else { throw ServiceError(.emptyPassword) }
        let delay = service.nextPasswordChangeDelay
        if delay > 0, isInteractive {
            console.note("Waiting \(delay) s before checking (after a wrong current password)…")
        }
        // The new password is asked for once the current one is checked.
        var new: SecureBytes?
        defer { new?.wipe() }
        try checking {
            try service.changePassword(old: old) {
                let first = try readPassword("New password: ")
                new = first
                guard first.count > 0 else { throw ServiceError(.emptyPassword) }
                let repeated = try readPassword("Repeat the new password: ")
                defer { repeated.wipe() }
                guard first.constantTimeEquals(repeated) else { throw ServiceError(.passwordsDoNotMatch) }
                return first
            }
        }
        console.print("Password changed. New events use a new key; only the new password opens the journal from now on.")
    }

    // MARK: Present commands

    private func runAdd(_ command: REPLCommands.Add) throws {
        try requireSignedIn()
        let recipient = try value(command.recipient, ask: "Recipient")
        let title = try value(command.title, ask: "Title")
        let price = try command.price.map { try Money.parsePrice($0) }
        let events = try service.perform(.addPresent(
            recipient: recipient, title: title, notes: command.notes ?? "", price: price,
            occasion: command.occasion ?? ""))
        for event in events {
            if case .presentAdded(let id, let recipient, let title, _, _, _) = event.body {
                console.print("Saved \(id): \(quoted(title)) for \(recipient).")
            }
        }
    }

    private func runList(_ command: REPLCommands.List) throws {
        try requireSignedIn()
        let status = try command.status.map { try PresentStatus(parsing: $0) }
        let wanted = command.recipient.map { $0.trimmingWhitespace.lowercased() }
        let presents = service.state.presents.values.filter { present in
            (wanted == nil || present.recipient.lowercased() == wanted)
                && (status == nil || present.status == status)
        }
        guard !presents.isEmpty else {
            if service.state.presents.isEmpty {
                console.print("No presents yet. Add one with: add <recipient> <title> [--price 25]")
            } else {
                console.print("No presents match.")
            }
            return
        }
        // On a terminal, long titles (then recipients) are cut with … so rows never wrap;
        // `show` has every field whole.
        let table = TableRenderer(columns: [
            .init("ID"), .init("RECIPIENT", shrinks: true), .init("TITLE", shrinks: true),
            .init("PRICE", alignment: .right), .init("STATUS"),
        ], maxWidth: TerminalSession.outputColumns)
        console.print(table.render(presents.map { present in
            [present.id.description, present.recipient, present.title, present.price?.description ?? "-",
             present.status.rawValue]
        }))
        let total = presents.reduce(Money.zero) { $0.addingSaturating($1.price ?? .zero) }
        // The totals line: how many, what they cost, and how far along they are.
        let stages = PresentStatus.allCases.compactMap { status -> String? in
            let count = presents.lazy.filter { $0.status == status }.count
            return count == 0 ? nil : "\(count) \(status)"
        }
        console.print(
            "\(presents.count) present\(presents.count == 1 ? "" : "s"), total \(total) (\(stages.joined(separator: ", ")))")
    }

    private func runShow(_ command: REPLCommands.Show) throws {
        try requireSignedIn()
        let id = try presentID(try value(command.id, ask: "Present id"))
        guard let (present, isRemoved) = service.state.present(id) else {
            throw DomainError.unknownPresent(id)
        }
        // Notes may hold several lines (an import): each on its own row, tabs as spaces.
        let noteLines = present.notes.isEmpty
            ? ["-"]
            : present.notes.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.map { $0 == "\t" ? "    " : String($0) }.joined() }
        let rows: [[String]] = [
            ["id", present.id.description + (isRemoved ? " (removed)" : "")],
            ["recipient", present.recipient],
            ["title", present.title],
            ["price", present.price?.description ?? "-"],
            ["status", present.status.rawValue],
            ["occasion", present.occasion.isEmpty ? "-" : present.occasion],
        ] + noteLines.enumerated().map { [$0.offset == 0 ? "notes" : "", $0.element] } + [
            ["created", present.createdAt.iso8601],
            ["updated", present.updatedAt.iso8601],
        ]
        console.print(TableRenderer(columns: [.init(""), .init("")], showsRule: false).renderLines(rows).dropFirst()
            .joined(separator: "\n"))
    }

    private func runEdit(_ command: REPLCommands.Edit) throws {
        try requireSignedIn()
        let id = try presentID(try value(command.id, ask: "Present id"))
        var assignments = command.changes
        if assignments.isEmpty {
            // The answer splits like a command line: `price=5 notes="wool, red"` is two changes.
            assignments = try CommandLineTokenizer.split(try ask("Change (field=value)"))
        }
        var changes: [PresentChange] = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw REPLError(.expectedAssignment(assignment))
            }
            let field = try PresentField(parsing: String(assignment[..<equals]))
            changes.append(try PresentChange(field: field, value: String(assignment[assignment.index(after: equals)...])))
        }
        let events = try service.perform(.editPresent(id: id, changes: changes))
        if events.isEmpty {
            console.print("\(id) already has those values; nothing changed.")
        } else {
            let fields = events.flatMap { event -> [String] in
                if case .presentEdited(_, let changes) = event.body { return changes.map(\.field.rawValue) }
                return []
            }
            console.print("Saved \(id): \(fields.joined(separator: ", ")) changed.")
        }
    }

    private func runMark(_ command: REPLCommands.Mark) throws {
        try requireSignedIn()
        let id = try presentID(try value(command.id, ask: "Present id"))
        let status = try PresentStatus(parsing: try value(command.status, ask: "Status (idea, bought, wrapped, given)"))
        let events = try service.perform(.markPresent(id: id, status: status))
        console.print(events.isEmpty ? "\(id) is already \(status)." : "Saved \(id): marked \(status).")
    }

    private func runRemove(_ command: REPLCommands.Remove) throws {
        try requireSignedIn()
        let id = try presentID(try value(command.id, ask: "Present id"))
        try service.perform(.removePresent(id: id))
        console.print("Saved \(id): removed (the history keeps it).")
    }

    // MARK: History, export, import

    private func runHistory(_ command: REPLCommands.History) throws {
        try requireSignedIn()
        if let last = command.last, last < 1 {
            throw REPLError(.invalidCount(last))
        }
        var records = try service.history()
        progress.clear()  // the replay's progress line, if it was long enough to show one
        if let last = command.last, records.count > last {
            records = Array(records.suffix(last))
        }
        let table = TableRenderer(columns: [
            .init("SEQ", alignment: .right), .init("TIME (UTC)"), .init("EVENT"), .init("SUMMARY", shrinks: true),
        ], maxWidth: TerminalSession.outputColumns)
        console.print(table.render(records.map { record in
            [String(record.sequence), record.at.map(Self.shortTime) ?? "-", record.type,
             record.summary + (record.isReported ? " (reported)" : "")]
        }))
    }

    static func shortTime(_ time: Timestamp) -> String {
        let text = time.iso8601  // 2026-11-22T14:03:07.123Z
        guard text.count == 24 else { return text }
        return String(text.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    private func runExport(_ command: REPLCommands.Export) throws {
        try requireSignedIn()
        let count = service.state.presents.count
        if let path = command.file.map(expandingTilde) {
            try PrivateFile.checkWritable(path, replacing: command.force)
            var file = PrivateFile.Writer(path: path, replacing: command.force)
            try service.export(to: &file)
            console.print(PrivateFile.exportedSentence(presents: count, to: path))
        } else {
            var output = console
            try service.export(to: &output)
        }
    }

    private func runImport(_ command: REPLCommands.Import) throws {
        try requireSignedIn()
        let path = expandingTilde(try value(command.file, ask: "File to import"))
        let bytes = try PrivateFile.read(path)
        let summary = try service.importDocument(bytes)
        console.print(summary.sentence)
    }

    // MARK: Help

    private func runHelp(_ command: REPLCommands.Help) {
        guard let name = command.command else {
            console.print("Commands (type 'help <command>' for details):")
            let rows = REPLCommands.configuration.subcommands.map { type -> [String] in
                let config = type.configuration
                let name = ([type._commandName] + config.aliases).joined(separator: ", ")
                return [name, config.abstract]
            }
            console.print(TableRenderer(columns: [.init(""), .init("")], showsRule: false).renderLines(rows).dropFirst()
                .map { "  " + $0 }.joined(separator: "\n"))
            console.print("Arguments follow shell quoting: add Mum \"Blue scarf\" --price 25")
            return
        }
        guard let type = REPLCommands.configuration.subcommands.first(where: {
            $0._commandName == name || $0.configuration.aliases.contains(name)
        }) else {
            fail("Unknown command '\(name)'. Type 'help' to see the commands.", code: 2)
            return
        }
        console.print(REPLCommands.helpMessage(for: type))
    }

    // MARK: Completion

    func completions(for request: CompletionRequest) -> [String] {
        let words = request.precedingWords
        guard let command = words.first else { return REPLCommands.commandNames.sorted() }
        let ids = service.state.presents.keys.map(\.description)
        // Ids in the order they were given (p2 before p10); recipients A to Z, any case.
        let recipients = Array(Set(service.state.presents.values.map(\.recipient)))
            .sorted { $0.lowercased() < $1.lowercased() }
        let statuses = PresentStatus.allCases.map(\.rawValue)
        if words.last == "--status" { return statuses }
        switch (command, request.wordIndex) {
        case ("help", 1): return REPLCommands.commandNames.sorted()
        case ("show", 1), ("edit", 1), ("mark", 1), ("remove", 1): return ids
        case ("mark", 2): return statuses
        case ("edit", _): return PresentField.allCases.map { $0.rawValue + "=" }
        case ("add", 1), ("list", 1): return recipients
        case ("setup", _): return ["--kdf", "interactive", "moderate", "sensitive"]
        default: return []
        }
    }
}

/// A REPL-level failure (not the service's), as data.
struct REPLError: Error, CustomStringConvertible {
    enum Code {
        case noAnswer(String)
        case invalidAnswer(String, String)
        case noAccountYet
        case setupWhileSignedIn
        case expectedAssignment(String)
        case invalidCount(Int)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    var exitCode: Int32 { 2 }

    var description: String {
        switch code {
        case .noAnswer(let label):
            return "No answer for '\(label)'; the command was cancelled."
        case .invalidAnswer(let label, let problem):
            return "The answer for '\(label)' was unusable: \(problem)."
        case .noAccountYet:
            return "There is no account yet. Type 'setup <your name>' first."
        case .setupWhileSignedIn:
            return "This journal already has an account, and you are signed in to it. "
                + "For a new journal, quit and start giftkeeper with --journal NEW-PATH."
        case .expectedAssignment(let text):
            return "Expected field=value, not '\(text)'. Fields: title, recipient, notes, price, occasion."
        case .invalidCount(let count):
            return "'--last \(count)' must be 1 or more. Type e.g. 'history --last 10'."
        }
    }
}

/// `text` ending with a full stop (argument-parser's messages have none), on one line.
private func sentence(_ text: String) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? text
    guard let last = line.last, !".!?".contains(last) else { return line }
    return line + "."
}

private func quoted(_ text: String) -> String {
    "\"" + text + "\""
}

extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }

    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
