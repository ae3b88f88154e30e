import GiftKeeperDomain

/// Text as a terminal shows it: how many columns it takes, and without control characters.
public enum TerminalText {
    /// The number of terminal columns `text` takes: one per `Character`, two for East Asian
    /// wide/full-width characters and emoji. Approximate (no `wcwidth` tables), but never
    /// counts bytes or scalars, so combining marks and ZWJ sequences don't break alignment.
    public static func width(_ text: String) -> Int {
        // Most cells are ASCII: a column a byte, counted without breaking the text into
        // characters (a CR joins the LF after it into one character, so it takes that path).
        if text.allUTF8Bytes({ $0 < 0x7F && $0 != 0x0D }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` with control characters (C0, DEL, C1 — including ESC, so no terminal
    /// escape sequence from stored data can reach the screen) and bidirectional overrides
    /// replaced by `�`. `keeping` lists controls that stay (the newlines and tabs of the
    /// program's own multi-line or tab-separated output).
    public static func sanitized(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        let isUnsafe = { (scalar: Unicode.Scalar) in TextRules.isControl(scalar) && !kept.contains(scalar) }
        // Most output is printable ASCII: checked byte by byte, without decoding scalars.
        let isSafeASCII = { (byte: UInt8) in (byte >= 0x20 && byte < 0x7F) || (byte < 0x20 && kept.contains(Unicode.Scalar(byte))) }
        if text.allUTF8Bytes(isSafeASCII) { return text }
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(isUnsafe(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(result)
    }

    /// `text` in double quotes, a quote or backslash inside it escaped with a backslash:
    /// `"Orchid \"Phalaenopsis\""`, never `"Orchid "Phalaenopsis""`, which reads as two.
    static func quoted(_ text: String) -> String {
        guard text.contains(where: { $0 == "\"" || $0 == "\\" }) else { return "\"" + text + "\"" }
        var escaped = "\""
        for character in text {
            if character == "\"" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }

    /// `text` cut to at most `width` columns, ending in `…` when cut.
    public static func truncated(_ text: String, toWidth width: Int) -> String {
        guard self.width(text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let next = self.width(of: character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        while result.last?.isWhitespace == true {
            result.removeLast()
        }
        return result + "…"
    }

    static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return 1 }
        // Zero-width format characters (U+200B, a lone joiner, marks) take no column.
        if first.properties.generalCategory == .format { return 0 }
        // Emoji shown as emoji: default emoji presentation, or text default + VS16.
        if first.properties.isEmojiPresentation
            || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
        {
            return 2
        }
        return isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks (Unicode UAX #11), coarsely.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F,  // Hangul Jamo initials
            0x2E80...0x303E,  // CJK radicals, Kangxi, CJK symbols and punctuation
            0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, CJK compatibility
            0x3400...0x4DBF,  // CJK Extension A
            0x4E00...0x9FFF,  // CJK Unified Ideographs
            0xA000...0xA4CF,  // Yi
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE30...0xFE4F,  // CJK compatibility forms
            0xFF00...0xFF60,  // Fullwidth forms
            0xFFE0...0xFFE6,
            0x1F300...0x1F64F, 0x1F900...0x1F9FF,  // pictographs, emoticons
            0x20000...0x3FFFD:  // CJK Extensions B and later
            return true
        default:
            return false
        }
    }
}
