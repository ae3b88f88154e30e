/// A point in time: milliseconds since 1970-01-01T00:00:00Z (UTC), as stored in every event.
///
/// The domain never reads a clock; the service passes the time in.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch, UTC. Negative values are before 1970.
    public var millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    public var description: String { iso8601 }
}

// MARK: - ISO 8601

extension Timestamp {
    static let millisecondsPerDay: Int64 = 86_400_000

    /// The time in ISO 8601 UTC with milliseconds, e.g. `2026-11-22T14:03:07.123Z`.
    ///
    /// Years 0000…9999 have four digits; any other year is written in the expanded
    /// form with a sign and at least six digits (`+010000-01-01T00:00:00.000Z`,
    /// `-000001-12-31T23:59:59.999Z`), as JavaScript's `toISOString` does.
    /// Every `Int64` value has a representation, and ``init(iso8601:)`` reads it back.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        writeISO8601(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of ``iso8601`` to `buffer`, without creating a `String`:
    /// the export writes two times per present, and building them as strings was two
    /// thirds of its cost. The bytes are exactly those of ``iso8601``.
    public func writeISO8601(into buffer: inout [UInt8]) {
        let ms = millisecondsSinceEpoch
        var days = ms / Self.millisecondsPerDay
        var msOfDay = ms % Self.millisecondsPerDay
        if msOfDay < 0 {
            days -= 1
            msOfDay += Self.millisecondsPerDay
        }
        let (year, month, day) = Self.civil(fromDays: days)
        let millis = UInt64(msOfDay)
        // At most 10 bytes of year (sign and nine digits: Int64 milliseconds span
        // ±292 million years) and 20 of "-MM-DDTHH:MM:SS.sssZ".
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { out in
            var count = 0
            func put(_ byte: UInt8) {
                out[count] = byte
                count += 1
            }
            func put(_ value: UInt64, width: Int) {
                // Digits backwards into place, zero-padded to `width`.
                var digits = 1
                var rest = value / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                let total = max(digits, width)
                var remaining = value
                for index in stride(from: count + total - 1, through: count, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                count += total
            }
            if year >= 0 && year <= 9999 {
                put(UInt64(year), width: 4)
            } else {
                put(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                put(year.magnitude, width: 6)
            }
            put(UInt8(ascii: "-"))
            put(UInt64(month), width: 2)
            put(UInt8(ascii: "-"))
            put(UInt64(day), width: 2)
            put(UInt8(ascii: "T"))
            put(millis / 3_600_000, width: 2)
            put(UInt8(ascii: ":"))
            put(millis / 60_000 % 60, width: 2)
            put(UInt8(ascii: ":"))
            put(millis / 1000 % 60, width: 2)
            put(UInt8(ascii: "."))
            put(millis % 1000, width: 3)
            put(UInt8(ascii: "Z"))
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[..<count]))
        }
    }

    /// Parses exactly the format ``iso8601`` writes (`YYYY-MM-DDTHH:MM:SS.sssZ`, or the
    /// expanded signed year form); nil for anything else, including out-of-range fields
    /// (month 13, February 30, hour 24, leap second 60) and times beyond `Int64` milliseconds.
    public init?(iso8601 text: String) {
        self.init(iso8601UTF8: Array(text.utf8)[...])
    }

    /// Parses the UTF-8 bytes of an ``iso8601`` text, like ``init(iso8601:)`` (the import
    /// reads times straight from the document's bytes).
    public init?(iso8601UTF8 bytes: ArraySlice<UInt8>) {
        var utf8 = bytes
        // Year: four digits, or a sign and six to nine digits.
        let year: Int64
        if let first = utf8.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            utf8 = utf8.dropFirst()
            var digitCount = 0
            while digitCount < utf8.count, Self.isDigit(utf8[utf8.startIndex + digitCount]) { digitCount += 1 }
            guard digitCount >= 6, digitCount <= 9,
                let magnitude = Self.number(&utf8, digits: digitCount)
            else { return nil }
            year = first == UInt8(ascii: "-") ? -magnitude : magnitude
            // The expanded form is only written for years outside 0…9999.
            guard year < 0 || year > 9999 else { return nil }
        } else {
            guard let value = Self.number(&utf8, digits: 4) else { return nil }
            year = value
        }
        guard Self.literal(&utf8, "-"), let month = Self.number(&utf8, digits: 2),
            Self.literal(&utf8, "-"), let day = Self.number(&utf8, digits: 2),
            Self.literal(&utf8, "T"), let hour = Self.number(&utf8, digits: 2),
            Self.literal(&utf8, ":"), let minute = Self.number(&utf8, digits: 2),
            Self.literal(&utf8, ":"), let second = Self.number(&utf8, digits: 2),
            Self.literal(&utf8, "."), let milli = Self.number(&utf8, digits: 3),
            Self.literal(&utf8, "Z"), utf8.isEmpty
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let msOfDay = ((hour * 60 + minute) * 60 + second) * 1000 + milli
        // Before 1970 the day's start may overflow where the time itself does not (Int64.min),
        // so count from the next midnight backwards instead.
        let (wholeDays, partMs) = days < 0 ? (days + 1, msOfDay - Self.millisecondsPerDay) : (days, msOfDay)
        let (dayMs, overflow1) = wholeDays.multipliedReportingOverflow(by: Self.millisecondsPerDay)
        guard !overflow1 else { return nil }
        let (total, overflow2) = dayMs.addingReportingOverflow(partMs)
        guard !overflow2 else { return nil }
        self.init(millisecondsSinceEpoch: total)
    }

    /// The day it falls on in UTC.
    public var utcDate: CalendarDate {
        let days =
            millisecondsSinceEpoch >= 0
            ? millisecondsSinceEpoch / Self.millisecondsPerDay
            : (millisecondsSinceEpoch + 1) / Self.millisecondsPerDay - 1
        return CalendarDate(daysSinceEpoch: days) ?? .first
    }

    /// Year, month (1…12) and day (1…31) of a day count since 1970-01-01 in the proleptic
    /// Gregorian calendar (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func number(_ utf8: inout ArraySlice<UInt8>, digits: Int) -> Int64? {
        guard utf8.count >= digits else { return nil }
        var value: Int64 = 0
        for byte in utf8.prefix(digits) {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        utf8 = utf8.dropFirst(digits)
        return value
    }

    private static func literal(_ utf8: inout ArraySlice<UInt8>, _ character: Unicode.Scalar) -> Bool {
        guard utf8.first == UInt8(ascii: character) else { return false }
        utf8 = utf8.dropFirst()
        return true
    }
}
