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
        /// May be cut (with `…`) to fit ``TableRenderer/maxWidth``.
        public var shrinks: Bool

        public init(_ title: String, alignment: Alignment = .left, shrinks: Bool = false) {
            self.title = title
            self.alignment = alignment
            self.shrinks = shrinks
        }
    }

    /// The narrowest a shrinking column gets.
    static let minimumShrunkWidth = 8

    public var columns: [Column]
    /// Spaces between columns.
    public var gap: Int
    /// Whether a rule of `-` goes under the headers.
    public var showsRule: Bool
    /// The terminal's width, when lines must fit it: shrinking columns give up columns,
    /// in order, down to ``minimumShrunkWidth`` (nil: never cut, e.g. into a pipe).
    public var maxWidth: Int?

    public init(columns: [Column], gap: Int = 2, showsRule: Bool = true, maxWidth: Int? = nil) {
        self.columns = columns
        self.gap = gap
        self.showsRule = showsRule
        self.maxWidth = maxWidth
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
        shrink(&widths, headerWidths: header.map(TerminalText.width))
        var lines = [line(header, widths: widths)]
        if showsRule {
            lines.append(line(widths.map { String(repeating: "-", count: $0) }, widths: widths))
        }
        lines += body.map { row in
            line(row.enumerated().map { TerminalText.truncated($0.element, toWidth: widths[$0.offset]) }, widths: widths)
        }
        return lines
    }

    /// Narrows the shrinking columns, the widest first, until the table fits ``maxWidth``
    /// or each is down to its floor (its header, at least ``minimumShrunkWidth``).
    private func shrink(_ widths: inout [Int], headerWidths: [Int]) {
        guard let maxWidth else { return }
        var excess = widths.reduce(0, +) + gap * max(0, widths.count - 1) - maxWidth
        let floors = columns.indices.map { max(Self.minimumShrunkWidth, headerWidths[$0]) }
        while excess > 0 {
            let candidates = columns.indices.filter { columns[$0].shrinks && widths[$0] > floors[$0] }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { return }
            widths[widest] -= 1
            excess -= 1
        }
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
