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

    /// Still to be given: idea, bought or wrapped (what `list` shows by default).
    public var isOpen: Bool { self != .given }

    /// Reads `idea,bought` (commas, any case): the statuses named, in order, each once.
    /// - Throws: ``DomainError/unknownStatus(_:)`` for the first word that is none.
    public static func parseList(_ text: String) throws(DomainError) -> [PresentStatus] {
        var statuses: [PresentStatus] = []
        for word in text.split(separator: ",") {
            let status = try PresentStatus(parsing: String(word))
            if !statuses.contains(status) { statuses.append(status) }
        }
        guard !statuses.isEmpty else { throw .unknownStatus(text) }
        return statuses
    }
}

/// A field of a present that `edit` can change.
public enum PresentField: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case title
    case recipient
    case notes
    case price
    case occasion
    case url
    case store

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
