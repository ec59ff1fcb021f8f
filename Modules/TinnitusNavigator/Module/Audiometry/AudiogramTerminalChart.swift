import Foundation
import UNITICore

/// An audiogram in the terminal through the core's charts: frequency on a logarithmic axis,
/// hearing level downwards (a reversed axis), the right ear as O and the left as X, each ear
/// joined by a line, thresholds of discomfort as U, a tinnitus as ~ at its pitch and loudness,
/// and a legend; red and blue where the terminal shows colours. One ear alone where asked.
struct AudiogramTerminalChart {
    let chart: TerminalChart

    /// Rows of the plot: about 9 dB a row, enough to tell 5 dB steps apart by the dots.
    static let height = 15

    func lines(_ audiogram: Audiogram, ear: Ear? = nil) throws -> [String] {
        let plot = AudiogramPlot(audiogram, ear: ear)
        let geometry = AudiogramGeometry(frequencies: plot.frequencies)
        let x = try ChartAxis(scale: .logarithmic, lower: geometry.lowestHz, upper: geometry.highestHz, format: .hertz,
                              ticks: geometry.octaveFrequencies)
        let y = try ChartAxis(lower: AudiogramGeometry.topLevel, upper: AudiogramGeometry.bottomLevel,
                              ticks: stride(from: 0.0, through: 120, by: 20).map { $0 }, reversed: true)
        func chartPoints(_ points: [AudiogramPlot.Point]) -> [ChartPoint] { points.map { ChartPoint(x: $0.hz, y: $0.db) } }
        var series = plot.sides.map { side in
            side == .right
                ? ChartSeries(name: L("tn.audiogram.picture.right"), points: chartPoints(plot.thresholds[.right] ?? []),
                              marker: "O", color: .red)
                : ChartSeries(name: L("tn.audiogram.picture.left"), points: chartPoints(plot.thresholds[.left] ?? []),
                              marker: "X", color: .blue)
        }
        for (side, name) in [(AudiogramPlot.Side.right, L("tn.audiogram.chart.discomfortRight")),
                             (.left, L("tn.audiogram.chart.discomfortLeft"))] {
            let points = plot.discomfort[side] ?? []
            if !points.isEmpty {
                series.append(ChartSeries(name: name, points: chartPoints(points), style: .points, marker: "U",
                                          color: side == .right ? .red : .blue))
            }
        }
        for mark in plot.tinnitus {
            let name = mark.side == .right ? L("tn.audiogram.chart.tinnitusRight") : L("tn.audiogram.chart.tinnitusLeft")
            series.append(ChartSeries(name: name, points: [ChartPoint(x: mark.hz, y: mark.db ?? AudiogramGeometry.topLevel)],
                                      style: .points, marker: "~", color: mark.side == .right ? .red : .blue))
        }
        return try chart.lines(series, x: x, y: y, title: plot.labels.title,
                               overlap: plot.sides.count > 1 ? ("*", L("tn.audiogram.chart.overlap")) : nil)
    }
}
