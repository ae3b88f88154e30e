import ArgumentParser
public import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService

/// `import FILE [--csv] [--merge]`: append the events that recreate an export document's
/// presents, or a spreadsheet's rows (SPEC §6, §10.1).
struct ImportCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore an export document's presents, or add a spreadsheet's rows.",
        usage: "import FILE [--csv] [--merge]",
        discussion: """
            An export keeps its ids, for a journal that has none of them (a new one); with --merge its \
            presents take the next free ids instead. It is checked whole first: nothing is added if any of \
            it is wrong. A spreadsheet (--csv, or a file ending in .csv) needs a header row naming its \
            columns: recipient, title, and any of price, status, occasion, notes, url, store (what \
            'list --csv' writes). Its rows take the next free ids; a row that breaks a rule is named by its \
            line and left out, and on a terminal the rows are shown before anything is added.
            """)

    @Argument(help: "A giftkeeper.export.v2 (or v1) JSON file, or a CSV spreadsheet.") var file: String?
    @Flag(help: "Read FILE as a CSV spreadsheet (the default for a name ending in .csv).") var csv = false
    @Flag(help: "Add an export's presents under new ids to a journal that has presents.") var merge = false

    static var prompts: [ArgumentPrompt<Self>] { [ArgumentPrompt(\.file, "File to import")] }
    /// `giftkeeper import` is a subcommand of its own.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let path = expandingTilde(file ?? "")
        try Self.perform(ImportSource.read(path, csv: csv, merge: merge), from: path, in: shell)
    }

    /// Imports what `read` found: a spreadsheet's left-out rows named first (each an error,
    /// exit 2), its rows shown and confirmed on a terminal; then the summary, told to `say`
    /// (standard output in the shell; a one-shot keeps it for its result, on standard error).
    static func perform(
        _ source: ImportSource, from path: String, in shell: any Shell, say: ((String) -> Void)? = nil
    ) throws {
        let document: CheckedImportDocument
        switch source {
        case .export(let checked):
            document = checked
        case .spreadsheet(let sheet):
            for row in sheet.rejected { shell.fail(ImportWords.leftOut(row), code: 2) }
            if !sheet.unreadColumns.isEmpty { shell.console.note(ImportWords.unreadColumns(sheet.unreadColumns)) }
            guard !sheet.presents.isEmpty else { throw REPLError(.noRowToImport) }
            if shell.isInteractive {
                shell.progress.clear()
                shell.console.print(ImportWords.preview(sheet, from: path))
                guard try shell.confirm(ImportWords.question(sheet), defaultAnswer: false) else {
                    (say ?? shell.console.print)(ImportWords.declined)
                    return
                }
            }
            document = sheet.document
        }
        let summary = try shell.service.importDocument(document)
        (say ?? shell.console.print)(summary.sentence)
    }
}

/// What a file to import holds, read and checked before a journal is opened.
public enum ImportSource: Sendable {
    case export(CheckedImportDocument)
    case spreadsheet(CheckedSpreadsheet)

    /// Reads and checks `path`: a spreadsheet with `csv` or a name ending in `.csv`, else an
    /// export document (its presents to take new ids with `merge`).
    public static func read(_ path: String, csv: Bool, merge: Bool) throws -> ImportSource {
        let bytes = try PrivateFile.read(path)
        if csv || path.lowercased().hasSuffix(".csv") {
            return .spreadsheet(try GiftKeeperService.checkSpreadsheet(bytes))
        }
        let document = try GiftKeeperService.checkImport(bytes)
        return .export(merge ? document.merging : document)
    }
}

extension REPLSession {
    /// `giftkeeper import`: imports what ``ImportSource/read(_:csv:merge:)`` found, as the
    /// shell's `import` does, signed in.
    public func importChecked(_ source: ImportSource, from path: String) throws {
        try ImportCommand.perform(source, from: path, in: self) { [console] in console.note($0) }
    }
}
