import GiftKeeperDocuments
import GiftKeeperDomain

/// The iCalendar writer (`upcoming --ics`) on any occasion names, dates and descriptions
/// (a name comes from the journal, which another device holding the key may have written):
/// the output is UTF-8 in CRLF lines of at most 75 octets, each whole UTF-8 on its own,
/// folded with a space; it holds no control character (C0, DEL, C1) and no bidirectional
/// control; each text value is escaped as RFC 5545 §3.3.11 writes TEXT and unescapes to
/// the text without those characters; each event starts on its day and ends after it.
///
/// The input is a run of entries: two bytes of year (1…9999), a month byte (its high bit:
/// yearly), a day byte, a name length and a description length byte, then the two texts
/// (UTF-8, invalid bytes repaired).
enum CalendarWriterCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let entries = entries(input)
        let output = CalendarDocument.ics(entries, stamp: Timestamp(millisecondsSinceEpoch: 1_790_000_000_000))
        try require(String(validating: output, as: UTF8.self) != nil, "the file is not UTF-8")
        try require(output.suffix(2) == [0x0D, 0x0A], "the file does not end with CRLF")
        var physical: [[UInt8]] = []
        var start = 0
        for index in output.indices.dropLast() where output[index] == 0x0D && output[index + 1] == 0x0A {
            physical.append(Array(output[start..<index]))
            start = index + 2
        }
        var logical: [String] = []
        for line in physical {
            try require(!line.contains(0x0D) && !line.contains(0x0A), "a CR or LF that ends no line")
            try require(line.count <= 75, "a line of \(line.count) octets")
            guard let text = String(validating: line, as: UTF8.self) else {
                throw InvariantFailure(description: "a line folded inside a character")
            }
            try require(!text.unicodeScalars.contains(where: isForbidden), "a control character in \(text.debugDescription)")
            // By bytes: a folded line may start with a combining mark, one character with the space.
            if line.first == UInt8(ascii: " ") {
                try require(!logical.isEmpty, "the file starts with a folded line")
                logical[logical.count - 1] += String(decoding: line.dropFirst(), as: UTF8.self)
            } else {
                logical.append(text)
            }
        }
        let events = logical.split(separator: "BEGIN:VEVENT", omittingEmptySubsequences: false).dropFirst()
        try require(events.count == entries.count, "\(entries.count) occasions became \(events.count) events")
        for (entry, event) in zip(entries, events) {
            try requireEvent(Array(event), of: entry)
        }
    }

    private static func requireEvent(_ lines: [String], of entry: CalendarDocument.Entry) throws(InvariantFailure) {
        func value(_ name: String) -> String? {
            let prefix = Array((name + ":").utf8)
            return lines.first { $0.utf8.starts(with: prefix) }.map { String(decoding: $0.utf8.dropFirst(prefix.count), as: UTF8.self) }
        }
        try require(
            unescaped(value("SUMMARY")) == shown(entry.occasion.name),
            "SUMMARY \(value("SUMMARY")?.debugDescription ?? "none") does not read back as \(entry.occasion.name.debugDescription)")
        try require(unescaped(value("DESCRIPTION")) == shown(entry.description), "DESCRIPTION does not read back as the text")
        let date = entry.date
        let day = digits(date.year, 4) + digits(date.month, 2) + digits(date.day, 2)
        try require(value("DTSTART;VALUE=DATE") == day, "DTSTART is not \(day)")
        if let end = value("DTEND;VALUE=DATE") {
            try require(end.count == 8 && end > day, "DTEND \(end) is not after DTSTART \(day)")
        }
        try require(value("UID").map { $0.allSatisfy(\.isASCII) } == true, "the UID is not ASCII")
        try require((value("RRULE") != nil) == entry.occasion.isYearly, "a yearly rule on a one-off occasion or none on a yearly one")
        try require(lines.last == "END:VEVENT" || lines.last == "END:VCALENDAR", "an event is not ended")
    }

    /// A TEXT value read as RFC 5545 reads it; nil if it holds an unescaped `,` or `;` or
    /// an escape that is not one.
    static func unescaped(_ value: String?) -> String? {
        guard let value else { return nil }
        var out = String.UnicodeScalarView()
        var scalars = value.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case ",", ";": return nil
            case "\\":
                switch scalars.next() {
                case "\\": out.append("\\")
                case ";": out.append(";")
                case ",": out.append(",")
                case "n", "N": out.append("\n")
                default: return nil
                }
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// What a text shows in the file: without the characters that have no place there.
    private static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || !isForbidden($0) }))
    }

    /// C0 controls (tab included), DEL, C1 controls, and the bidirectional controls.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func digits(_ number: Int, _ count: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }

    static func entries(_ input: [UInt8]) -> [CalendarDocument.Entry] {
        var entries: [CalendarDocument.Entry] = []
        var rest = input[...]
        while rest.count >= 6 {
            let head = Array(rest.prefix(6))
            rest = rest.dropFirst(6)
            let year = 1 + (Int(head[0]) << 8 | Int(head[1])) % 9999
            let month = 1 + Int(head[2] & 0x7F) % 12
            let date = CalendarDate(year: year, month: month, day: 1 + Int(head[3]) % 31) ?? CalendarDate(year: year, month: month, day: 28)
            let name = String(decoding: rest.prefix(Int(head[4])), as: UTF8.self)
            rest = rest.dropFirst(Int(head[4]))
            let description = String(decoding: rest.prefix(Int(head[5])), as: UTF8.self)
            rest = rest.dropFirst(Int(head[5]))
            guard let date else { continue }
            entries.append((Occasion(name: name, date: date, isYearly: head[2] & 0x80 != 0), date, description))
        }
        return entries
    }
}
