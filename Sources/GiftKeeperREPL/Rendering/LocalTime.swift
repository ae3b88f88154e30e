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

    /// `--as-of`: `YYYY-MM-DD` is the end of that local day; `YYYY-MM-DDTHH:MM` (or with a
    /// space) the end of that local minute.
    public static func parseAsOf(_ text: String) throws(REPLError) -> Timestamp {
        let trimmed = text.trimmedWhitespace()
        let datePart = String(trimmed.prefix(10))
        let date: CalendarDate
        do {
            date = try CalendarDate(parsing: datePart)
        } catch {
            throw REPLError(.invalidAsOf(text))
        }
        var hour: Int32 = 23
        var minute: Int32 = 59
        if trimmed.count > 10 {
            let rest = Array(trimmed.dropFirst(10).utf8)
            guard rest.count == 6, rest[0] == UInt8(ascii: "T") || rest[0] == UInt8(ascii: " "), rest[3] == UInt8(ascii: ":"),
                let h = Int32(String(decoding: rest[1...2], as: UTF8.self)), let m = Int32(String(decoding: rest[4...5], as: UTF8.self)),
                (0...23).contains(h), (0...59).contains(m)
            else { throw REPLError(.invalidAsOf(text)) }
            hour = h
            minute = m
        }
        var parts = tm()
        parts.tm_year = Int32(date.year - 1900)
        parts.tm_mon = Int32(date.month - 1)
        parts.tm_mday = Int32(date.day)
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = 59
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        guard seconds != -1 else { throw REPLError(.invalidAsOf(text)) }
        return Timestamp(millisecondsSinceEpoch: Int64(seconds) * 1000 + 999)
    }

    private static func localParts(_ time: Timestamp) -> tm? {
        var seconds = time_t(time.millisecondsSinceEpoch >= 0 ? time.millisecondsSinceEpoch / 1000 : (time.millisecondsSinceEpoch - 999) / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return nil }
        return parts
    }
}
