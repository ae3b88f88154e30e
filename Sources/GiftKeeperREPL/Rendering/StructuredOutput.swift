import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService

/// The `--json` and `--csv` forms of what commands show (SPEC §11), for scripts: one JSON
/// document (amounts as decimal strings, times ISO-8601 in UTC, absent values null), or
/// RFC 4180 CSV. Stored text never reaches the output as a control: JSON escapes every
/// control character, DEL, C1 and the bidirectional controls (``JSONWriter``); CSV
/// replaces them as the table does (``TerminalText/sanitized(_:keeping:)``), keeping only
/// the line feeds and tabs notes may hold, and quotes any field that holds one.
enum StructuredOutput {
    /// `--json` or `--csv`, as far as the command declares them; refused together.
    static func format(_ command: some StructuredOutputOptions) throws -> Format {
        if command.json && command.csv { throw REPLError(.conflictingOptions("--json", "--csv")) }
        return command.json ? .json : command.csv ? .csv : .text
    }

    enum Format {
        case text, json, csv
    }

    /// A present in every `--json` output: each field always there, `null` when it has no
    /// value (no price, notes, occasion, url, store, given time or givers), never `""`;
    /// `givers` as `state` has them.
    static func present(_ present: Present, in state: GiftList, isRemoved: Bool = false) -> JSONValue {
        .object([
            ("id", .string(present.id.description)),
            ("recipient", .string(present.recipient)),
            ("title", .string(present.title)),
            ("notes", .text(present.notes.isEmpty ? nil : present.notes)),
            ("price", .text(present.price?.description)),
            ("occasion", .text(present.occasion.isEmpty ? nil : present.occasion)),
            ("url", .text(present.url.isEmpty ? nil : present.url)),
            ("store", .text(present.store.isEmpty ? nil : present.store)),
            ("status", .string(present.status.rawValue)),
            ("removed", .bool(isRemoved)),
            ("createdAt", .string(present.createdAt.iso8601)),
            ("updatedAt", .string(present.updatedAt.iso8601)),
            ("givenAt", .text(present.givenAt?.iso8601)),
            ("givers", state.givers[present.id].map { .array($0.map { JSONValue.string($0) }) } ?? .null),
        ])
    }

    /// The columns of `list --csv`, in order.
    static let presentColumns = [
        "id", "recipient", "title", "occasion", "price", "status", "removed", "notes", "url", "store", "createdAt",
        "updatedAt", "givenAt", "givers",
    ]

    /// A present's row; `givers` (who gives it together) in one field, separated by commas.
    static func presentRow(_ present: Present, givers: [String]?, isRemoved: Bool) -> [String] {
        [
            present.id.description, present.recipient, present.title, present.occasion, present.price?.description ?? "",
            present.status.rawValue, isRemoved ? "true" : "false", present.notes, present.url, present.store,
            present.createdAt.iso8601, present.updatedAt.iso8601, present.givenAt?.iso8601 ?? "",
            (givers ?? []).joined(separator: ", "),
        ]
    }

    /// A wish in `wishes --json` (SPEC §13), as a present is in `list --json`: each field
    /// always there, `null` when it has no value (no notes, price, url; not suggested; not
    /// claimed, or claimed but the viewer's own, `mine`: nobody sees claims on their own wishes).
    static func wish(_ wish: Wish, claim: WishClaim?, mine: Bool) -> JSONValue {
        let claim = mine ? nil : claim
        return .object([
            ("id", .string(wish.id.description)),
            ("wisher", .string(wish.wisher)),
            ("title", .string(wish.title)),
            ("notes", .text(wish.notes.isEmpty ? nil : wish.notes)),
            ("price", .text(wish.price?.description)),
            ("url", .text(wish.url.isEmpty ? nil : wish.url)),
            ("suggestedBy", .text(wish.suggestedBy.isEmpty ? nil : wish.suggestedBy)),
            ("claimedBy", .text(claim?.claimer)),
            ("present", .text(claim?.present.description)),
        ])
    }

    /// The columns of `wishes --csv`, in order (``wish(_:claim:mine:)``'s fields).
    static let wishColumns = ["id", "wisher", "title", "notes", "price", "url", "suggestedBy", "claimedBy", "present"]

    /// A wish's row, empty where ``wish(_:claim:mine:)`` has `null`.
    static func wishRow(_ wish: Wish, claim: WishClaim?, mine: Bool) -> [String] {
        let claim = mine ? nil : claim
        return [
            wish.id.description, wish.wisher, wish.title, wish.notes, wish.price?.description ?? "", wish.url, wish.suggestedBy,
            claim?.claimer ?? "", claim?.present.description ?? "",
        ]
    }

    /// RFC 4180: CRLF after every record; a field holding a comma, a quote, CR, LF or a tab
    /// is quoted, its quotes doubled. Control characters (C0 but LF and tab, DEL, C1,
    /// bidirectional overrides and isolates) become `�`, as on the terminal. A text field
    /// starting with `=`, `+`, `-`, `@`, a tab or CR (or `'`s before one of those) gets a
    /// leading `'`, so a spreadsheet shows it rather than running it as a formula (OWASP's
    /// advice on CSV injection) and `import --csv` reads the text back; ids, prices and
    /// times never start so.
    static func csv(header: [String], rows: [[String]]) -> [UInt8] {
        var out = ""
        for record in [header] + rows {
            out += record.map(field).joined(separator: ",") + "\r\n"
        }
        return Array(out.utf8)
    }

    private static func field(_ text: String) -> String {
        var value = TerminalText.sanitized(text, keeping: ["\n", "\t"])
        if ImportDocument.needsFormulaGuard(value) { value = "'" + value }
        let needsQuotes = value.unicodeScalars.contains {
            $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\t"
        }
        guard needsQuotes else { return value }
        return "\"" + value.replacingQuotes() + "\""
    }
}

extension String {
    fileprivate func replacingQuotes() -> String {
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            out.append(scalar)
            if scalar == "\"" { out.append(scalar) }
        }
        return String(out)
    }
}

/// A command that declares `--json` (and perhaps `--csv`): what it shows, for scripts.
protocol StructuredOutputOptions {
    var json: Bool { get }
    /// `--csv`; false for a command that does not declare it.
    var csv: Bool { get }
}

extension StructuredOutputOptions {
    var csv: Bool { false }
}
