/// Something that reads the REPL's command lines: GNU readline on a terminal
/// (``ReadlineLineEditor``), raw lines from a file descriptor otherwise (``ScriptLineEditor``).
///
/// Editors are used from one thread at a time (the REPL's loop).
public protocol LineEditor: AnyObject {
    /// Reads one line, without its line terminator. Never throws: bad input is data.
    func readLine(prompt: String) -> LineInput

    /// Reads one line as ``readLine(prompt:)`` does, Tab completing it in `style`: a command
    /// line's words, or an answer to a prompt typed whole (a title with spaces, unquoted).
    func readLine(prompt: String, completing style: CompletionStyle) -> LineInput

    /// Adds `line` to the in-memory history (never written to disk). The REPL decides
    /// what goes in: password lines and other secrets are never passed here.
    func addToHistory(_ line: String)

    /// Forgets the in-memory history, wiping it (at sign-out: the signed-out prompt must not
    /// show what was typed while signed in).
    func clearHistory()

    /// Sets the tab-completion provider. The provider may return every candidate for
    /// the word; the editor keeps those that start with ``CompletionRequest/word``.
    func setCompletion(_ provider: @escaping (CompletionRequest) -> [String])

    /// Sets what to look at while waiting for a line: `check` runs about every
    /// `milliseconds` while nothing is typed, told whether a key was pressed since it last
    /// ran, and the lines it reports are shown above the prompt, the half-typed line kept
    /// (SPEC §12: changes made elsewhere, live), or, when it ends the line (a sign-out after
    /// an idle time), instead of the prompt. Editors that do not wait for a person ignore it.
    func setIdleCheck(everyMilliseconds milliseconds: Int, _ check: @escaping (_ keyPressed: Bool) -> IdleReport)
}

extension LineEditor {
    public func readLine(prompt: String, completing style: CompletionStyle) -> LineInput {
        readLine(prompt: prompt)
    }

    public func setIdleCheck(everyMilliseconds milliseconds: Int, _ check: @escaping (_ keyPressed: Bool) -> IdleReport) {}
}

/// How Tab completes the line being read.
public enum CompletionStyle: Equatable, Sendable {
    /// A command line: shell words, candidates quoted as the tokenizer reads them back.
    case words
    /// One answer typed whole (`Title: Blue scarf`): the line so far is the word, and a
    /// candidate goes in as it is, unquoted, with no space after it.
    case wholeLine
}

/// What one look while the prompt waits found.
public struct IdleReport: Equatable, Sendable {
    /// Lines to show above the prompt.
    public var lines: [String]
    /// Whether the line being typed is over: it is dropped, `lines` take the prompt's place
    /// and the read returns ``LineInput/interrupted`` (the shell signed out while idle).
    public var endsLine: Bool

    public init(lines: [String] = [], endsLine: Bool = false) {
        self.lines = lines
        self.endsLine = endsLine
    }
}

/// What one ``LineEditor/readLine(prompt:)`` produced.
public enum LineInput: Equatable, Sendable {
    /// A complete line, without `\n` (and without a trailing `\r`).
    case line(String)
    /// Ctrl-D on an empty line, or the end of the script.
    case endOfInput
    /// Ctrl-C cancelled the line; the session goes on with a fresh prompt.
    case interrupted
    /// The line could not be used; say so in one line and read the next one.
    case invalid(LineInputProblem)
}

/// Why a line was unusable. Data only; ``description`` words it.
public enum LineInputProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line is not valid UTF-8.
    case invalidUTF8
    /// The line is longer than ``LineLimits/maximumLineBytes``; all of it was skipped.
    case lineTooLong(limit: Int)
    /// `read` failed with `errno`; the editor reports end of input after this.
    case readFailed(errno: Int32)

    /// Why, as a clause: "it is not valid UTF-8".
    public var reason: String {
        switch self {
        case .invalidUTF8:
            return "it is not valid UTF-8"
        case .lineTooLong(let limit):
            return "it is longer than \(limit / 1024) KiB"
        case .readFailed(let code):
            return "it could not be read (\(SystemErrorText.describe(code)))"
        }
    }

    public var description: String {
        switch self {
        case .invalidUTF8, .lineTooLong:
            return "That line was ignored: \(reason)."
        case .readFailed(let code):
            return "Could not read input (\(SystemErrorText.describe(code)))."
        }
    }
}

/// Bounds shared by every line editor.
public enum LineLimits {
    /// The longest accepted line, in bytes, without its terminator (64 KiB).
    public static let maximumLineBytes = 64 * 1024
}

/// A tab-completion request: the line up to the cursor and the word under it.
public struct CompletionRequest: Equatable, Sendable {
    /// The line from its start up to the cursor, as typed (quotes included).
    public var line: String
    /// The words before the word being completed, unquoted (`words[0]` is the command).
    public var precedingWords: [String]
    /// The word being completed, unquoted; empty right after a space.
    public var word: String
    /// The index of ``word`` among the line's words (0 = the command name).
    public var wordIndex: Int { precedingWords.count }

    public init(line: String, precedingWords: [String], word: String) {
        self.line = line
        self.precedingWords = precedingWords
        self.word = word
    }
}

extension LineInput {
    /// Validates raw line bytes (terminator already removed) into a ``LineInput``.
    static func validating(_ bytes: some Collection<UInt8>) -> LineInput {
        guard bytes.count <= LineLimits.maximumLineBytes else {
            return .invalid(.lineTooLong(limit: LineLimits.maximumLineBytes))
        }
        // ASCII (most lines) is valid UTF-8 as it is: decoded without the generic validation.
        if bytes.allSatisfy({ $0 < 0x80 }) { return .line(String(decoding: bytes, as: UTF8.self)) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .invalid(.invalidUTF8)
        }
        return .line(text)
    }
}
