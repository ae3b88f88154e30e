@testable import GiftKeeperREPL

/// The shell's tokenizer and its two quoting functions: `quoted` always splits back to the
/// word it quoted (completion inserts it), `posixShellQuoted` is read back by a POSIX shell
/// as exactly the text (hints a person pastes), and any line splits or is refused without
/// harm. The input is read as UTF-8 (invalid bytes repaired); NUL bytes separate words.
enum TokenizerCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let line = String(decoding: input, as: UTF8.self)
        let words = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }

        for word in words {
            let quoted = CommandLineTokenizer.quoted(word)
            try require(
                bytes(try? CommandLineTokenizer.split(quoted)) == bytes([word]),
                "quoted(\(word.debugDescription)) = \(quoted.debugDescription) does not split back to it")
        }
        let joined = words.map(CommandLineTokenizer.quoted).joined(separator: " ")
        try require(bytes(try? CommandLineTokenizer.split(joined)) == bytes(words), "quoted words joined by spaces do not split back")

        let pasted = CommandLineTokenizer.posixShellQuoted(line)
        try require(
            posixWord(pasted).map { Array($0.utf8) } == Array(line.utf8),
            "posixShellQuoted(\(line.debugDescription)) = \(pasted.debugDescription) is not one POSIX word for it")

        let partial = CommandLineTokenizer.splitPartial(line)
        if let split = try? CommandLineTokenizer.split(line) {
            try require(
                split.map { Array($0.utf8) }.starts(with: partial.words.map { Array($0.utf8) }), "splitPartial's finished words are not split's")
            let requoted = split.map(CommandLineTokenizer.quoted).joined(separator: " ")
            if !split.isEmpty {
                try require(bytes(try? CommandLineTokenizer.split(requoted)) == bytes(split), "a split line, quoted again, splits otherwise")
            }
        }
    }

    /// Words compared by their UTF-8 bytes: `String`'s `==` would take a decomposed
    /// accent for a precomposed one.
    private static func bytes(_ words: [String]?) -> [[UInt8]]? {
        words.map { $0.map { Array($0.utf8) } }
    }

    /// What a POSIX shell reads `text` as when it may hold only single-quoted runs and `\'`
    /// (no expansion can happen in either); nil for anything else, or more than one word.
    static func posixWord(_ text: String) -> String? {
        var word = String.UnicodeScalarView()
        var inQuotes = false
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if inQuotes {
                if scalar == "'" { inQuotes = false } else { word.append(scalar) }
            } else if scalar == "'" {
                inQuotes = true
            } else if scalar == "\\" {
                guard scalars.next() == "'" else { return nil }
                word.append("'")
            } else {
                return nil
            }
        }
        return inQuotes ? nil : String(word)
    }
}
