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
/// Topics: ``Column``, ``lines(fittingWidth:)``, ``Console/table(_:)`` (cuts lines to the
/// terminal's width unless ``cutsToTerminalWidth`` is off; piped output is never cut).
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
    /// Whether ``Console/table(_:)`` cuts lines to the terminal's width; off for values that must
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

    /// The table's lines; with a width, each line longer than it is cut with "…" (which cuts the
    /// last column, the one that holds the free text).
    public func lines(fittingWidth width: Int? = nil) -> [String] {
        let all = (header.map { [$0] } ?? []) + rows
        let widths = columnWidths(all)
        return all.map { cells in
            var line = String(repeating: " ", count: indent)
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let fill = String(repeating: " ", count: max(0, widths[index] - cell.displayWidth))
                switch column(index).alignment {
                case .left: line += isLast ? cell : cell + fill
                case .right: line += fill + cell
                }
                if !isLast { line += String(repeating: " ", count: gap) }
            }
            guard let width else { return line }
            return line.truncated(toDisplayWidth: width)
        }
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
