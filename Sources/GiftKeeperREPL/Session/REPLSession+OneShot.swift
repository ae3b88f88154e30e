import ArgumentParser
import GiftKeeperService
import Glibc

/// One-shots (SPEC §11): the shell's commands, `export`, `import` and `sync` from the
/// command line, each opening, signing in, running and signing out through one runner.
extension REPLSession {
    /// Runs one command as a one-shot (SPEC §11): opens the journal, signs in with a
    /// password from the password source, runs `words` (the command's name first), signs
    /// out; all three are recorded as in the shell (``runOneShotTask(_:)``). Standard
    /// output carries only what the command prints. Returns the exit code: that of the
    /// first failure, else 0.
    public func runOneShot(_ words: [String]) -> Int32 {
        // On a terminal, what the command asks for completes as in the shell.
        editor.setCompletion { [weak self] request in self?.completions(for: request) ?? [] }
        guard preflight(words) else { return exitCode }
        return runOneShotTask { session in
            try session.signIn()
            session.execute(words: words)
            session.reportLostOutput()
        }
    }

    /// The one runner of every one-shot, the shell's commands and `export`, `import` and
    /// `sync` alike: opens the journal for a script (a rollback found at sign-in stops the
    /// task and is left standing; notifications go to standard error), runs `task`, which
    /// signs in with ``signIn(catchingUp:)`` when it needs the keys, reports what it throws
    /// (the one presenter, ``PresentedError``; a cancellation exits 130), then signs out
    /// and closes. Returns the exit code: that of the first failure, else 0. Without a
    /// journal, the task runs only when it is `creatingJournal` (``setUp(name:)``).
    public func runOneShotTask(creatingJournal: Bool = false, _ task: (REPLSession) throws -> Void) -> Int32 {
        isOneShot = true
        service.refusesRollback = true
        service.acceptsRollbackOnChange = false
        defer { progress.finish() }
        if let failure = open(notifying: { [console] in console.note($0) }, showing: Self.shownBesideAPager) { return failure }
        do {
            // Every task needs an account: `setup` is the shell's.
            guard service.phase != .noAccount || creatingJournal else {
                throw ServiceError(.noJournal(path: service.journalPath))
            }
            try task(self)
        } catch {
            let presented = PresentedError(error)
            report(error)
            if presented.isCancellation, exitCode == 0 { exitCode = presented.exitCode }
        }
        finish()
        reportLostOutput()
        return exitCode
    }

    /// Whether `notification` is shown on standard error. With standard output piped while
    /// standard error is the terminal, a pager may be showing the output there (`giftkeeper
    /// export | less`), and the sign-out comes after it, over the pager's screen: the routine
    /// sign-in and sign-out are then not shown; warnings are.
    @Sendable static func shownBesideAPager(_ notification: LoginNotification) -> Bool {
        !notification.isRoutine || isatty(STDERR_FILENO) == 0 || isatty(STDOUT_FILENO) == 1
    }

    /// Signs in for a one-shot with the password source's password (recorded, with its
    /// notifications) and, with `catchingUp`, takes in what other devices changed, so the
    /// task reads the list they left (SPEC §12).
    /// Creates the journal and its account for a one-shot, as `setup` does (the password
    /// twice, from the password source), named `name` or asked for.
    public func setUp(name: String?) throws {
        var setup = try SetupCommand.parse(name.map { ["--", $0] } ?? [])
        try setup.run(in: self)
    }

    public func signIn(catchingUp: Bool = true) throws {
        try LoginCommand().run(in: self)
        guard catchingUp else { return }
        syncAfterChange()
        sayChangesElsewhere()
    }

    /// What a one-shot's words can be refused for before the journal is opened, so that
    /// nothing (not even a sign-in) is recorded: words its command does not take, `--json`
    /// with `--csv`.
    func preflight(_ words: [String]) -> Bool {
        guard let name = words.first, let type = ShellCommands.named(name) else {
            fail("Unknown command '\(words.first ?? "")'. Type 'giftkeeper --help' to see the commands.", code: 2)
            return false
        }
        let command: any ShellCommand
        do {
            command = try type.parse(Array(words.dropFirst()))
        } catch {
            fail(sentence(type.message(for: error)) + " Type 'giftkeeper \(name) --help' for its usage.", code: 2)
            return false
        }
        do {
            if let formatted = command as? any StructuredOutputOptions { _ = try StructuredOutput.format(formatted) }
        } catch {
            report(error)
            return false
        }
        return true
    }
}
