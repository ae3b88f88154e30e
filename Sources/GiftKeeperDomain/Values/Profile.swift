/// What a person keeps about someone they give to (SPEC §10.1, `person set`): sizes, likes,
/// dislikes, an address for posted presents, notes. Each field is set on its own, so two
/// devices changing different fields both keep theirs, and the later one in the journal
/// wins for the same field. A birthday is not a field: it is a yearly occasion,
/// ``birthdayOccasionName(of:)``.
public struct Profile: Hashable, Sendable {
    /// The fields that hold text; an empty field is absent.
    public private(set) var fields: [ProfileField: String] = [:]

    public init(_ fields: [ProfileField: String] = [:]) {
        for (field, value) in fields { self[field] = value }
    }

    /// The field's text; empty when not set.
    public subscript(field: ProfileField) -> String {
        get { fields[field] ?? "" }
        set { fields[field] = newValue.isEmpty ? nil : newValue }
    }

    public var isEmpty: Bool { fields.isEmpty }

    /// The name of the yearly occasion that is `recipient`'s birthday: `Mum's birthday`.
    public static func birthdayOccasionName(of recipient: String) -> String { "\(recipient)'s birthday" }
}

/// A field of a ``Profile``: its name in `person set NAME field=value`, in exports and in
/// `--json`, and its tag in the journal (never changed or reused).
public enum ProfileField: UInt8, CaseIterable, Hashable, Sendable, Comparable {
    case sizes = 1
    case likes = 2
    case dislikes = 3
    case address = 4
    case notes = 5
    /// In a household, the member this person is (their name there): what is about the
    /// person is kept from that member (SPEC §13, `household admit NAME --recipient`). Set
    /// only by a household's admission, so not among ``allCases`` (`person set`, exports).
    case member = 6

    /// The fields `person set`, `person`, exports and imports name: all but ``member``.
    public static let allCases: [ProfileField] = [.sizes, .likes, .dislikes, .address, .notes]

    /// The case's name: `sizes`, `likes`, `dislikes`, `address`, `notes`, `member`.
    public var name: String { String(describing: self) }

    /// The field named `name` (case ignored), or nil.
    public init?(name: String) {
        guard let field = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = field
    }

    /// The rules its text follows (``GiftList/checked(_:_:allowEmpty:trim:)``).
    public var inputField: DomainError.InputField {
        switch self {
        case .sizes: .sizes
        case .likes: .likes
        case .dislikes: .dislikes
        case .address: .address
        case .notes: .notes
        case .member: .name
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One change `person set` asks for: a field's new text (empty clears it), or the
/// birthday (nil removes it).
public enum ProfileChange: Hashable, Sendable {
    case field(ProfileField, String)
    case birthday(CalendarDate?)
}
