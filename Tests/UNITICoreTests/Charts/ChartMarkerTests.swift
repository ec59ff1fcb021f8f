import Foundation
import Testing
@testable import UNITICore

@Suite("Charts: reversed axes, markers, fixed colours and a legend that wraps", .timeLimit(.minutes(10)))
struct ChartMarkerTests {
    @Test("a reversed axis puts its upper end at the start: −10 at the top and 120 at the bottom of an audiogram")
    func reversedAxis() throws {
        let axis = try ChartAxis(lower: -10, upper: 120, reversed: true)
        #expect(axis.position(of: -10) == 1)
        #expect(axis.position(of: 120) == 0)
        #expect(axis.position(of: 55) == 0.5)
        let log = try ChartAxis(scale: .logarithmic, lower: 100, upper: 10_000, reversed: true)
        #expect(log.position(of: 100) == 1 && log.position(of: 1000) == 0.5 && log.position(of: 0) == nil)
        // In the terminal, the lower value's label is on a higher row.
        let series = [ChartSeries(name: "s", points: [ChartPoint(x: 0, y: 0), ChartPoint(x: 1, y: 100)])]
        let lines = try TerminalChart(width: 40, height: 6).lines(series, x: try ChartAxis(lower: 0, upper: 1),
                                                                  y: try ChartAxis(lower: 0, upper: 100, reversed: true))
        let zero = try #require(lines.firstIndex { $0.hasPrefix("  0┤") })
        let hundred = try #require(lines.firstIndex { $0.hasPrefix("100┤") })
        #expect(zero < hundred)
    }

    @Test("a series' marker appears in the cell of each point, on top of its line")
    func markers() throws {
        let x = try ChartAxis(lower: 0, upper: 10)
        let y = try ChartAxis(lower: 0, upper: 10)
        let series = [ChartSeries(name: "right", points: [ChartPoint(x: 0, y: 0), ChartPoint(x: 5, y: 5), ChartPoint(x: 10, y: 10)],
                                  marker: "O")]
        let lines = try TerminalChart(width: 30, height: 8).lines(series, x: x, y: y)
        let plot = lines.prefix(8)
        #expect(plot.map { $0.filter { $0 == "O" }.count }.reduce(0, +) == 3)
        #expect(plot.first?.hasSuffix("O") == true)   // (10, 10) at the top right
        #expect(plot.contains { $0.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) } })  // the line between
        #expect(lines.last == "O━ right")
    }

    @Test("markers of two series in one cell show the overlap marker, named in the legend; without it the later wins")
    func overlap() throws {
        let x = try ChartAxis(lower: 0, upper: 10)
        let y = try ChartAxis(lower: 0, upper: 10)
        let series = [
            ChartSeries(name: "right", points: [ChartPoint(x: 0, y: 5), ChartPoint(x: 10, y: 0)], style: .points, marker: "O"),
            ChartSeries(name: "left", points: [ChartPoint(x: 0, y: 5), ChartPoint(x: 10, y: 10)], style: .points, marker: "X"),
        ]
        let chart = TerminalChart(width: 30, height: 8)
        let shared = try chart.lines(series, x: x, y: y, overlap: ("*", "both"))
        #expect(shared.prefix(8).joined().filter { $0 == "*" }.count == 1)
        #expect(shared.last?.contains("* both") == true)
        let plain = try chart.lines(series, x: x, y: y)
        #expect(plain.prefix(8).joined().filter { $0 == "*" }.isEmpty)
        #expect(plain.prefix(8).joined().filter { $0 == "X" }.count == 2)
        #expect(plain.last?.contains("both") == false)
    }

    @Test("fixed colours: red and blue in the terminal and the SVG, whatever the series' place")
    func colours() throws {
        let x = try ChartAxis(lower: 0, upper: 10)
        let y = try ChartAxis(lower: 0, upper: 10)
        let series = [
            ChartSeries(name: "left", points: [ChartPoint(x: 2, y: 2)], style: .points, marker: "X", color: .blue),
            ChartSeries(name: "right", points: [ChartPoint(x: 8, y: 8)], style: .points, marker: "O", color: .red),
        ]
        let lines = try TerminalChart(width: 30, height: 8, colors: true).lines(series, x: x, y: y)
        let text = lines.joined(separator: "\n")
        #expect(text.contains(ChartColor.blue.ansi + "X") && text.contains(ChartColor.red.ansi + "O"))
        let svg = SVGChart(title: "t").render(series, x: x, y: y)
        #expect(svg.contains("fill=\"\(ChartColor.blue.svg)\"") && svg.contains("fill=\"\(ChartColor.red.svg)\""))
        #expect(svg.contains(">X</text>") && svg.contains(">O</text>"))
    }

    @Test("a legend wider than the chart wraps between entries instead of cutting them")
    func legendWraps() throws {
        let names = ["first series with a long name", "second long name", "third"]
        let series = names.enumerated().map { ChartSeries(name: $1, points: [ChartPoint(x: Double($0), y: 1)]) }
        let lines = try TerminalChart(width: 40, height: 4).lines(series, x: try ChartAxis(lower: 0, upper: 2),
                                                                  y: try ChartAxis(lower: 0, upper: 2))
        let legend = lines.suffix(from: 4 + 2)
        #expect(legend.count == 2)
        #expect(legend.allSatisfy { $0.count <= 40 })
        for name in names { #expect(legend.contains { $0.contains(name) }, "\(name)") }
    }
}
