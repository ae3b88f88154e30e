import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import Glibc
import OrderedCollections

/// Asking for what a line left out, passwords, and completing what is typed.
extension REPLSession {
    func completing<Command: ShellCommand>(_ command: Command) throws -> Command {
        var command = command
        var asked = false
        for prompt in Command.prompts where !prompt.isOptional && prompt.isAsked(by: command) {
            try answer(prompt, into: &command)
            asked = true
        }
        // The wizard (`add` alone): the optional fields, on a terminal only.
        guard asked, isInteractive else { return command }
        for prompt in Command.prompts where prompt.isOptional && prompt.isAsked(by: command) {
            try answer(prompt, into: &command)
        }
        return command
    }

    /// Asks for `prompt`'s argument until an answer passes its check (a script's first
    /// answer is taken as it is), and sets it; an optional one skipped with Enter stays unset.
    func answer<Command: ShellCommand>(_ prompt: ArgumentPrompt<Command>, into command: inout Command) throws {
        while true {
            let text = try ask(
                prompt.label, style: prompt.splitsIntoWords ? .words : .wholeLine, after: prompt.words(before: command))
            if prompt.isOptional, text.trimmedWhitespace().isEmpty { return }
            if isInteractive, let check = prompt.check {
                do {
                    try check(text, service.state)
                } catch {
                    report(error)
                    continue
                }
            }
            try prompt.set(text, in: &command)
            return
        }
    }

    /// Asks for a missing argument: on a terminal a prompt that Tab completes as the command
    /// line does after `words`; the next line in a script. Answers never enter the history.
    func ask(_ label: String, style: CompletionStyle, after words: [String]) throws -> String {
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

    func confirm(_ question: String, defaultAnswer: Bool) throws -> Bool {
        while true {
            // After a word no command has: Tab offers nothing.
            let answer = try ask(question + (defaultAnswer ? " [Y/n]" : " [y/N]"), style: .wholeLine, after: [""])
            switch answer.trimmedWhitespace().lowercased() {
            case "": return defaultAnswer
            case "y", "yes": return true
            case "n", "no": return false
            default: continue
            }
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
    func skipUnreadAnswers(_ expected: ScriptAnswers) {
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
    func unknownCommand(_ name: String) -> String {
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
        // Keys typed while a password typed at the prompt is checked are dropped. From a
        // password file nothing was asked, and the terminal may be another program's by
        // now (`giftkeeper export --password-file F | less`): its settings are left alone.
        if isInteractive, !(passwords is PasswordFile) {
            try TypeAhead.discarded(body)
        } else {
            try body()
        }
    }

    /// The interactive login at start-up: true to try again after a wrong password.
    func login() -> Bool {
        do {
            try LoginCommand().run(in: self)
            return false
        } catch let error as PasswordInputError where error.code == .endOfInput {
            // Ctrl-D at the start-up prompt: stay locked at the prompt.
            return false
        } catch {
            // Ctrl-C stays locked at the prompt too; a wrong password asks again.
            report(error, cancelled: "Cancelled. Type 'login' to unlock, or 'quit'.")
            if let error = error as? ServiceError, case .wrongPassword = error.code { return true }
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
        guard let type = ShellCommands.named(name) else { return [] }
        let own = type.completions(for: request, in: self)
        // A word begun with `-` is an option: the command's own, besides what it offers there.
        guard request.word.hasPrefix("-") else { return own }
        return own + type.optionNames.filter { !own.contains($0) }
    }
}
