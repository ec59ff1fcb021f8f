import Foundation

/// Charts drawn with Unicode characters for the terminal: line and point charts of time series
/// (braille dots), column charts over a date axis and horizontal bar charts (block
/// characters). Every line fits the given width (usually ``Console/width``), and a chart has a
/// fixed number of lines however many points it shows: 40,000 points draw as many lines as 40.
public struct TerminalChart: Sendable {
    /// Columns available, including the axis labels.
    public let width: Int
    /// Rows of the plot area (without title, axis and legend lines).
    public let height: Int
    /// ANSI colours per series (only on a terminal that shows them).
    public let colors: Bool

    public init(width: Int, height: Int = 12, colors: Bool = false) {
        self.width = width
        self.height = max(height, 2)
        self.colors = colors
    }

    /// A chart as wide as the console, in colour where the console is a terminal.
    public init(console: Console, height: Int = 12) {
        self.init(width: console.width, height: height, colors: console.isTerminal)
    }

    static let palette = ["\u{1B}[36m", "\u{1B}[33m", "\u{1B}[35m", "\u{1B}[32m", "\u{1B}[31m", "\u{1B}[34m"]
    static let reset = "\u{1B}[0m"

    // MARK: - Line and point charts

    /// A line (or point) chart of several series on shared axes.
    ///
    /// A series with a ``ChartSeries/marker`` shows that character in the cell of each of its
    /// points, on top of the dots. Where markers of different series fall into one cell, the
    /// later series' marker wins, unless `overlap` names a marker for such cells (an audiogram
    /// where both ears hear alike): then the cell shows it and the legend explains it.
    public func lines(_ series: [ChartSeries], x: ChartAxis, y: ChartAxis, title: String? = nil,
                      overlap: (marker: Character, name: String)? = nil) throws -> [String] {
        let frame = try Frame(chart: self, y: y)
        var canvas = BrailleCanvas(columns: frame.plotColumns, rows: height)
        /// Markers by cell index: the character and the series that drew it (-1 for the overlap marker).
        var markers: [Int: (character: Character, owner: Int)] = [:]
        var overlapped = false
        for (index, s) in series.enumerated() {
            var previous: (Int, Int)?
            for point in s.points {
                guard let px = x.position(of: point.x), let py = y.position(of: point.y),
                      px.isFinite, py.isFinite else { previous = nil; continue }
                let dot = (Int((min(max(px, -1), 2) * Double(canvas.dotWidth - 1)).rounded()),
                           Int(((1 - min(max(py, -1), 2)) * Double(canvas.dotHeight - 1)).rounded()))
                if s.style == .line, let previous {
                    canvas.line(from: previous, to: dot, owner: index)
                } else {
                    canvas.set(x: dot.0, y: dot.1, owner: index)
                }
                previous = dot
                if let marker = s.marker, (0..<canvas.dotWidth).contains(dot.0), (0..<canvas.dotHeight).contains(dot.1) {
                    let cell = (dot.1 / 4) * canvas.columns + dot.0 / 2
                    if let overlap, let existing = markers[cell], existing.owner != index {
                        markers[cell] = (overlap.marker, -1)
                        overlapped = true
                    } else {
                        markers[cell] = (marker, index)
                    }
                }
            }
        }
        var output: [String] = []
        if let title { output.append(fit(title)) }
        for row in 0..<height {
            var text = frame.rowPrefix(row)
            var current = -1
            for column in 0..<canvas.columns {
                let marker = markers[row * canvas.columns + column]
                let owner = marker?.owner ?? canvas.owner(column: column, row: row)
                if colors, owner != current {
                    if owner >= 0 {
                        text += color(of: series[owner], at: owner)
                    } else if current >= 0 {
                        text += Self.reset
                    }
                    current = owner
                }
                text.append(marker?.character ?? canvas.character(column: column, row: row))
            }
            if colors, current >= 0 { text += Self.reset }
            output.append(text)
        }
        output += frame.xAxisLines(x)
        if series.count > 1 || !(series.first?.name.isEmpty ?? true) {
            output += legend(series, overlap: overlapped ? overlap : nil)
        }
        return output
    }

    /// A series' own colour, else the palette's by its place.
    func color(of series: ChartSeries, at index: Int) -> String {
        series.color?.ansi ?? Self.palette[index % Self.palette.count]
    }

    // MARK: - Column charts (one bar per x, e.g. per day)

    /// Vertical bars at their x positions (e.g. one per day on a date axis). When more bars than
    /// columns are given, each column shows the mean of the bars falling into it.
    public func columns(_ bars: [ChartPoint], x: ChartAxis, y: ChartAxis, title: String? = nil) throws -> [String] {
        let frame = try Frame(chart: self, y: y)
        var sums = Array(repeating: 0.0, count: frame.plotColumns)
        var counts = Array(repeating: 0, count: frame.plotColumns)
        for bar in bars {
            guard let px = x.position(of: bar.x), (0...1).contains(px), bar.y.isFinite else { continue }
            let column = min(Int(px * Double(frame.plotColumns - 1) + 0.5), frame.plotColumns - 1)
            sums[column] += bar.y
            counts[column] += 1
        }
        let eighths = (0..<frame.plotColumns).map { column -> Int in
            guard counts[column] > 0, let py = y.position(of: sums[column] / Double(counts[column])) else { return 0 }
            return Int((min(max(py, 0), 1) * Double(height * 8)).rounded())
        }
        let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        var output: [String] = []
        if let title { output.append(fit(title)) }
        for row in 0..<height {
            let floor = (height - 1 - row) * 8
            var text = frame.rowPrefix(row)
            for column in 0..<frame.plotColumns {
                text.append(blocks[min(max(eighths[column] - floor, 0), 8)])
            }
            output.append(text)
        }
        return output + frame.xAxisLines(x)
    }

    // MARK: - Horizontal bars

    /// One labelled horizontal bar per entry, scaled to the largest value, with eighth-block
    /// precision and the value at the end. Negative values count as zero.
    public func bars(_ entries: [(label: String, value: Double)], title: String? = nil) throws -> [String] {
        let labelWidth = min(entries.map(\.label.count).max() ?? 0, max(width / 3, 1))
        let values = entries.map { ChartAxis.compact($0.value) }
        let valueWidth = values.map(\.count).max() ?? 0
        let barColumns = width - labelWidth - valueWidth - 3
        guard barColumns >= 5 else { throw UNITIError(L("charts.error.narrow", ["width": "\(width)"])) }
        let largest = entries.map(\.value).filter(\.isFinite).max() ?? 0
        let partial: [Character] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"].map { $0.first ?? " " }
        var output: [String] = []
        if let title { output.append(fit(title)) }
        for (entry, value) in zip(entries, values) {
            let eighths = largest > 0 && entry.value.isFinite ? Int((max(entry.value, 0) / largest * Double(barColumns * 8)).rounded()) : 0
            var bar = String(repeating: "█", count: eighths / 8)
            if eighths % 8 > 0 { bar.append(partial[eighths % 8]) }
            let label = String(entry.label.prefix(labelWidth))
            let padded = String(repeating: " ", count: labelWidth - label.count) + label
            output.append("\(padded) │\(bar) \(value)")
        }
        return output
    }

    // MARK: - Shared layout

    /// The value axis on the left and the date axis below, sized to the width.
    struct Frame {
        let chart: TerminalChart
        let labelWidth: Int
        let plotColumns: Int
        let rowLabels: [Int: String]

        init(chart: TerminalChart, y: ChartAxis) throws {
            self.chart = chart
            var labels: [Int: String] = [:]
            for tick in y.ticks(maximum: max(2, chart.height / 2 + 1)) {
                guard let position = y.position(of: tick), (0...1).contains(position) else { continue }
                let row = Int(((1 - position) * Double(chart.height - 1)).rounded())
                labels[row] = labels[row] ?? y.label(tick)
            }
            let labelWidth = labels.values.map(\.count).max() ?? 0
            self.labelWidth = labelWidth
            self.plotColumns = chart.width - labelWidth - 1
            self.rowLabels = labels
            guard plotColumns >= 10 else { throw UNITIError(L("charts.error.narrow", ["width": "\(chart.width)"])) }
        }

        func rowPrefix(_ row: Int) -> String {
            let label = rowLabels[row] ?? ""
            return String(repeating: " ", count: labelWidth - label.count) + label + (rowLabels[row] == nil ? "│" : "┤")
        }

        /// The axis line with tick marks, and the tick labels under it, none overlapping.
        func xAxisLines(_ x: ChartAxis) -> [String] {
            var axis = Array(String(repeating: "─", count: plotColumns))
            var labelLine = Array(repeating: Character(" "), count: chart.width)
            var freeFrom = 0
            for tick in x.ticks(maximum: max(2, plotColumns / 10)) {
                guard let position = x.position(of: tick), (0...1).contains(position) else { continue }
                let column = Int((position * Double(plotColumns - 1)).rounded())
                axis[column] = "┬"
                let label = Array(x.label(tick))
                let start = min(max(labelWidth + 1 + column - label.count / 2, 0), chart.width - label.count)
                guard start >= freeFrom, start >= 0 else { continue }
                for (i, c) in label.enumerated() { labelLine[start + i] = c }
                freeFrom = start + label.count + 1
            }
            let axisLine = String(repeating: " ", count: labelWidth) + "└" + String(axis)
            var labels = String(labelLine)
            while labels.hasSuffix(" ") { labels.removeLast() }
            return [axisLine, labels]
        }
    }

    /// The series' names with their line, dots or marker, on as many lines as the width needs
    /// (a name is never cut in the middle unless it is wider than the chart alone).
    func legend(_ series: [ChartSeries], overlap: (marker: Character, name: String)? = nil) -> [String] {
        var entries: [(symbol: String, color: String?, name: String)] = series.enumerated().map { index, s in
            let line = s.style == .line ? "━━" : "··"
            let symbol = s.marker.map { s.style == .line ? "\($0)━" : "\($0)" } ?? line
            return (symbol, color(of: s, at: index), s.name)
        }
        if let overlap { entries.append(("\(overlap.marker)", nil, overlap.name)) }
        var lines: [String] = []
        var plain = ""
        var coloured = ""
        for entry in entries {
            let text = "\(entry.symbol) \(entry.name)"
            if !plain.isEmpty, plain.displayWidth + 2 + text.displayWidth > width {
                lines.append(colors ? coloured : fit(plain))
                plain = ""
                coloured = ""
            }
            if !plain.isEmpty { plain += "  "; coloured += "  " }
            plain += text
            let symbol = entry.color.map { $0 + entry.symbol + Self.reset } ?? entry.symbol
            coloured += "\(symbol) \(entry.name)"
        }
        if !plain.isEmpty { lines.append(colors ? coloured : fit(plain)) }
        return lines
    }

    func fit(_ text: String) -> String {
        text.truncated(toDisplayWidth: width)
    }
}
