import GiftKeeperDomain

/// Splits a REPL line into words the way a POSIX shell does, without expansions.
///
/// - Unquoted ASCII whitespace (space, tab, CR, LF, VT, FF) separates words.
/// - `'…'` is literal; `"…"` is literal except `\"` and `\\`; outside quotes a backslash
///   makes the next character literal.
/// - Quotes join with their neighbours (`'O'"'"'Brien'` is `O'Brien`); `""` is an empty word.
public enum CommandLineTokenizer {
    /// The words of `line`.
    /// - Throws: ``TokenizerError`` for an unterminated quote or a trailing backslash.
    public static func split(_ line: String) throws(TokenizerError) -> [String] {
        let scan = scan(line)
        if let quote = scan.openQuote {
            throw TokenizerError(.unterminatedQuote(quote))
        }
        if scan.trailingBackslash {
            throw TokenizerError(.trailingBackslash)
        }
        return scan.words + (scan.current.map { [$0] } ?? [])
    }

    /// The words of an unfinished line, for completion: the finished words, and the
    /// word under the cursor (unquoted so far; empty after whitespace). Never fails.
    public static func splitPartial(_ line: String) -> (words: [String], current: String) {
        let scan = scan(line)
        return (scan.words, scan.current ?? "")
    }

    /// `word` quoted so that ``split(_:)`` gives it back as one word (unchanged when safe).
    /// For the shell's own lines (completion); a command to paste into a POSIX shell is
    /// quoted by ``posixShellQuoted(_:)``.
    public static func quoted(_ word: String) -> String {
        // By byte: every scalar that needs quotes is ASCII, and no byte of a longer one is.
        guard word.isEmpty || !word.allUTF8Bytes({ !needsQuotes($0) }) else { return word }
        // By Unicode scalar, not by Character: `'` followed by a combining mark is one
        // Character that is not "'", yet its `'` would still close the quotes.
        if !word.unicodeScalars.contains("'") { return "'" + word + "'" }
        var escaped = "\""
        for scalar in word.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped + "\""
    }

    /// Whether a word holding this byte is quoted: a separator, a control character, or a
    /// character a shell would read as syntax.
    private static func needsQuotes(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00..<0x20, 0x7F, 0x20: return true
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"),
            UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "~"),
            UInt8(ascii: "!"):
            return true
        default: return false
        }
    }

    private struct Scan {
        var words: [String] = []
        var current: String?
        var openQuote: Character?
        var trailingBackslash = false
    }

    private enum State {
        case unquoted, single, double
    }

    /// `text` as one word for a POSIX shell (`sh`, `bash`): in single quotes, where nothing
    /// expands, each `'` written `'\''`. For the commands GiftKeeper's messages tell a person
    /// to run (`chmod 600 …`), so pasting one runs exactly that command.
    public static func posixShellQuoted(_ text: String) -> String {
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in text.unicodeScalars {
            if scalar == "'" {
                quoted.append(contentsOf: "'\\''".unicodeScalars)
            } else {
                quoted.append(scalar)
            }
        }
        quoted.append("'")
        return String(quoted)
    }

    /// Splits by Unicode scalar: every character that means something here (separators,
    /// `\\`, quotes) is one ASCII scalar.
    private static func scan(_ line: String) -> Scan {
        var result = Scan()
        var word = String.UnicodeScalarView()
        var inWord = false
        var state = State.unquoted
        var escaping = false
        for scalar in line.unicodeScalars {
            switch state {
            case .unquoted where escaping:
                word.append(scalar)
                escaping = false
            case .unquoted:
                switch scalar {
                case "\\": escaping = true
                case "'": state = .single
                case "\"": state = .double
                case " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}":
                    if inWord { result.words.append(String(word)) }
                    word.removeAll()
                    inWord = false
                    continue
                default: word.append(scalar)
                }
                inWord = true
            case .single:
                if scalar == "'" { state = .unquoted } else { word.append(scalar) }
            case .double where escaping:
                if scalar != "\"" && scalar != "\\" { word.append("\\") }
                word.append(scalar)
                escaping = false
            case .double:
                switch scalar {
                case "\\": escaping = true
                case "\"": state = .unquoted
                default: word.append(scalar)
                }
            }
        }
        switch state {
        case .unquoted:
            result.trailingBackslash = escaping
        case .single:
            result.openQuote = "'"
        case .double:
            if escaping { word.append("\\") }
            result.openQuote = "\""
        }
        if inWord { result.current = String(word) }
        return result
    }
}

/// A line that cannot be split into words. Data; ``description`` words it.
public struct TokenizerError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// A `'` or `"` was opened and never closed.
        case unterminatedQuote(Character)
        /// The line ends with a backslash that escapes nothing.
        case trailingBackslash
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public var description: String {
        switch code {
        case .unterminatedQuote(let quote):
            return "Unterminated quote: a \(quote) was opened but not closed. Close it with \(quote)."
        case .trailingBackslash:
            return "The line ends with a backslash. Remove it, or quote it as '\\'."
        }
    }
}
