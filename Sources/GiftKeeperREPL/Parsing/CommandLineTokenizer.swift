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

    /// The bytes that mean something to ``scan(_:)`` besides the separators.
    private static let backslash = UInt8(ascii: "\\")
    private static let single = UInt8(ascii: "'")
    private static let double = UInt8(ascii: "\"")

    /// Splits by UTF-8 byte: every character that means something here (separators, `\\`,
    /// quotes) is ASCII, and no byte of a multi-byte scalar is, so the words are whole scalars.
    private static func scan(_ line: String) -> Scan {
        var result = Scan()
        // Room for a usual line's words (`add` with a few options), grown once at most.
        result.words.reserveCapacity(12)
        var word: [UInt8] = []
        // No word is longer than the line: room for the longest at once (a note is often
        // longer than any first guess).
        word.reserveCapacity(line.utf8.count)
        var inWord = false
        var state = State.unquoted
        var escaping = false

        var line = line
        // Over the line's contiguous bytes: the UTF-8 view's iterator costs more than the scan.
        line.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                // A run of bytes that mean nothing where they stand (most of a line) is copied
                // at once; the byte after it, escaped or one that means something, is taken below.
                if !escaping {
                    let end = ordinaryRunEnd(bytes, from: index, in: state)
                    if end > index {
                        word.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                        inWord = true
                        index = end
                        continue
                    }
                }
                let byte = bytes[index]
                index += 1
                switch state {
                case .unquoted:
                    if escaping {
                        // Escapes the next scalar: its continuation bytes, never special, follow as they are.
                        word.append(byte)
                        escaping = false
                    } else if byte == backslash {
                        escaping = true
                        inWord = true
                    } else if byte == single {
                        state = .single
                        inWord = true
                    } else if byte == double {
                        state = .double
                        inWord = true
                    } else if inWord {
                        // A separator: it ends the word.
                        result.words.append(String(decoding: word, as: UTF8.self))
                        word.removeAll(keepingCapacity: true)
                        inWord = false
                    }
                case .single:
                    // The closing quote: the run before it took every other byte.
                    state = .unquoted
                case .double:
                    if escaping {
                        if byte != double && byte != backslash { word.append(backslash) }
                        word.append(byte)
                        escaping = false
                    } else if byte == backslash {
                        escaping = true
                    } else {
                        // The closing quote.
                        state = .unquoted
                    }
                }
            }
        }
        switch state {
        case .unquoted:
            result.trailingBackslash = escaping
        case .single:
            result.openQuote = "'"
        case .double:
            if escaping { word.append(backslash) }
            result.openQuote = "\""
        }
        if inWord { result.current = String(decoding: word, as: UTF8.self) }
        return result
    }

    /// Where the run of bytes from `start` that are just text in `state` ends: no separator,
    /// quote or backslash outside quotes; no `'` in single quotes; no `"` or backslash in
    /// double quotes.
    @inline(__always)
    private static func ordinaryRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, in state: State) -> Int {
        var end = start
        switch state {
        case .unquoted:
            while end < bytes.count, !isSeparator(bytes[end]), bytes[end] != backslash, bytes[end] != single,
                bytes[end] != double
            {
                end += 1
            }
        case .single:
            while end < bytes.count, bytes[end] != single { end += 1 }
        case .double:
            while end < bytes.count, bytes[end] != double, bytes[end] != backslash { end += 1 }
        }
        return end
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C: return true
        default: return false
        }
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
