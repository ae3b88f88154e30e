/// A wish's short, stable, typeable id in a household: `w1`, `w2`, …; never reused.
public struct WishID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number after the `w`; always at least 1.
    public let number: UInt64

    /// An id for `number`; nil for 0, which is never an id.
    public init?(number: UInt64) {
        guard number > 0 else { return nil }
        self.number = number
    }

    /// Parses `w3` or `W3`, as ``PresentID/init(parsing:)`` parses `p3`.
    public init?(parsing text: some StringProtocol) {
        guard let number = ShortIDNumber.parse(text, prefix: "w") else { return nil }
        self.init(number: number)
    }

    public static func < (lhs: WishID, rhs: WishID) -> Bool { lhs.number < rhs.number }

    public var description: String { "w\(number)" }
}

/// Something a member of a household would like (SPEC §13, `wish add`): on their own list,
/// seen by every member, or suggested for them by another member (`--for`), seen by
/// everyone but them. Names are members' names as the household knows them.
public struct Wish: Hashable, Sendable {
    public var id: WishID
    /// Whose wish it is.
    public var wisher: String
    public var title: String
    public var notes: String
    public var price: Money?
    public var url: String
    /// The member who suggested it for the wisher; empty for the wisher's own wish.
    public var suggestedBy: String

    public init(
        id: WishID, wisher: String, title: String, notes: String = "", price: Money? = nil, url: String = "",
        suggestedBy: String = ""
    ) {
        self.id = id
        self.wisher = wisher
        self.title = title
        self.notes = notes
        self.price = price
        self.url = url
        self.suggestedBy = suggestedBy
    }

    /// Whether another member suggested it (`wish add … --for`), rather than the wisher.
    public var isSuggestion: Bool { !suggestedBy.isEmpty }
}

/// Who claimed a wish (`claim`), and the present that stands for it on their list: what
/// everyone but the wisher sees as "claimed by Bob".
public struct WishClaim: Hashable, Sendable {
    public var claimer: String
    public var present: PresentID

    public init(claimer: String, present: PresentID) {
        self.claimer = claimer
        self.present = present
    }
}
