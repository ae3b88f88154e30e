/// A named occasion presents are for: `Christmas 2026` on 2026-12-24, or `Mum's birthday`
/// on 1961-03-14 every year. Names compare folded (``TextFolding``).
public struct Occasion: Hashable, Sendable {
    /// The name as first typed.
    public var name: String
    public var date: CalendarDate?
    /// Whether it comes back every year on the day and month of ``date``.
    public var isYearly: Bool

    public init(name: String, date: CalendarDate? = nil, isYearly: Bool = false) {
        self.name = name
        self.date = date
        self.isYearly = isYearly
    }

    /// The comparison key of the name.
    public var key: String { TextFolding.key(name) }

    /// The next day it falls on, `today` or later: its date, or for a yearly occasion the
    /// date's day and month in this year or the next. Nil when undated or already past.
    public func nextDate(onOrAfter today: CalendarDate) -> CalendarDate? {
        guard let date else { return nil }
        guard isYearly else { return date >= today ? date : nil }
        if let thisYear = date.inYear(today.year), thisYear >= today { return thisYear }
        return date.inYear(today.year + 1)
    }
}

/// What a budget is for: one recipient, one occasion, one recipient within one occasion,
/// or (neither) everything on the list; in one year (SPEC §10.1), or in every year.
public struct BudgetScope: Hashable, Sendable {
    /// The recipient as typed first; nil for every recipient.
    public var recipient: String?
    /// The occasion as typed first; nil for every occasion.
    public var occasion: String?
    /// The year whose presents it counts (``GiftList/year(of:day:)``); nil for every year
    /// (a budget set before budgets had years, or on an occasion dated once).
    public var year: Int?

    public init(recipient: String? = nil, occasion: String? = nil, year: Int? = nil) {
        self.recipient = recipient.flatMap { $0.isEmpty ? nil : $0 }
        self.occasion = occasion.flatMap { $0.isEmpty ? nil : $0 }
        self.year = year
    }

    /// The comparison key: the folded names and the year.
    public var key: Key {
        Key(recipient: recipient.map(TextFolding.key) ?? "", occasion: occasion.map(TextFolding.key) ?? "", year: year)
    }

    /// The years a budget may name.
    public static let years = 1...9999

    public struct Key: Hashable, Sendable {
        public var recipient: String
        public var occasion: String
        public var year: Int?

        public init(recipient: String, occasion: String, year: Int? = nil) {
            self.recipient = recipient
            self.occasion = occasion
            self.year = year
        }

        /// Whether `present` counts towards a budget of this scope.
        public func covers(_ present: Present) -> Bool {
            if !recipient.isEmpty && !TextFolding.matches(present.recipient, key: recipient) { return false }
            if !occasion.isEmpty && !TextFolding.matches(present.occasion, key: occasion) { return false }
            return true
        }
    }
}

/// An amount set aside for a scope.
public struct Budget: Hashable, Sendable {
    public var scope: BudgetScope
    public var amount: Money

    public init(scope: BudgetScope, amount: Money) {
        self.scope = scope
        self.amount = amount
    }
}
