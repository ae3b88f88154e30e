public import GiftKeeperDomain
import Glibc

/// Times and dates where the person is: the process's time zone (`TZ`, else the system's),
/// through the C library, which `faketime` and `TZ` in tests reach too.
public enum LocalTime {
    /// `2026-11-25 14:03` in local time.
    static func dateAndMinute(_ time: Timestamp) -> String {
        guard let parts = localParts(time) else { return time.iso8601 }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }

    /// The local day `time` falls on.
    static func date(_ time: Timestamp) -> CalendarDate {
        guard let parts = localParts(time),
            let date = CalendarDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        else { return time.utcDate }
        return date
    }

    /// `--as-of`: `YYYY-MM-DD` is the end of that local day, `YYYY-MM-DDTHH:MM[:SS]` (or
    /// with a space) the end of that local minute or second; `today`, `yesterday` and `-7d`
    /// (days before `now`; `-2w` weeks) are days.
    public static func parseAsOf(_ text: String, now: Timestamp) throws(REPLError) -> Timestamp {
        try parse(text, option: "--as-of", end: true, now: now)
    }

    /// A date or a date and time given to `option`, in local time: with `end`, the last
    /// millisecond it names (`--as-of`, `--until`), else its first (`--since`). Relative
    /// days count back from `now`.
    static func parse(_ text: String, option: String, end: Bool, now: Timestamp) throws(REPLError) -> Timestamp {
        let invalid = REPLError(.invalidTime(option: option, text: text))
        let trimmed = text.trimmedWhitespace()
        let date: CalendarDate
        // Hour, minute and second when given; nil parts take the start or end of the day.
        var clock: [Int32] = []
        if let daysBack = relativeDays(trimmed.lowercased()) {
            guard let day = Self.date(now).adding(days: -daysBack) else { throw invalid }
            date = day
        } else {
            do {
                date = try CalendarDate(parsing: String(trimmed.prefix(10)))
            } catch {
                throw invalid
            }
            if trimmed.count > 10 {
                let rest = Array(trimmed.dropFirst(10).utf8)
                guard rest.count == 6 || rest.count == 9, rest[0] == UInt8(ascii: "T") || rest[0] == UInt8(ascii: " ") else {
                    throw invalid
                }
                for (index, start) in stride(from: 1, to: rest.count, by: 3).enumerated() {
                    guard index == 0 || rest[start - 1] == UInt8(ascii: ":"),
                        rest[start...start + 1].allSatisfy({ (0x30...0x39).contains($0) }),
                        let value = Int32(String(decoding: rest[start...start + 1], as: UTF8.self)),
                        value <= (index == 0 ? 23 : 59)
                    else { throw invalid }
                    clock.append(value)
                }
            }
        }
        var parts = tm()
        parts.tm_year = Int32(date.year - 1900)
        parts.tm_mon = Int32(date.month - 1)
        parts.tm_mday = Int32(date.day)
        parts.tm_hour = clock.count > 0 ? clock[0] : (end ? 23 : 0)
        parts.tm_min = clock.count > 1 ? clock[1] : (end ? 59 : 0)
        parts.tm_sec = clock.count > 2 ? clock[2] : (end ? 59 : 0)
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        guard seconds != -1 else { throw invalid }
        return Timestamp(millisecondsSinceEpoch: Int64(seconds) * 1000 + (end ? 999 : 0))
    }

    /// How many days back `text` names: `today` 0, `yesterday` 1, `-7d` 7, `-2w` 14; nil
    /// for anything else.
    private static func relativeDays(_ text: String) -> Int? {
        switch text {
        case "today": return 0
        case "yesterday": return 1
        default:
            guard text.hasPrefix("-"), let unit = text.last, unit == "d" || unit == "w",
                let count = Int(text.dropFirst().dropLast()), (0...100_000).contains(count)
            else { return nil }
            return unit == "w" ? count * 7 : count
        }
    }

    private static func localParts(_ time: Timestamp) -> tm? {
        var seconds = time_t(time.millisecondsSinceEpoch >= 0 ? time.millisecondsSinceEpoch / 1000 : (time.millisecondsSinceEpoch - 999) / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return nil }
        return parts
    }
}
