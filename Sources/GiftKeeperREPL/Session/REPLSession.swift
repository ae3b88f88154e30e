import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
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
public final class REPLSession: Shell {
    let service: GiftKeeperService
    private let editor: any LineEditor
    private let passwords: any PasswordSource
    let isInteractive: Bool
    let console: Console
    /// Opening and unlocking show it on a terminal; anything printed clears it first.
    let progress = Progress(label: "Reading the journal")
    let titleWords = TitleWords()
    private var exitCode: Int32 = 0
    /// Answer lines (prompted arguments, passwords) the running command has read so far.
    private var answersRead = ScriptAnswers()
    /// The running command's prompt was cancelled (Ctrl-C, a sign-out while idle): someone
    /// is at the keyboard, and the lines after it are commands, not answers to skip.
    private var promptCancelled = false
    private var isRunning = true
    /// Changes made elsewhere, taken in and not yet said (SPEC §12), one sentence each.
    private var changesElsewhere: [String] = []
    /// Set when looking for changes while idle failed: said once, not tried again until a
    /// command looks (and reports the failure as its own).
    private var idleCheckFailed = false
    /// Whether the journal is shared through a server (SPEC §12): looked up once opened.
    private var hasRemote = false
    /// Whether this session said it is offline since it last reached the server.
    private var saidOffline = false
    /// How long the prompt may wait, signed in, before the shell signs out by itself (SPEC
    /// §1, `--lock-after`), in milliseconds of the service's clock; nil never.
    private let lockAfter: Int64?
    /// When a key was last pressed (a line or an answer read) or a command ended; read from
    /// the service's clock only when ``lockAfter`` is set.
    private var lastActivity: Timestamp?
    /// The argument being asked for at a prompt: completion there answers as the command
    /// line does after these words.
    private var promptWords: [String]?

    /// - Parameter lockAfter: milliseconds the prompt may wait, signed in, before the shell
    ///   signs out by itself (on a terminal); nil never.
    public init(
        service: GiftKeeperService, editor: any LineEditor, passwords: any PasswordSource,
        isInteractive: Bool, console: Console = Console(), lockAfter: Int64? = nil
    ) {
        self.service = service
        self.editor = editor
        self.passwords = passwords
        self.isInteractive = isInteractive
        self.console = console
        self.lockAfter = lockAfter
    }

    /// Runs until `quit`, Ctrl-D or the end of the script; signs out and releases the journal.
    public func run() -> Int32 {
        let console = self.console
        let progress = self.progress
        defer { progress.finish() }
        editor.setCompletion { [weak self] request in self?.completions(for: request) ?? [] }
        // In a script, standard output carries only results: notifications go to standard error.
        let interactive = isInteractive
        if let failure = open(notifying: { interactive ? console.print($0) : console.note($0) }) { return failure }
        if isInteractive {
            greet()
            progress.clear()
        }
        // A script's editor waits for no person and never looks. Every 25 ms: a change made
        // elsewhere shows within 50 ms (SPEC §12: live); a look costs one fstat, and for a
        // server a counter read (a query only when notified, or once a second).
        editor.setIdleCheck(everyMilliseconds: 25) { [weak self] keyPressed in
            self?.whileIdle(keyPressed: keyPressed) ?? IdleReport()
        }
        noteActivity()
        while isRunning {
            let input = editor.readLine(prompt: prompt)
            noteActivity()
            defer { noteActivity() }
            switch input {
            case .line(let line):
                let trimmed = line.trimmedWhitespace()
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

    /// Runs one command as a one-shot (SPEC §11): opens the journal, signs in with a
    /// password from the password source, runs `words` (the command's name first), signs
    /// out; all three are recorded as in the shell. Standard output carries only what the
    /// command prints; notifications go to standard error. Returns the exit code: that of
    /// the first failure, else 0.
    public func runOneShot(_ words: [String]) -> Int32 {
        let console = self.console
        // A one-shot is a script: nobody watches it accept an older journal.
        service.refusesRollback = true
        service.acceptsRollbackOnChange = false
        defer { progress.finish() }
        // On a terminal, what the command asks for completes as in the shell.
        editor.setCompletion { [weak self] request in self?.completions(for: request) ?? [] }
        guard preflight(words) else { return exitCode }
        if let failure = open(notifying: { console.note($0) }) { return failure }
        if service.phase == .noAccount {
            let error = ServiceError(.noJournal(path: service.journalPath))
            fail(error.sentence, code: error.exitCode)
        } else {
            do {
                try LoginCommand.run(BoundLine(values: [:], declarations: []), in: self)
            } catch {
                report(error)
            }
            if service.phase == .signedIn {
                // Sign-in syncs: what other devices changed is in the list the command reads.
                syncAfterChange()
                sayChangesElsewhere()
                execute(words: words)
                reportLostOutput()
            }
        }
        finish()
        reportLostOutput()
        return exitCode
    }

    /// What a one-shot's words can be refused for before the journal is opened, so that
    /// nothing (not even a sign-in) is recorded: words its command does not take, `--json`
    /// with `--csv`.
    private func preflight(_ words: [String]) -> Bool {
        guard let name = words.first, let type = ShellCommands.named(name) else {
            fail("Unknown command '\(words.first ?? "")'. Type 'giftkeeper --help' to see the commands.", code: 2)
            return false
        }
        let line: BoundLine
        do {
            line = try parse(type, Array(words.dropFirst()))
        } catch {
            fail(sentence(type.message(for: error)) + " Type 'giftkeeper \(name) --help' for its usage.", code: 2)
            return false
        }
        do {
            _ = try StructuredOutput.format(line)
        } catch {
            report(error)
            return false
        }
        return true
    }

    /// Shows the service's progress and hands its notifications to `show`, then opens the
    /// journal (warning of a trimmed tail). Returns the exit code when it cannot be opened.
    private func open(notifying show: @escaping @Sendable (String) -> Void) -> Int32? {
        let progress = self.progress
        service.onProgress = { done, total in progress.update(completed: done, total: total) }
        service.onNotification = { notification in
            progress.clear()
            show(notification.sentence)
        }
        service.onWaiting = WaitCountdown(console: console, progress: progress).update
        service.onChangesElsewhere = { [weak self] entries in
            self?.changesElsewhere += entries.compactMap(HistoryWords.elsewhere)
        }
        do {
            try service.open()
        } catch {
            progress.clear()
            console.error(error.sentence)
            return error.exitCode
        }
        progress.clear()
        warnOfTrimmedTail()
        hasRemote = service.remoteURL != nil
        return nil
    }

    private func warnOfTrimmedTail() {
        guard let tail = service.trimmedTail else { return }
        let saved = tail.savedAs.map { " They were saved to \(CommandLineTokenizer.quoted($0)) first." } ?? ""
        console.warning(
            "The journal's last write was incomplete (a crash or power loss): \(tail.length) bytes were trimmed. The events before them are intact."
                + saved)
    }

    private var prompt: String {
        switch service.phase {
        case .noAccount: return "giftkeeper (new)> "
        case .locked: return "giftkeeper (signed out)> "
        case .signedIn: return "giftkeeper> "
        }
    }

    private func greet() {
        switch service.phase {
        case .noAccount:
            console.print("Welcome to GiftKeeper. There is no journal at \(service.journalPath) yet.")
            console.print("Type 'setup <your name>' to create one, or 'help' to see the commands.")
        case .locked:
            console.print("GiftKeeper: \(service.journalPath) (signed out).")
            while service.phase == .locked {
                guard CommandInterruption.whileRunning({ login() }) else { break }
            }
            // Sign-in syncs: other devices' changes are told before the first prompt.
            if service.phase == .signedIn { syncAfterChange() }
            sayChangesElsewhere()
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
                // The sign-out goes to the server too, when it can; it waits here otherwise.
                if hasRemote, !saidOffline { _ = try? service.sync() }
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
        return execute(words: words)
    }

    /// Runs the command `words` name (its name first, then its arguments).
    @discardableResult
    private func execute(words: [String]) -> Bool {
        guard let name = words.first else { return false }
        guard let type = ShellCommands.named(name) else {
            fail(unknownCommand(name), code: 2)
            return false
        }
        // `add --help` is `help add` (argument-parser would show the whole tree instead); it
        // asks for nothing.
        if words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            console.print(ShellCommandTree.helpMessage(for: type))
            return true
        }
        // In a script, the lines a command would ask for follow it. They are read even when
        // the command fails before asking, so that an answer (a password above all) is never
        // run as a command, nor repeated in an error.
        answersRead = ScriptAnswers()
        promptCancelled = false
        var expected = ScriptAnswers()
        defer { skipUnreadAnswers(expected) }
        let line: BoundLine
        do {
            line = try parse(type, Array(words.dropFirst()))
        } catch {
            // What it would have asked for, judged from the words that look like arguments.
            let positional = ShellCommands.positionalWords(words, of: type).count
            expected = type.answers(unparsedPositional: positional)
            if type.exitCode(for: error) == .success {
                console.print(type.fullMessage(for: error))
            } else if let usage = type.secretSafeUsage(positional: positional) {
                fail(usage, code: 2)
                return false
            } else {
                fail(sentence(type.message(for: error)) + " Type 'help \(name)' for its usage.", code: 2)
            }
            return true
        }
        expected = type.answers(for: line)
        do {
            // What other processes changed is taken in (and said) before the command sees the list.
            try service.refresh()
            idleCheckFailed = false
            sayChangesElsewhere()
            let head = service.headSequence
            try type.run(line, in: self)
            // A change (a sign-in included) goes to the server at once, when there is one.
            if service.headSequence != head, type != SyncCommand.self { syncAfterChange() }
        } catch {
            report(error)
        }
        sayChangesElsewhere()
        return type.keepsLineInHistory
    }

    /// Syncs with the journal's server, if it has one: other devices' changes are told
    /// (with the changes made elsewhere) and so is each resolution of this device's; being
    /// offline is said once, the changes waiting here for the next sync.
    private func syncAfterChange() {
        guard hasRemote else { return }
        do {
            let report = try service.sync()
            saidOffline = false
            if report.createdOnServer { changesElsewhere.append(SyncWords.shared(report)) }
            changesElsewhere += report.resolutions.map(SyncWords.resolution)
        } catch let error as ServiceError {
            if let line = offlineLine(error) {
                if !line.isEmpty { changesElsewhere.append(line) }
            } else if case .mergeNeedsSignIn = error.code {
                return  // merged at the next sign-in
            } else {
                self.report(error)
            }
        } catch {
            self.report(error)
        }
    }

    /// For an unreachable server: the line that says so, or "" when it was said already
    /// (once until the server is reached again). Nil for any other error.
    private func offlineLine(_ error: any Error) -> String? {
        guard let error = error as? ServiceError, case .journal(let failure) = error.code else { return nil }
        guard case .unreachable(let reason) = failure.code else { return nil }
        defer { saidOffline = true }
        guard !saidOffline else { return "" }
        return SyncWords.offline(unsent: service.unsentFrames, server: service.remoteURL ?? "the server", reason: reason)
    }

    /// Says the changes made elsewhere that were taken in: on a terminal with the results,
    /// in a script or one-shot on standard error, with the notifications.
    private func sayChangesElsewhere() {
        guard !changesElsewhere.isEmpty else { return }
        progress.clear()
        for sentence in changesElsewhere {
            if isInteractive { console.print(sentence) } else { console.note(sentence) }
        }
        changesElsewhere = []
    }

    /// While the prompt waits: signs out after the idle time, else looks for changes made
    /// elsewhere.
    private func whileIdle(keyPressed: Bool) -> IdleReport {
        if keyPressed { noteActivity() }
        if let lines = signOutIfIdle() { return IdleReport(lines: lines, endsLine: true) }
        return IdleReport(lines: changesWhileIdle())
    }

    /// Remembers that the person did something now (for the idle sign-out).
    private func noteActivity() {
        if lockAfter != nil { lastActivity = service.now }
    }

    /// Signs out, recorded and announced with "(idle)", when the prompt waited signed in
    /// for ``lockAfter``; returns the lines to show in the prompt's place, or nil.
    private func signOutIfIdle() -> [String]? {
        guard let lockAfter, service.phase == .signedIn, let lastActivity,
            service.now.millisecondsSinceEpoch - lastActivity.millisecondsSinceEpoch >= lockAfter
        else { return nil }
        let notify = service.onNotification
        var lines: [String] = []
        service.onNotification = { notification in
            if case .signedOut = notification {
                lines.append(notification.sentence + " (idle)")
            } else {
                lines.append(notification.sentence)
            }
        }
        defer { service.onNotification = notify }
        do {
            try service.signOut()
            // The locked prompt must not give back what was typed signed in.
            editor.clearHistory()
            if hasRemote, !saidOffline { _ = try? service.sync() }
        } catch {
            lines.append(error.sentence)
        }
        return lines.map { TerminalText.sanitized($0) }
    }

    /// While the prompt waits: takes in what other processes changed and returns the lines
    /// to show above the prompt (the changes, a notification such as a sign-out forced by a
    /// password changed elsewhere, or why looking failed, said once).
    private func changesWhileIdle() -> [String] {
        guard !idleCheckFailed, service.phase == .signedIn else { return [] }
        let notify = service.onNotification
        var lines: [String] = []
        service.onNotification = { lines.append($0.sentence) }
        defer { service.onNotification = notify }
        do {
            try service.refresh()
            if hasRemote, let report = try service.syncIfNeeded() {
                saidOffline = false
                changesElsewhere += report.resolutions.map(SyncWords.resolution)
            }
        } catch {
            if let line = offlineLine(error) {
                if !line.isEmpty { lines.append(line) }
            } else {
                idleCheckFailed = true
                lines.append(error.sentence)
            }
        }
        defer { changesElsewhere = [] }
        return (changesElsewhere + lines).map { TerminalText.sanitized($0) }
    }

    /// Reports what a command threw: one line, and its exit code; a cancellation is a note.
    private func report(_ error: any Error) {
        switch error {
        case let error as ServiceError:
            if case .cancelled = error.code {
                noteCancelled("Cancelled.")
            } else {
                fail(error.sentence, code: error.exitCode)
            }
        case let error as DomainError:
            fail(error.sentence, code: 2)
        case let error as PasswordInputError where error.code == .interrupted:
            noteCancelled("Cancelled.")
        case let error as PasswordInputError:
            fail(error.description, code: 2)
        case let error as REPLError:
            fail(error.description, code: error.exitCode)
        default:
            fail("\(error)", code: 5)
        }
    }

    /// Binds `arguments` to `type`'s declarations: a plain line directly (``LineBinding``),
    /// anything else through argument-parser, which words its errors.
    private func parse<Command: ShellCommand>(_ type: Command.Type, _ arguments: [String]) throws -> BoundLine {
        if let bound = LineBinding.bind(type, arguments) { return bound }
        let parsed = try Command.parse(arguments)
        guard let bound = LineBinding.bound(from: parsed) else {
            throw REPLError(.unreadableDeclarations(Command._commandName))
        }
        return bound
    }

    /// Reports an error; in a script, the first failure's code becomes the exit code (the
    /// cause, e.g. a journal that failed verification, rather than what followed from it).
    func fail(_ message: String, code: Int32) {
        progress.clear()
        console.error(message)
        if exitCode == 0 { exitCode = code }
    }

    func stop() {
        isRunning = false
    }

    func clearHistory() {
        editor.clearHistory()
    }

    /// A cancelled command or prompt is no error: a note, on a line of its own.
    private func noteCancelled(_ text: String) {
        progress.clear()
        console.note(text)
    }

    /// Output that could not be written (standard output on a full disk) is an error, once.
    /// A closed output (`| head -1`: EPIPE) ends the session: nobody reads what the next
    /// commands would say, so none is run; the session signs out as it ends.
    private func reportLostOutput() {
        guard let failure = console.takeOutputFailure() else { return }
        fail(ServiceError.standardOutputFailure(errno: failure), code: 5)
        if failure == EPIPE { isRunning = false }
    }

    // MARK: Asking

    func completing(_ line: BoundLine) throws -> BoundLine {
        guard let command = line.command else { return line }
        var line = line
        var asked = false
        for prompt in command.prompts where !prompt.isOptional && prompt.isAsked(by: line) {
            line.values[prompt.key] = try answer(prompt, on: line)
            asked = true
        }
        // The wizard (`add` alone): the optional fields, on a terminal only.
        guard asked, isInteractive else { return line }
        for prompt in command.prompts where prompt.isOptional && prompt.isAsked(by: line) {
            line.values[prompt.key] = try answer(prompt, on: line)
        }
        return line
    }

    /// Asks for `prompt`'s argument until an answer passes its check (a script's first
    /// answer is taken as it is). Nil for an optional one skipped with Enter.
    private func answer(_ prompt: ArgumentPrompt, on line: BoundLine) throws -> LineBinding.Given? {
        while true {
            let text = try ask(prompt.label, style: prompt.answer == .words ? .words : .wholeLine, after: line.words(before: prompt.key))
            if prompt.isOptional, text.trimmedWhitespace().isEmpty { return nil }
            if isInteractive, let check = prompt.check {
                do {
                    try check(text)
                } catch {
                    report(error)
                    continue
                }
            }
            switch prompt.answer {
            case .whole: return .text(text)
            case .words: return .texts(try CommandLineTokenizer.split(text))
            }
        }
    }

    /// Asks for a missing argument: on a terminal a prompt that Tab completes as the command
    /// line does after `words`; the next line in a script. Answers never enter the history.
    private func ask(_ label: String, style: CompletionStyle, after words: [String]) throws -> String {
        promptWords = words
        defer { promptWords = nil }
        let input = editor.readLine(prompt: isInteractive ? "\(label): " : "", completing: style)
        noteActivity()
        switch input {
        case .line(let answer):
            answersRead.arguments += 1
            return answer
        case .interrupted:
            promptCancelled = true
            throw ServiceError(.cancelled)
        case .endOfInput:
            throw REPLError(.noAnswer(label))
        case .invalid(let problem):
            answersRead.arguments += 1
            throw REPLError(.invalidAnswer(label, problem.reason))
        }
    }

    func readPassword(_ prompt: String) throws -> SecureBytes {
        answersRead.passwords += 1
        let raw = try passwords.readPassword(prompt: prompt)
        return try PasswordReader.normalized(raw)
    }

    /// In a script, reads and drops the answer lines `expected` that the command did not read
    /// (it failed first). Passwords go through guarded memory and are wiped; when another
    /// source gives them (not the script's own lines), no script line is theirs.
    private func skipUnreadAnswers(_ expected: ScriptAnswers) {
        guard !isInteractive, !promptCancelled else { return }
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
            let suggestion = ShellCommands.closestName(to: name)
            return "Unknown command '\(name)'."
                + (suggestion.map { " Did you mean '\($0)'?" } ?? "") + " Type 'help' to see the commands."
        }
        let place = (editor as? ScriptLineEditor).map { "Line \($0.linesRead)" } ?? "A line"
        return "\(place) is not a command (it is not repeated here: it may be a misplaced answer, such as a password). "
            + "Type 'help' to see the commands."
    }

    /// A password check on a terminal: keys typed meanwhile are hidden and dropped.
    func checking(_ body: () throws -> Void) throws {
        if isInteractive {
            try TypeAhead.discarded(body)
        } else {
            try body()
        }
    }

    /// The interactive login at start-up: true to try again after a wrong password.
    private func login() -> Bool {
        do {
            try LoginCommand.run(BoundLine(values: [:], declarations: []), in: self)
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
        } catch let error as REPLError {
            fail(error.description, code: error.exitCode)
            return false
        } catch {
            fail("\(error)", code: 5)
            return false
        }
    }

    // MARK: Completion

    func completions(for request: CompletionRequest) -> [String] {
        // At a prompt for an argument: what the command line completes at that argument.
        if let words = promptWords, let name = words.first {
            let asked = CompletionRequest(line: request.line, precedingWords: words + request.precedingWords, word: request.word)
            return ShellCommands.named(name)?.completions(for: asked, in: self) ?? []
        }
        guard let name = request.precedingWords.first else { return ShellCommands.names.sorted() }
        return ShellCommands.named(name)?.completions(for: request, in: self) ?? []
    }
}

/// `text` ending with a full stop (argument-parser's messages have none), on one line.
private func sentence(_ text: String) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? text
    guard let last = line.last, !".!?".contains(last) else { return line }
    return line + "."
}

extension String {
    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
