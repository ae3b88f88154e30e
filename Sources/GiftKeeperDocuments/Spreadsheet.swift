public import GiftKeeperDomain

/// A spreadsheet of presents read and checked row by row before any journal is opened
/// (SPEC §10.1: `import --csv`): a header row names the columns, each later row is one
/// present. A row that breaks a rule is set aside with its line, not the whole file.
public struct CheckedSpreadsheet: Sendable {
    /// A row left out, and why.
    public struct Rejected: Sendable, Equatable {
        /// The line of the file the row begins on (the header is line 1).
        public let line: Int
        public let reason: ImportRejection
    }

    /// The presents of the good rows, in order (their ids are given when imported).
    public let presents: [Present]
    /// Who gives each present of ``presents`` given together (a `givers` column, names
    /// separated by commas), by its place there.
    package internal(set) var givers: [Int: [String]] = [:]
    /// The rows left out, in order.
    public let rejected: [Rejected]
    /// Rows of removed presents (`list --csv --all` writes them), not imported.
    public let removedSkipped: Int
    /// Header names that are no column GiftKeeper reads (besides those `list --csv` writes).
    public let unreadColumns: [String]

    /// The good rows as a document to import, each present to take the next free id.
    public var document: CheckedImportDocument {
        var contents = ImportDocument.Document(presents: presents)
        contents.givers = givers
        return CheckedImportDocument(contents: contents, renumbers: true)
    }
}

extension ImportDocument {
    /// The columns a spreadsheet may have, by the names a header may give them (any case).
    enum Column: CaseIterable {
        case recipient, title, price, status, occasion, notes, url, store, removed, givers

        var names: [String] {
            switch self {
            case .recipient: ["recipient", "for", "person"]
            case .title: ["title", "present", "gift", "item"]
            case .price: ["price", "cost"]
            case .status: ["status"]
            case .occasion: ["occasion"]
            case .notes: ["notes", "note"]
            case .url: ["url", "link"]
            case .store: ["store", "shop"]
            case .removed: ["removed"]
            case .givers: ["givers", "with"]
            }
        }
    }

    /// What `list --csv` writes that an import gives anew (ids, times): read past.
    static let givenAnew: Set<String> = ["id", "createdat", "updatedat", "givenat"]

    /// Reads `bytes` as a spreadsheet (``CSVReader``) and checks each row against the
    /// rules of the list, as `add` would (texts, lengths, a price as `--price` takes it, a
    /// status). A text `list --csv` guarded against formulas (``needsFormulaGuard(_:)``) is
    /// read back without the guard.
    /// - Throws: a ``Rejection`` for a file that is no spreadsheet of presents: not text,
    ///   a quote never closed, no header, no `recipient` or no `title` column.
    package static func checkSpreadsheet(_ bytes: [UInt8]) throws(Rejection) -> CheckedSpreadsheet {
        let records: [CSVReader.Record]
        do {
            records = try CSVReader.records(bytes)
        } catch {
            switch error {
            case .notText: throw Rejection(location: "the file", reason: .notText)
            case .unterminatedQuote(let line): throw Rejection(location: "line \(line)", reason: .unterminatedQuote)
            }
        }
        guard let header = records.first else { throw Rejection(location: "the file", reason: .noHeader) }
        var columns: [Column: Int] = [:]
        var unread: [String] = []
        for (index, name) in header.fields.enumerated() {
            let key = name.trimmedWhitespace().lowercased()
            if let column = Column.allCases.first(where: { $0.names.contains(key) }), columns[column] == nil {
                columns[column] = index
            } else if !givenAnew.contains(key), !key.isEmpty {
                unread.append(name)
            }
        }
        for required in [Column.recipient, .title] where columns[required] == nil {
            throw Rejection(location: "line 1", reason: .missingColumn(required.names[0]))
        }
        var presents: [Present] = []
        var givers: [Int: [String]] = [:]
        var rejected: [CheckedSpreadsheet.Rejected] = []
        var removed = 0
        for record in records.dropFirst() {
            guard record.fields.count <= header.fields.count else {
                rejected.append(.init(line: record.line, reason: .tooManyFields(record.fields.count, header: header.fields.count)))
                continue
            }
            func value(_ column: Column) -> String {
                guard let index = columns[column], index < record.fields.count else { return "" }
                return unguarded(record.fields[index])
            }
            if value(.removed).trimmedWhitespace().lowercased() == "true" {
                removed += 1
                continue
            }
            do {
                let present = try present(from: value)
                let names = value(.givers).split(separator: ",").map { String($0).trimmedWhitespace() }.filter { !$0.isEmpty }
                if !names.isEmpty { givers[presents.count] = try GiftList().checkedGivers(names) }
                presents.append(present)
            } catch {
                rejected.append(.init(line: record.line, reason: .rule(error)))
            }
        }
        var sheet = CheckedSpreadsheet(presents: presents, rejected: rejected, removedSkipped: removed, unreadColumns: unread)
        sheet.givers = givers
        return sheet
    }

    /// A row's present, checked as `add` checks one (its id and times are given on import).
    private static func present(from value: (Column) -> String) throws(DomainError) -> Present {
        let priceText = value(.price).trimmedWhitespace()
        let statusText = value(.status).trimmedWhitespace()
        let status = statusText.isEmpty ? PresentStatus.idea : try PresentStatus(parsing: statusText)
        let unstamped = Timestamp(millisecondsSinceEpoch: 0)
        guard let placeholder = PresentID(number: 1) else { preconditionFailure("p1 is a present id") }
        return try GiftList.checkedImport(
            Present(
                id: placeholder, recipient: value(.recipient), title: value(.title), notes: value(.notes),
                price: priceText.isEmpty ? nil : try Money.parsePrice(priceText), occasion: value(.occasion),
                url: value(.url), store: value(.store), status: status, createdAt: unstamped, updatedAt: unstamped))
    }

    /// A field as written before `list --csv`'s formula guard.
    private static func unguarded(_ field: String) -> String {
        let rest = String(field.unicodeScalars.dropFirst())
        guard field.hasPrefix("'"), needsFormulaGuard(rest) else { return field }
        return rest
    }

    /// Whether `list --csv` writes `text` with a leading `'`: a spreadsheet would take it for
    /// a formula (it starts with `=`, `+`, `-`, `@`, a tab or CR), or it starts with `'`s
    /// before one of those (so the guard read back is the text's own).
    package static func needsFormulaGuard(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first(where: { $0 != "'" }) else { return false }
        return "=+-@\t\r".unicodeScalars.contains(first)
    }
}
