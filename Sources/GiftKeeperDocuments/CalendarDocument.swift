package import GiftKeeperDomain

/// An iCalendar file (RFC 5545) of dated occasions, for calendar apps (`upcoming --ics`):
/// one all-day `VEVENT` per occasion, a yearly one with `RRULE:FREQ=YEARLY`, each with a
/// reminder a week before. Lines end in CRLF and are folded at 75 octets; text is escaped,
/// without control characters or bidirectional controls.
package enum CalendarDocument {
    /// One occasion in the file: the day it starts on (a yearly occasion's first date, which
    /// the rule repeats) and its description (what is left to buy and to wrap, worded by the
    /// caller).
    package typealias Entry = (occasion: Occasion, date: CalendarDate, description: String)

    /// The file's bytes. `stamp` is when it was written (`DTSTAMP`); each event's `UID` is
    /// made from the occasion's folded name, so a calendar that imports the file again
    /// updates the events instead of doubling them.
    package static func ics(_ entries: [Entry], stamp: Timestamp) -> [UInt8] {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//GiftKeeper//giftkeeper upcoming//EN", "CALSCALE:GREGORIAN"]
        let stampText = basic(stamp.iso8601)
        for entry in entries {
            let date = entry.date
            lines += [
                "BEGIN:VEVENT",
                "UID:" + uid(entry.occasion.key),
                "DTSTAMP:" + stampText,
                "DTSTART;VALUE=DATE:" + day(date),
            ]
            // An all-day event without DTEND lasts its one day (RFC 5545 §3.6.1): 9999-12-31 has no next day.
            if let end = date.adding(days: 1) { lines.append("DTEND;VALUE=DATE:" + day(end)) }
            lines += [
                "SUMMARY:" + escaped(entry.occasion.name),
                "DESCRIPTION:" + escaped(entry.description),
                "TRANSP:TRANSPARENT",
            ]
            if entry.occasion.isYearly {
                // 29 February falls on the last day of February in other years (SPEC §10).
                lines.append(
                    date.month == 2 && date.day == 29 ? "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1" : "RRULE:FREQ=YEARLY")
            }
            lines += [
                "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-P7D", "DESCRIPTION:" + escaped(entry.occasion.name),
                "END:VALARM", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        return Array(lines.map(folded).joined().utf8)
    }

    /// `20261224`.
    private static func day(_ date: CalendarDate) -> String {
        date.description.filter { $0 != "-" }
    }

    /// `2026-11-24T09:00:00.000Z` as `20261124T090000Z`.
    private static func basic(_ iso8601: String) -> String {
        let digits = iso8601.prefix(19).filter { $0 != "-" && $0 != ":" }
        return digits + "Z"
    }

    /// A stable id from the folded name: its UTF-8 bytes in hex.
    private static func uid(_ key: String) -> String {
        let hex = key.utf8.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return "occasion-" + hex.joined() + "@giftkeeper"
    }

    /// TEXT as RFC 5545 §3.3.11 writes it: backslash, semicolon, comma and line breaks escaped.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default:
                // Other control characters (C0, DEL, C1) have no place in a content line, nor
                // the bidirectional controls that show text reversed.
                if scalar.value < 0x20 || scalar.value == 0x7F || JSONWriter.escapesScalar(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A content line folded after every 75 octets (a CRLF and a space), never inside a
    /// character (nor inside a UTF-8 sequence where one character is longer than a line),
    /// then its CRLF.
    private static func folded(_ line: String) -> String {
        var out = String.UnicodeScalarView()
        var octets = 0
        func append(_ scalars: some Collection<Unicode.Scalar>, size: Int) {
            if octets + size > 75 {
                out += "\r\n ".unicodeScalars
                octets = 1
            }
            out += scalars
            octets += size
        }
        for character in line {
            let size = character.utf8.count
            if size <= 74 {
                append(character.unicodeScalars, size: size)
            } else {
                for scalar in character.unicodeScalars { append(CollectionOfOne(scalar), size: scalar.utf8.count) }
            }
        }
        return String(out) + "\r\n"
    }
}
