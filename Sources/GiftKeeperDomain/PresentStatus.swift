/// Where a present is in its life.
public enum PresentStatus: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case idea
    case bought
    case wrapped
    case given

    /// Parses a status word, ignoring case and surrounding whitespace.
    /// - Throws: ``DomainError/unknownStatus(_:)``.
    public init(parsing text: String) throws(DomainError) {
        guard let status = PresentStatus(rawValue: text.trimmedWhitespace().lowercased()) else {
            throw .unknownStatus(text)
        }
        self = status
    }

    public var description: String { rawValue }
}

/// A field of a present that `edit` can change.
public enum PresentField: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case title
    case recipient
    case notes
    case price
    case occasion

    /// Parses a field name, ignoring case and surrounding whitespace.
    /// - Throws: ``DomainError/unknownField(_:)``.
    public init(parsing text: String) throws(DomainError) {
        guard let field = PresentField(rawValue: text.trimmedWhitespace().lowercased()) else {
            throw .unknownField(text)
        }
        self = field
    }

    public var description: String { rawValue }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace and newlines (no Foundation).
    func trimmedWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
