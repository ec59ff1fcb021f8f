import Foundation
import UNITICore

/// The charts of `tyt results` (thesis FR5): one per item over time, in the terminal or as one
/// SVG document. The default view shows the results chosen by ``ResultSelection`` (thesis 5.2)
/// as a line; `--by day|week` shows every result summarized per period (mean as a line, lowest
/// and highest as dots).
struct ResultCharts {
    enum View: Equatable {
        case selection
        case period(SeriesReduction.Period)
    }

    let results: [MomentaryResult]
    let view: View
    let timeZone: TimeZone
    let noise: NoiseSettings

    /// Series per chart: the eight items, and the noise level when any result has one.
    func charts() throws -> [(title: String, series: [ChartSeries], y: ChartAxis)] {
        let shown = view == .selection ? ResultSelection.select(results) : results
        var charts: [(String, [ChartSeries], ChartAxis)] = []
        for (index, item) in ResultItem.all.enumerated() {
            let points = shown.map { ChartPoint(x: $0.answeredAt.timeIntervalSince1970, y: Double($0.values[index])) }
            charts.append((item.title, series(points, name: item.title),
                           try ChartAxis(lower: item.lower, upper: item.upper)))
        }
        let offset = noise.calibrationOffset ?? 0
        let noisePoints = shown.compactMap { r in r.noiseDBFS.map { ChartPoint(x: r.answeredAt.timeIntervalSince1970, y: $0 + offset) } }
        if !noisePoints.isEmpty {
            let title = L(noise.calibrationOffset == nil ? "tyt.item.noiseDBFS" : "tyt.item.noiseSPL")
            let s = series(noisePoints, name: title)
            charts.append((title, s, try ChartAxis.fitting(s, vertical: true)))
        }
        return charts
    }

    private func series(_ points: [ChartPoint], name: String) -> [ChartSeries] {
        switch view {
        case .selection:
            return [ChartSeries(name: name, points: points)]
        case .period(let period):
            let aggregates = SeriesReduction.aggregate(points, by: period, in: timeZone)
            return SeriesReduction.series(aggregates, name: L("tyt.results.mean"),
                                          rangeNames: (L("tyt.results.lowest"), L("tyt.results.highest")))
        }
    }

    /// The date axis over every shown point (a day's width when all are at one instant).
    func timeAxis(_ charts: [(title: String, series: [ChartSeries], y: ChartAxis)]) throws -> ChartAxis {
        let xs = charts.flatMap { $0.series.flatMap { $0.points.map(\.x) } }
        guard let low = xs.min(), let high = xs.max() else { throw UNITIError(L("tyt.results.none")) }
        let padding = low == high ? 43_200.0 : 0
        return try ChartAxis(lower: low - padding, upper: high + padding, format: .date(timeZone))
    }

    func terminal(width: Int) throws -> [String] {
        let charts = try charts()
        let x = try timeAxis(charts)
        let chart = TerminalChart(width: width, height: 6)
        var lines: [String] = []
        for c in charts {
            lines += try chart.lines(c.series, x: x, y: c.y, title: c.title)
            lines.append("")
        }
        return lines
    }

    /// One SVG document with the charts stacked.
    func svg() throws -> String {
        let charts = try charts()
        let x = try timeAxis(charts)
        let width = 800, height = 300
        var body = ""
        for (index, c) in charts.enumerated() {
            var part = SVGChart(title: c.title, width: width, height: height).render(c.series, x: x, y: c.y)
            if let declaration = part.range(of: "?>\n") { part.removeSubrange(part.startIndex..<declaration.upperBound) }
            body += part.replacingOccurrences(of: "<svg xmlns=\"http://www.w3.org/2000/svg\"", with: "<svg y=\"\(index * height)\"") + "\n"
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height * charts.count)" viewBox="0 0 \(width) \(height * charts.count)">
        \(body)</svg>

        """
    }
}
