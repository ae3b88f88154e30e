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
    public let service: any ShellService
    let editor: any LineEditor
    let passwords: any PasswordSource
    let isInteractive: Bool
    public let console: Console
    /// Opening and unlocking show it on a terminal; anything printed clears it first.
    let progress = Progress(label: "Reading the journal")
    var exitCode: Int32 = 0
    /// Answer lines (prompted arguments, passwords) the running command has read so far.
    var answersRead = ScriptAnswers()
    /// The running command's prompt was cancelled (Ctrl-C, a sign-out while idle): someone
    /// is at the keyboard, and the lines after it are commands, not answers to skip.
    var promptCancelled = false
    var isRunning = true
    /// Whether this session runs one task as a one-shot (``runOneShotTask(_:)``), not the shell.
    var isOneShot = false
    /// Changes made elsewhere, taken in and not yet said (SPEC §12), one sentence each.
    var changesElsewhere: [String] = []
    /// Set when looking for changes while idle failed: said once, not tried again until a
    /// command looks (and reports the failure as its own).
    var idleCheckFailed = false
    /// Whether the journal is shared through a server (SPEC §12): looked up once opened.
    var hasRemote = false
    /// Whether this session said it is offline (or what waits here was not sent) since it
    /// last reached the server.
    var saidSyncFailure = false
    /// The last error a sync after a change reported, said once while it stands.
    var lastSyncError: String?
    /// How long the prompt may wait, signed in, before the shell signs out by itself (SPEC
    /// §1, `--lock-after`), in milliseconds of the service's clock; nil never.
    let lockAfter: Int64?
    /// When a key was last pressed (a line or an answer read) or a command ended; read from
    /// the service's clock only when ``lockAfter`` is set.
    var lastActivity: Timestamp?
    /// The argument being asked for at a prompt: completion there answers as the command
    /// line does after these words.
    var promptWords: [String]?
    /// Starts the process afresh, signed out (the executable's `execv` of itself); returns
    /// only when it cannot. Called on a terminal once a session signed in and then out
    /// (`signout`, the idle lock), so that no decrypted title, note or name stays in this
    /// process's memory (issue 30). Nil: the session goes on in this process.
    public var freshProcess: (() -> Void)?
    /// This process is such a fresh start: the prompt comes signed out, asking for nothing.
    public var startsSignedOut = false
    /// Whether a session signed in in this process.
    var wasSignedIn = false

    /// - Parameter lockAfter: milliseconds the prompt may wait, signed in, before the shell
    ///   signs out by itself (on a terminal); nil never.
    public init(
        service: any ShellService, editor: any LineEditor, passwords: any PasswordSource,
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
        // In a script, standard output carries only results: notifications go to standard error
        // (the routine ones not beside a pager: `giftkeeper < script | less`).
        let interactive = isInteractive
        let shows: @Sendable (LoginNotification) -> Bool = { interactive || Self.shownBesideAPager($0) }
        if let failure = open(notifying: { interactive ? console.print($0) : console.note($0) }, showing: shows) { return failure }
        if isInteractive {
            greet()
            progress.clear()
        }
        // A script's editor waits for no person and never looks. Every 25 ms: a change made
        // elsewhere shows within 50 ms (SPEC §12: live), at once when a sync service's live
        // socket rings ``ChangeBell``; a look costs one fstat, and for a server a counter read
        // (a query only when notified, or once a second).
        editor.setIdleCheck(everyMilliseconds: 25) { [weak self] keyPressed in
            self?.whileIdle(keyPressed: keyPressed) ?? IdleReport()
        }
        noteActivity()
        while isRunning {
            startAfreshIfSignedOut()
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

    /// Shows the service's progress and hands its notifications to `show` (those `shows`
    /// keeps), then opens the journal (warning of a trimmed tail). Returns the exit code
    /// when it cannot be opened.
    func open(
        notifying show: @escaping @Sendable (String) -> Void,
        showing shows: @escaping @Sendable (LoginNotification) -> Bool = { _ in true }
    ) -> Int32? {
        let progress = self.progress
        service.onProgress = { done, total in progress.update(completed: done, total: total) }
        service.onNotification = { notification in
            guard shows(notification) else { return }
            progress.clear()
            show(notification.sentence)
        }
        service.onWaiting = WaitCountdown(console: console, progress: progress).update
        service.onChangesElsewhere = { [weak self] entries in
            self?.changesElsewhere += entries.compactMap(HistoryWords.elsewhere)
        }
        do {
            try service.open(access: .readWrite)
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

    func warnOfTrimmedTail() {
        guard let tail = service.trimmedTail else { return }
        let saved = tail.savedAs.map { " They were saved to \(CommandLineTokenizer.quoted($0)) first." } ?? ""
        console.warning(
            "The journal's last write was incomplete (a crash or power loss): \(tail.length) bytes were trimmed. The events before them are intact."
                + saved)
    }

    var prompt: String {
        switch service.phase {
        case .noAccount: return "giftkeeper (new)> "
        case .locked: return "giftkeeper (signed out)> "
        case .signedIn: return "giftkeeper> "
        }
    }

    /// After a sign-out on a terminal: releases the journal and starts the process afresh
    /// (``freshProcess``); if that fails the session goes on here.
    func startAfreshIfSignedOut() {
        if service.phase == .signedIn { wasSignedIn = true }
        guard wasSignedIn, isInteractive, service.phase == .locked, let freshProcess else { return }
        editor.clearHistory()
        try? service.close()
        freshProcess()
        // Still here: the exec failed. Go on in this process, the journal opened again.
        wasSignedIn = false
        let console = self.console
        _ = open(notifying: { console.print($0) })
    }

    func greet() {
        if startsSignedOut { return }
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
    func finish() {
        editor.clearHistory()
        do {
            if service.phase == .signedIn {
                try service.signOut()
                // The sign-out goes to the server too, when it can; it waits here otherwise.
                if hasRemote, !saidSyncFailure { _ = try? service.sync(restoringServer: false) }
            }
            try service.close()
        } catch {
            report(error)
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
    func execute(words: [String]) -> Bool {
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
        var command: any ShellCommand
        do {
            command = try type.parse(Array(words.dropFirst()))
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
        expected = command.answers
        do {
            // What other processes changed is taken in (and said) before the command sees the list.
            try service.refresh()
            idleCheckFailed = false
            sayChangesElsewhere()
            let head = service.headSequence
            do {
                try command.run(in: self)
            } catch let error as ServiceError where isInteractive && service.phase == .locked && error.isNotSignedIn {
                // Signed out (idle, or by hand): on a terminal, sign in and run the line.
                console.print(Messages.signInToRun(name))
                try LoginCommand().run(in: self)
                command = try type.parse(Array(words.dropFirst()))
                try command.run(in: self)
            }
            // A change (a sign-in included) goes to the server at once, when there is one.
            if service.headSequence != head, type != SyncCommand.self { syncAfterChange() }
        } catch {
            report(error)
        }
        sayChangesElsewhere()
        return type.keepsLineInHistory
    }

    /// Reports what a command threw: one line, and its exit code; a cancellation is a note.
    func report(_ error: any Error, cancelled: String = "Cancelled.") {
        let presented = PresentedError(error)
        if presented.isCancellation {
            noteCancelled(cancelled)
        } else {
            fail(presented.sentence, code: presented.exitCode)
        }
    }

    /// Reports an error; in a script, the first failure's code becomes the exit code (the
    /// cause, e.g. a journal that failed verification, rather than what followed from it).
    func fail(_ message: String, code: Int32) {
        progress.clear()
        console.error(message)
        if exitCode == 0 { exitCode = code }
    }

    func exitStatus(_ code: Int32) {
        if exitCode == 0 { exitCode = code }
    }

    func stop() {
        isRunning = false
    }

    func clearHistory() {
        editor.clearHistory()
    }

    /// A cancelled command or prompt is no error: a note, on a line of its own.
    func noteCancelled(_ text: String) {
        progress.clear()
        console.note(text)
    }

    /// Output that could not be written (standard output on a full disk) is an error, once.
    /// A closed output (`| head -1`: EPIPE) ends the session: nobody reads what the next
    /// commands would say, so none is run; the session signs out as it ends.
    func reportLostOutput() {
        guard let failure = console.takeOutputFailure() else { return }
        fail(ServiceError.standardOutputFailure(errno: failure), code: 5)
        if failure == EPIPE { isRunning = false }
    }

}

/// `text` ending with a full stop (argument-parser's messages have none), on one line.
func sentence(_ text: String) -> String {
    let line = text.split(separator: "\n").first.map(String.init) ?? text
    guard let last = line.last, !".!?".contains(last) else { return line }
    return line + "."
}

extension ServiceError {
    /// A command that needs the list was given while signed out.
    var isNotSignedIn: Bool {
        if case .notSignedIn = code { return true }
        return false
    }
}
