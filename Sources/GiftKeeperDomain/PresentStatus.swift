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
