import GiftKeeperDocuments
import GiftKeeperDomain

/// What `import` says of a spreadsheet.
enum ImportWords {
    /// "Line 7 not imported. The title cannot be empty. …" (a rule of the list, in its own
    /// sentences), "Line 9 not imported: 9 fields, where the header names 8."
    static func leftOut(_ row: CheckedSpreadsheet.Rejected) -> String {
        if case .rule(let rule) = row.reason { return "Line \(row.line) not imported. \(rule.sentence)" }
        return "Line \(row.line) not imported: \(row.reason.words)."
    }

    static func unreadColumns(_ names: [String]) -> String {
        "Not read (no such field): the column\(names.count == 1 ? "" : "s") \(names.map { "'\($0)'" }.joined(separator: ", "))."
    }

    /// The rows to import, the first few of them in full.
    static func preview(_ sheet: CheckedSpreadsheet, from path: String, showing count: Int = 5) -> String {
        var lines = ["\(counted(sheet.presents.count, "present")) to import from \(path):"]
        for present in sheet.presents.prefix(count) {
            let details = [present.price?.description, present.status.rawValue, present.occasion.isEmpty ? nil : present.occasion]
                .compactMap { $0 }
            lines.append(
                "  \(TerminalText.sanitized(present.recipient)): \(TerminalText.sanitized(present.title)) (\(TerminalText.sanitized(details.joined(separator: ", "))))"
            )
        }
        if sheet.presents.count > count { lines.append("  … and \(sheet.presents.count - count) more.") }
        if sheet.removedSkipped > 0 { lines.append("Left out: \(counted(sheet.removedSkipped, "removed present")).") }
        return lines.joined(separator: "\n")
    }

    static let declined = "Nothing imported."

    static func question(_ sheet: CheckedSpreadsheet) -> String {
        "Import \(counted(sheet.presents.count, "present"))?"
    }
}
