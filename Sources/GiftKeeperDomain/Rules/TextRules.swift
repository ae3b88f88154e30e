/// The one set of rules for text: what is a control character, what puts ink on the
/// screen, what whitespace is trimmed. The domain checks what people type with them; the
/// shell sanitises what it shows with the same rules.
public enum TextRules {
    /// Control characters (C0, DEL, C1) and the bidirectional embeddings, overrides and
    /// isolates: a terminal acts on them (escape sequences, carriage returns, text shown
    /// reversed) instead of showing them.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// What a field may not hold: every control character, but notes may hold line breaks
    /// (LF, U+2028, U+2029) and tabs (an imported note of several lines); every other
    /// field is one line.
    public static func isDisallowed(_ scalar: Unicode.Scalar, allowingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: !allowingLineBreaks
        case 0x2028, 0x2029: !allowingLineBreaks
        default: isControl(scalar)
        }
    }

    /// A scalar that puts ink on the screen: not whitespace, not a format or default-ignorable
    /// character (U+200B, U+2060, U+3164…), not a combining mark on its own, not the blank
    /// braille pattern.
    public static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint || scalar.value == 0x2800 { return false }
        switch properties.generalCategory {
        case .format, .control, .nonspacingMark, .enclosingMark, .spaceSeparator, .lineSeparator, .paragraphSeparator:
            return false
        default:
            return true
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace and newlines (no Foundation).
    public func trimmedWhitespace() -> String {
        // A printable ASCII byte other than a space starts a character that is not
        // whitespace: no Unicode property look-up for the front of most text.
        let head = utf8.first.map { $0 > 0x20 && $0 < 0x7F } ?? false
        guard let first = head ? startIndex : firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        // Nothing to trim (most text): no copy of a String.
        if first == startIndex && index(after: last) == endIndex { return String(self) }
        return String(self[first...last])
    }
}

extension String {
    /// ``StringProtocol/trimmedWhitespace()`` for a string, without a Unicode property
    /// look-up when it starts and ends with printable ASCII other than a space (most text,
    /// a script's every line among it): such a byte at the end ends a character that is not
    /// whitespace, as no grapheme cluster that starts with whitespace takes it in.
    public func trimmedWhitespace() -> String {
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return self
        }
        return self[...].trimmedWhitespace()
    }

    /// Whether every UTF-8 byte of the string passes `test`: a loop over its contiguous
    /// bytes (a native string's), not the UTF-8 view's iterator — the ASCII fast paths
    /// that most text takes run it on every line, name and title.
    @inlinable public func allUTF8Bytes(_ test: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? utf8.allSatisfy(test)
    }
}
