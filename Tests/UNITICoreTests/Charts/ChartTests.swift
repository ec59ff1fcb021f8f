import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import UNITICore

@Suite("Terminal and SVG charts", .timeLimit(.minutes(10)))
struct ChartTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let start = LocalDate(year: 2026, month: 1, day: 1).startInstant(in: zone).timeIntervalSince1970

    /// A year of momentary ratings: 40,000 points, about 110 a day, a slow wave plus noise.
    static func yearOfRatings(count: Int = 40_000) -> [ChartPoint] {
        let random = SeededRandomSource(seed: 8)
        let step = 365 * 86_400 / Double(count)
        return (0..<count).map { i in
            let x = start + Double(i) * step
            let y = 50 + 30 * sin(Double(i) / Double(count) * 6 * .pi) + Double(random.integer(in: -10...10))
            return ChartPoint(x: x, y: y)
        }
    }

    @Test("a line chart never exceeds the width and has value and date labels", arguments: [40, 60, 80, 132])
    func lineChartFitsWidth(width: Int) throws {
        let series = [ChartSeries(name: "loudness", points: Self.yearOfRatings(count: 2000))]
        let x = try ChartAxis.fitting(series, vertical: false, format: .date(Self.zone))
        let y = try ChartAxis(lower: 0, upper: 100)
        let lines = try TerminalChart(width: width, height: 10).lines(series, x: x, y: y, title: "Tinnitus loudness over the year 2026")
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        // Value labels on the left, the axis line and date labels below, the legend last.
        #expect(lines.contains { $0.hasPrefix("100┤") })
        #expect(lines.contains { $0.hasPrefix("  0┤") })
        #expect(lines.contains { $0.contains("└") && $0.contains("┬") })
        let dateLine = lines[lines.count - 2]
        #expect(dateLine.range(of: #"\d\d-\d\d|2026-\d\d"#, options: .regularExpression) != nil, "\(dateLine)")
        #expect(lines.last?.contains("loudness") == true)
        // The braille area is not empty.
        #expect(lines.contains { $0.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) } })
    }

    @Test("40,000 points render into a bounded number of lines, directly or reduced")
    func fortyThousandPoints() throws {
        let points = Self.yearOfRatings()
        #expect(points.count == 40_000)
        let chart = TerminalChart(width: 80, height: 12)
        let y = try ChartAxis(lower: 0, upper: 100)

        let raw = [ChartSeries(name: "all", points: points)]
        let x = try ChartAxis.fitting(raw, vertical: false, format: .date(Self.zone))
        let direct = try chart.lines(raw, x: x, y: y)
        #expect(direct.count == 12 + 3)
        #expect(direct.allSatisfy { $0.count <= 80 })

        let thinned = SeriesReduction.minMaxPerColumn(points, columns: 77)
        #expect(thinned.count <= 2 * 77)
        #expect(thinned.contains { $0.y == points.map(\.y).max() })  // the peak survives
        let everyKth = SeriesReduction.everyKth(points, k: 100)
        #expect(everyKth.count == 401)  // indices 0, 100, ..., 39,900 and the last point
        #expect(everyKth.last == points.last)

        let daily = SeriesReduction.aggregate(points, by: .day, in: Self.zone)
        #expect(daily.count == 365)
        #expect(daily.reduce(0) { $0 + $1.count } == 40_000)
        #expect(daily.allSatisfy { $0.minimum <= $0.mean && $0.mean <= $0.maximum })
        let weekly = SeriesReduction.aggregate(points, by: .week, in: Self.zone)
        #expect((52...54).contains(weekly.count))
        let series = SeriesReduction.series(daily, name: "daily mean", rangeNames: ("lowest", "highest"))
        let aggregated = try chart.lines(series, x: x, y: y, title: "Daily mean and range")
        #expect(aggregated.count == 1 + 12 + 3)
        #expect(aggregated.allSatisfy { $0.count <= 80 })
    }

    @Test("column and bar charts fit the width and show their scale")
    func columnsAndBars() throws {
        let bars = (0..<30).map { ChartPoint(x: Self.start + Double($0) * 86_400, y: Double($0 % 7)) }
        let x = try ChartAxis(lower: bars.first!.x, upper: bars.last!.x, format: .date(Self.zone))
        let y = try ChartAxis(lower: 0, upper: 6)
        for width in [30, 50, 80] {
            let lines = try TerminalChart(width: width, height: 6).columns(bars, x: x, y: y, title: "Answers per day")
            #expect(lines.allSatisfy { $0.count <= width })
            #expect(lines.contains { $0.contains("█") })
            #expect(lines.last?.contains("01-") == true)
        }
        let entries: [(label: String, value: Double)] = [("pink noise", 42), ("rain", 12.5), ("a very long name of a sound", 3)]
        let rows = try TerminalChart(width: 40).bars(entries)
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.count <= 40 })
        #expect(rows[0].hasSuffix(" 42") && rows[1].hasSuffix(" 12.5"))
        // The longest bar belongs to the largest value.
        let lengths = rows.map { $0.filter { "█▏▎▍▌▋▊▉".contains($0) }.count }
        #expect(lengths[0] > lengths[1] && lengths[1] > lengths[2])
        #expect(throws: UNITIError.self) { try TerminalChart(width: 8).bars(entries) }
    }

    @Test("a logarithmic axis places the audiometric frequencies an octave apart")
    func logAxis() throws {
        let frequencies: [Double] = [125, 250, 500, 1000, 2000, 4000, 8000]
        let axis = try ChartAxis(scale: .logarithmic, lower: 125, upper: 8000, format: .hertz, ticks: frequencies)
        let positions = frequencies.map { axis.position(of: $0)! }
        #expect(abs(positions.first! - 0) < 1e-12 && abs(positions.last! - 1) < 1e-12)
        for (a, b) in zip(positions, positions.dropFirst()) {
            #expect(abs((b - a) - 1.0 / 6) < 1e-9)  // six octaves, equally spaced
        }
        #expect(axis.label(125) == "125 Hz" && axis.label(1000) == "1 kHz" && axis.label(8000) == "8 kHz")
        #expect(axis.position(of: 0) == nil)
        #expect(throws: UNITIError.self) { try ChartAxis(scale: .logarithmic, lower: 0, upper: 10) }
        // Automatic log ticks are powers of ten (with 2 and 5 over few decades).
        let automatic = try ChartAxis(scale: .logarithmic, lower: 1, upper: 100_000).ticks(maximum: 8)
        #expect(automatic == [1, 10, 100, 1000, 10_000, 100_000])
        #expect(try ChartAxis(scale: .logarithmic, lower: 100, upper: 1000).ticks(maximum: 8) == [100, 200, 500, 1000])

        // In the terminal, the 1 kHz tick of an audiogram sits halfway between 125 Hz and 8 kHz.
        let audiogram = [ChartSeries(name: "left ear", points: frequencies.map { ChartPoint(x: $0, y: 20) })]
        let lines = try TerminalChart(width: 61, height: 6).lines(audiogram, x: axis, y: try ChartAxis(lower: 0, upper: 100))
        let axisLine = lines[6]
        let ticks = axisLine.enumerated().filter { $0.element == "┬" }.map(\.offset)
        #expect(ticks.count == 7)
        let gaps = zip(ticks, ticks.dropFirst()).map { $1 - $0 }
        #expect(gaps.max()! - gaps.min()! <= 1)
    }

    @Test("linear and date ticks are nice and inside the range")
    func ticks() throws {
        #expect(try ChartAxis(lower: 0, upper: 100).ticks(maximum: 6) == [0, 20, 40, 60, 80, 100])
        #expect(try ChartAxis(lower: -1, upper: 1).ticks(maximum: 5) == [-1, -0.5, 0, 0.5, 1])
        let day = LocalDate(year: 2026, month: 3, day: 29)
        let dayAxis = try ChartAxis(lower: day.startInstant(in: Self.zone).timeIntervalSince1970,
                                    upper: day.adding(days: 1).startInstant(in: Self.zone).timeIntervalSince1970,
                                    format: .date(Self.zone))
        #expect(dayAxis.ticks(maximum: 5).map(dayAxis.label) == ["00:00", "06:00", "12:00", "18:00", "00:00"])
        let year = try ChartAxis(lower: Self.start, upper: Self.start + 364 * 86_400, format: .date(Self.zone))
        #expect(year.ticks(maximum: 12).map(year.label).first == "01-01")
        #expect(year.ticks(maximum: 12).count == 12)
    }

    @Test("the SVG is well-formed XML with title, axes, tick labels, legend and every series")
    func svgIsWellFormed() throws {
        let points = Self.yearOfRatings(count: 40_000)
        let series = [
            ChartSeries(name: "ratings <raw> & \"all\"", points: points),
            ChartSeries(name: "daily mean", points: SeriesReduction.aggregate(points, by: .day, in: Self.zone)
                .map { ChartPoint(x: $0.start.timeIntervalSince1970, y: $0.mean) }, style: .points),
        ]
        let x = try ChartAxis.fitting(series, vertical: false, format: .date(Self.zone), title: "date")
        let y = try ChartAxis(lower: 0, upper: 100, title: "loudness")
        let svg = SVGChart(title: "Tinnitus & stress: 2026").render(series, x: x, y: y)

        final class Collector: NSObject, XMLParserDelegate {
            var elements: [String: Int] = [:]
            var texts: [String] = []
            var current = ""
            var polylinePoints: [Int] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                        qualifiedName: String?, attributes: [String: String] = [:]) {
                elements[name, default: 0] += 1
                current = ""
                if name == "polyline" { polylinePoints.append(attributes["points"]?.split(separator: " ").count ?? 0) }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                if name == "text" || name == "title" { texts.append(current) }
                current = ""
            }
        }
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(collector.elements["svg"] == 1)
        #expect(collector.texts.contains("Tinnitus & stress: 2026"))
        #expect(collector.texts.contains("ratings <raw> & \"all\""))  // legend, escaped and read back
        #expect(collector.texts.contains("daily mean"))
        #expect(collector.texts.contains("loudness") && collector.texts.contains("date"))
        #expect(collector.texts.contains("100") && collector.texts.contains("0"))
        #expect(collector.texts.contains { $0.range(of: #"^\d\d-\d\d$"#, options: .regularExpression) != nil })
        #expect(collector.polylinePoints == [40_000])
        #expect(collector.elements["circle"] == 365)
    }

    @Test("an SVG audiogram puts its frequency ticks an octave apart")
    func svgLogTicks() throws {
        let frequencies: [Double] = [125, 250, 500, 1000, 2000, 4000, 8000]
        let x = try ChartAxis(scale: .logarithmic, lower: 125, upper: 8000, format: .hertz, ticks: frequencies)
        let svg = SVGChart(title: "Audiogram", width: 700, height: 400)
            .render([ChartSeries(name: "right", points: frequencies.map { ChartPoint(x: $0, y: 30) })], x: x,
                    y: try ChartAxis(lower: 0, upper: 120))
        // Tick labels carry their x position; consecutive octaves are equally far apart.
        let pattern = #"<text class="tick" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle"[^>]*>([^<]+)</text>"#
        let regex = try NSRegularExpression(pattern: pattern)
        let matches = regex.matches(in: svg, range: NSRange(svg.startIndex..., in: svg))
        let ticks = matches.map { m -> (Double, String) in
            (Double(svg[Range(m.range(at: 1), in: svg)!])!, String(svg[Range(m.range(at: 2), in: svg)!]))
        }
        #expect(ticks.map(\.1) == ["125 Hz", "250 Hz", "500 Hz", "1 kHz", "2 kHz", "4 kHz", "8 kHz"])
        let gaps = zip(ticks, ticks.dropFirst()).map { $1.0 - $0.0 }
        #expect(gaps.allSatisfy { abs($0 - gaps[0]) < 0.02 })
    }
}
