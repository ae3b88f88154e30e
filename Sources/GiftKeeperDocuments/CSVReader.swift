/// Reads CSV as RFC 4180 and spreadsheets write it: fields quoted with `"` may hold the
/// delimiter, doubled quotes and line breaks; records end with CRLF or LF; a UTF-8 byte
/// order mark is skipped. The delimiter is the header record's (outside quotes): a comma,
/// else a semicolon or a tab when the header has one of those and no comma (LibreOffice in
/// some locales).
/// (No package in the list reads CSV: this is the few lines it takes.)
package enum CSVReader {
    /// One record and the line of the file it begins on (1 for the header).
    package struct Record: Equatable, Sendable {
        package let line: Int
        package let fields: [String]
    }

    /// Why a file is not CSV at all.
    package enum Failure: Error, Equatable, Sendable {
        /// Not UTF-8 text.
        case notText
        /// A quoted field that is never closed, from the line where it opens.
        case unterminatedQuote(line: Int)
    }

    /// Every record of `bytes`, blank lines skipped.
    package static func records(_ bytes: [UInt8]) throws(Failure) -> [Record] {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else { throw .notText }
        let delimiter = delimiter(of: text)
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var quoted = false
        var quoteLine = 1
        var wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil

        func endRecord() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            // A line holding nothing is no record (spreadsheets end files with one).
            if fields.count > 1 || !(fields.first ?? "").isEmpty || wasQuoted {
                records.append(Record(line: recordLine, fields: fields))
            }
            fields = []
            wasQuoted = false
        }

        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                switch scalar {
                case "\"":
                    let next = scalars.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                case "\n":
                    line += 1
                    field.append(scalar)
                default:
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty:
                quoted = true
                wasQuoted = true
                quoteLine = line
            case delimiter:
                fields.append(String(field))
                field = String.UnicodeScalarView()
            case "\r":
                // CRLF ends a record; a lone CR is kept as text.
                let next = scalars.next()
                if next == "\n" {
                    endRecord()
                    line += 1
                    recordLine = line
                } else {
                    field.append(scalar)
                    pending = next
                }
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                field.append(scalar)
            }
        }
        if quoted { throw .unterminatedQuote(line: quoteLine) }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }

    /// The header record's delimiter: `,` unless it has none and has `;` or a tab. Text in
    /// quotes is a name, not a separator: `"Title, long";Recipient` is separated by `;`.
    private static func delimiter(of text: String) -> Unicode.Scalar {
        let candidates: [Unicode.Scalar] = [",", ";", "\t"]
        var found: Set<Unicode.Scalar> = []
        var quoted = false
        var fieldStart = true
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                // A doubled quote is a quote in the text; a single one closes it.
                if scalar == "\"" {
                    let next = scalars.next()
                    if next != "\"" {
                        quoted = false
                        pending = next
                    }
                }
                continue
            }
            if scalar == "\n" || scalar == "\r" { break }
            if scalar == "\"" && fieldStart {
                quoted = true
            } else if candidates.contains(scalar) {
                found.insert(scalar)
            }
            fieldStart = candidates.contains(scalar)
        }
        return candidates.first { found.contains($0) } ?? ","
    }
}
