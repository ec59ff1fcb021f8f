/// Rows of cells printed as aligned columns: the one layout of every listing (`modules`,
/// `status`, `son stats`, `tyt ringtone list`, ...), so no command pads columns by hand.
///
/// ```swift
/// context.console.table(TextTable(columns: [.left, .right], header: columnNames,
///                                 rows: summaries.map { [$0.title, "\($0.plays)"] }))
/// ```
///
/// Columns are measured in terminal columns (``Swift/String/displayWidth``), not characters, so
/// "Geräusch", "–" and CJK titles line up. A column is as wide as its widest cell, within the
/// bounds its ``Column`` sets: a minimum keeps a listing's look when its words get shorter (another
/// language, fewer modules); past a maximum a long cell overruns instead of pushing every other
/// row to the right. The last cell of a row is never padded on the left-aligned side, so lines
/// end where their text ends.
///
/// Topics: ``Column``, ``wrappedRows(width:)``, ``lines(wrappingAt:)``, ``Console/table(_:)``
/// (wraps rows to the terminal's width unless ``cutsToTerminalWidth`` is off; piped output is
/// never wrapped).
public struct TextTable: Sendable {
    /// Where a cell sits in its column.
    public enum Alignment: Sendable {
        case left, right
    }

    /// How one column is laid out.
    public struct Column: Sendable {
        public var alignment: Alignment
        /// The narrowest the column gets, whatever its cells.
        public var minimumWidth: Int
        /// The widest the column gets; a longer cell overruns and the row continues after the gap.
        public var maximumWidth: Int?

        public init(_ alignment: Alignment = .left, minimumWidth: Int = 0, maximumWidth: Int? = nil) {
            self.alignment = alignment
            self.minimumWidth = minimumWidth
            self.maximumWidth = maximumWidth
        }

        public static let left = Column(.left)
        public static let right = Column(.right)
    }

    /// Layout per column; columns not listed are left-aligned and fit their cells.
    public var columns: [Column]
    /// A first row laid out like the others (column names).
    public var header: [String]?
    public var rows: [[String]]
    /// Spaces before every line.
    public var indent: Int
    /// Spaces between two columns.
    public var gap: Int
    /// Whether ``Console/table(_:)`` fits rows to the terminal's width; off for values that must
    /// stay whole (a data directory's path, an e-mail address), which the terminal then wraps.
    public var cutsToTerminalWidth: Bool

    public init(columns: [Column] = [], header: [String]? = nil, rows: [[String]] = [], indent: Int = 2, gap: Int = 2,
                cutsToTerminalWidth: Bool = true) {
        self.columns = columns
        self.header = header
        self.rows = rows
        self.indent = indent
        self.gap = gap
        self.cutsToTerminalWidth = cutsToTerminalWidth
    }

    /// The table's lines (``wrappedRows(width:)`` one after the other).
    public func lines(wrappingAt width: Int? = nil) -> [String] {
        wrappedRows(width: width).flatMap { $0 }
    }

    /// The table's rows, each as the lines it takes at most `width` columns wide (one line each
    /// without a width): a row too long for the width goes on below, its last cell (the one that
    /// holds free text) broken between words and continued under where that cell starts, so
    /// nothing is cut off. When the other cells leave less than ``minimumWrapWidth`` columns, the
    /// continuation starts at the table's indent instead.
    public func wrappedRows(width: Int?) -> [[String]] {
        let all = (header.map { [$0] } ?? []) + rows
        let widths = columnWidths(all)
        return all.map { cells in
            var line = String(repeating: " ", count: indent)
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let fill = String(repeating: " ", count: max(0, widths[index] - cell.displayWidth))
                if isLast, let width, column(index).alignment == .left, line.displayWidth + cell.displayWidth > width {
                    return Self.wrap(cell, after: line, width: width, indent: indent)
                }
                switch column(index).alignment {
                case .left: line += isLast ? cell : cell + fill
                case .right: line += fill + cell
                }
                if !isLast { line += String(repeating: " ", count: gap) }
            }
            guard let width, line.displayWidth > width else { return [line] }
            return Self.wrap(String(line.dropFirst(indent)), after: String(repeating: " ", count: indent), width: width, indent: indent)
        }
    }

    /// The fewest columns a wrapped cell keeps beside the others before it continues at the indent.
    public static let minimumWrapWidth = 16

    /// `text` after `lead` on lines of at most `width` columns, broken between words (a word
    /// longer than a line is broken inside), continued under the start of `text`.
    static func wrap(_ text: String, after lead: String, width: Int, indent: Int) -> [String] {
        var start = lead.displayWidth
        var first = lead
        if width - start < minimumWrapWidth {
            // Too little room beside the other cells: they keep their line, the text goes below.
            start = min(indent, max(0, width - minimumWrapWidth))
            first = ""
        }
        let room = max(1, width - start)
        var pieces: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let joined = current.isEmpty ? word : current + " " + word
            if joined.displayWidth <= room {
                current = joined
                continue
            }
            if !current.isEmpty { pieces.append(current) }
            current = ""
            var rest = word
            while rest.displayWidth > room {
                var part = ""
                for character in rest {
                    if (part + String(character)).displayWidth > room { break }
                    part.append(character)
                }
                if part.isEmpty { part = String(rest.prefix(1)) }
                pieces.append(part)
                rest = String(rest.dropFirst(part.count))
            }
            current = rest
        }
        if !current.isEmpty || pieces.isEmpty { pieces.append(current) }
        let continuation = String(repeating: " ", count: start)
        var lines = first.isEmpty ? [lead.trimmingTrailingSpaces] : []
        for (index, piece) in pieces.enumerated() {
            lines.append(index == 0 && !first.isEmpty ? first + piece : continuation + piece)
        }
        return lines
    }

    private func column(_ index: Int) -> Column {
        index < columns.count ? columns[index] : .left
    }

    private func columnWidths(_ rows: [[String]]) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        return (0..<count).map { index in
            let widest = rows.compactMap { index < $0.count ? $0[index].displayWidth : nil }.max() ?? 0
            let column = column(index)
            return min(max(widest, column.minimumWidth), column.maximumWidth ?? .max)
        }
    }
}

extension String {
    /// The text without the spaces at its end.
    var trimmingTrailingSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
