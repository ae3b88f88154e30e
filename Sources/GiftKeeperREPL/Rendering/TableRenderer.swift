/// Plain-text tables with aligned columns, for `list` and `history`.
///
/// ```
/// ID  RECIPIENT  TITLE        PRICE  STATUS
/// --  ---------  -----------  -----  ------
/// p1  Mum        Blue scarf   25.00  idea
/// ```
/// Widths are measured in terminal columns (``TerminalText/width(_:)``); cells are
/// sanitised (``TerminalText/sanitized(_:)``). No trailing spaces.
public struct TableRenderer: Sendable {
    public enum Alignment: Sendable {
        case left, right
    }

    public struct Column: Sendable {
        public var title: String
        public var alignment: Alignment

        public init(_ title: String, alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    public var columns: [Column]
    /// Spaces between columns.
    public var gap: Int
    /// Whether a rule of `-` goes under the headers.
    public var showsRule: Bool

    public init(columns: [Column], gap: Int = 2, showsRule: Bool = true) {
        self.columns = columns
        self.gap = gap
        self.showsRule = showsRule
    }

    /// The table as lines joined by `\n` (no final newline). Missing cells are empty;
    /// extra cells are ignored.
    public func render(_ rows: [[String]]) -> String {
        renderLines(rows).joined(separator: "\n")
    }

    /// The table's lines.
    public func renderLines(_ rows: [[String]]) -> [String] {
        let header = columns.map { TerminalText.sanitized($0.title) }
        let body = rows.map { row in
            columns.indices.map { index in
                index < row.count ? TerminalText.sanitized(row[index]) : ""
            }
        }
        var widths = header.map(TerminalText.width)
        for row in body {
            for (index, cell) in row.enumerated() {
                widths[index] = max(widths[index], TerminalText.width(cell))
            }
        }
        var lines = [line(header, widths: widths)]
        if showsRule {
            lines.append(line(widths.map { String(repeating: "-", count: $0) }, widths: widths))
        }
        lines += body.map { line($0, widths: widths) }
        return lines
    }

    private func line(_ cells: [String], widths: [Int]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            let padding = String(repeating: " ", count: max(0, widths[index] - TerminalText.width(cell)))
            if index > 0 { text += String(repeating: " ", count: gap) }
            switch columns[index].alignment {
            case .left: text += cell + padding
            case .right: text += padding + cell
            }
        }
        while text.last == " " {
            text.removeLast()
        }
        return text
    }
}
