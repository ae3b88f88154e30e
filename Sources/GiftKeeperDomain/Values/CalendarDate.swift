/// A day in the proleptic Gregorian calendar, with no time and no time zone: an occasion's
/// date, or "today" where the person is.
public struct CalendarDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// The date, or nil when there is no such day (`2026-02-30`) or the year is outside 1…9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= Int(Timestamp.daysIn(month: Int64(month), year: Int64(year)))
        else { return nil }
        self.init(checkedYear: year, month: month, day: day)
    }

    /// 0001-01-01, the first day a date can be.
    static let first = CalendarDate(checkedYear: 1, month: 1, day: 1)

    /// A date its caller has checked exists.
    private init(checkedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `daysSinceEpoch` days after 1970-01-01 (negative before it).
    public init?(daysSinceEpoch: Int64) {
        // Years 1…9999 lie well inside ±3,000,000 days; beyond it the arithmetic could overflow.
        guard (-800_000...3_000_000).contains(daysSinceEpoch) else { return nil }
        let (year, month, day) = Timestamp.civil(fromDays: daysSinceEpoch)
        self.init(year: Int(year), month: Int(month), day: Int(day))
    }

    /// Reads `YYYY-MM-DD` exactly (four-digit year, two-digit month and day).
    /// - Throws: ``DomainError/invalidDate(_:)``.
    public init(parsing text: String) throws(DomainError) {
        let trimmed = text.trimmedWhitespace()
        let utf8 = Array(trimmed.utf8)
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in utf8[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let date = CalendarDate(year: year, month: month, day: day)
        else { throw .invalidDate(text) }
        self = date
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int64 { Timestamp.days(fromCivil: Int64(year), Int64(month), Int64(day)) }

    /// The date `days` days later (earlier when negative); nil past the calendar's ends.
    public func adding(days: Int) -> CalendarDate? {
        CalendarDate(daysSinceEpoch: daysSinceEpoch + Int64(days))
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    public func days(until later: CalendarDate) -> Int {
        Int(later.daysSinceEpoch - daysSinceEpoch)
    }

    /// The same day and month in `year`; 29 February is 28 February in other years.
    public func inYear(_ year: Int) -> CalendarDate? {
        CalendarDate(year: year, month: month, day: day)
            ?? CalendarDate(year: year, month: month, day: Int(Timestamp.daysIn(month: Int64(month), year: Int64(year))))
    }

    /// `2026-12-24`.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-\(two(month))-\(two(day))"
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
