import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tys results [ID] [--label L] [--by day|week|month] [--svg FILE] [--json]` (thesis FR18): the
/// person's values of one item over time as a chart, and beside it the comparison with all
/// participants of the study from the server (own mean, everyone's mean, one sentence placing
/// the person). Without a server, a login or enough participants, one line says so and the
/// chart still shows.
struct ResultsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "results", abstract: L("tys.results.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tys.results.id"), valueName: "ID")) var id: String?
    @Option(name: .customLong("label"), help: ArgumentHelp(L("tys.results.label"), valueName: "L")) var label: String?
    @Option(name: .customLong("by"), help: ArgumentHelp(L("tys.results.by"), valueName: "day|week|month"))
    var period: SeriesReduction.Period?
    @Option(name: .customLong("svg"), help: ArgumentHelp(L("tys.results.svg"), valueName: "FILE")) var svgPath: String?
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let series = try StressSeries.load(context, id: id, label: label)
        let comparison = ComparisonLookup.fetch(context, series: series)
        let text = QuestionnaireText(localizer: context.localizer)
        if output.isRequested(in: context) {
            try context.console.json(ResultsJSON(series: series, period: period, comparison: comparison,
                                                 timeZone: context.clock.timeZone))
            return
        }
        let itemName = text.text(series.item.text)
        context.console.line(L("tys.results.header", count: series.values.count, [
            "item": itemName, "label": series.item.label, "title": text.text(series.questionnaire.definition.title),
        ]))
        if series.values.isEmpty {
            context.console.line(L("tys.results.none"))
        } else {
            let chart = try StressChart(series: series, period: period, timeZone: context.clock.timeZone, title: itemName)
            if let svgPath {
                do {
                    try chart.svg().write(toFile: svgPath, atomically: true, encoding: .utf8)
                } catch {
                    throw UNITIError(L("tys.results.cannotWrite", ["path": svgPath]))
                }
                context.console.line(L("tys.results.svgWritten", ["path": svgPath]))
            } else {
                for line in try chart.terminal(width: context.console.width) { context.console.line(line) }
            }
        }
        for line in comparison.lines(label: series.item.label) { context.console.line(line) }
    }
}

/// The chart of a series: every value as a line, or per day/week/month the mean as a line with
/// the lowest and highest values as dots.
struct StressChart {
    let series: [ChartSeries]
    let x: ChartAxis
    let y: ChartAxis
    let title: String

    init(series stress: StressSeries, period: SeriesReduction.Period?, timeZone: TimeZone, title: String) throws {
        let points = stress.values.map { ChartPoint(x: $0.0.timeIntervalSince1970, y: $0.1) }
        if let period {
            series = SeriesReduction.series(SeriesReduction.aggregate(points, by: period, in: timeZone),
                                            name: L("tys.results.mean"),
                                            rangeNames: (L("tys.results.lowest"), L("tys.results.highest")))
        } else {
            series = [ChartSeries(name: title, points: points)]
        }
        let xs = series.flatMap { $0.points.map(\.x) }
        let low = xs.min() ?? 0, high = xs.max() ?? 0
        let padding = low == high ? 43_200.0 : 0
        x = try ChartAxis(lower: low - padding, upper: high + padding, format: .date(timeZone))
        let bounds = stress.bounds
        y = try ChartAxis(lower: bounds.min, upper: bounds.max)
        self.title = title
    }

    func terminal(width: Int) throws -> [String] {
        try TerminalChart(width: width, height: 8).lines(series, x: x, y: y, title: title)
    }

    func svg() -> String {
        SVGChart(title: title).render(series, x: x, y: y)
    }
}

/// The comparison with all participants, or why there is none.
enum ComparisonLookup {
    case report(ComparisonReport)
    case unavailable(String)

    static func fetch(_ context: ModuleContext, series: StressSeries) -> ComparisonLookup {
        do {
            guard try context.sessions.current() != nil else { return .unavailable(L("tys.compare.notLoggedIn")) }
            var query = [URLQueryItem(name: "questionnaire", value: series.questionnaire.id),
                         URLQueryItem(name: "label", value: series.item.label)]
            // The period of the person's own sheets, by their start as the server counts them (the
            // chart's times are when they were finished, which may be a second or more later).
            if let first = series.firstStarted {
                query.append(URLQueryItem(name: "from", value: OffsetTimestamp.utcMilliseconds(first)))
                query.append(URLQueryItem(name: "to", value: OffsetTimestamp.utcMilliseconds(context.clock.now.addingTimeInterval(1))))
            }
            let report: ComparisonReport = try context.apiClient().send("GET", "comparison", query: query)
            return .report(report)
        } catch let error as APIError {
            return .unavailable(L("tys.compare.failed", ["reason": error.message]))
        } catch let error as UNITIError {
            return .unavailable(L("tys.compare.failed", ["reason": error.message]))
        } catch {
            return .unavailable(L("tys.compare.failed", ["reason": "\(error)"]))
        }
    }

    /// The lines under the chart.
    func lines(label: String) -> [String] {
        switch self {
        case .unavailable(let reason):
            return [reason]
        case .report(let report):
            guard report.available, let own = report.ownMean, let all = report.allParticipantsMean,
                  let percentile = report.percentile else {
                if report.reason == "no_own_answers" { return [L("tys.compare.noOwnAnswers")] }
                return [L("tys.compare.tooFew", ["count": "\(report.participants)", "minimum": "\(report.minimumParticipants)"])]
            }
            let share = Int(percentile.rounded())
            let reading = share >= 50
                ? L("tys.compare.higher", ["label": label, "percent": "\(share)"])
                : L("tys.compare.lower", ["label": label, "percent": "\(100 - share)"])
            return [L("tys.compare.means", count: report.participants, [
                "own": CurrentLanguage.value.number(own, fractionDigits: 1), "all": CurrentLanguage.value.number(all, fractionDigits: 1),
            ]), reading]
        }
    }
}

/// `tys results --json`.
struct ResultsJSON: Encodable {
    struct Point: Encodable {
        let at: String
        let value: Double
    }
    struct Period: Encodable {
        let start: String
        let mean: Double
        let lowest: Double
        let highest: Double
        let count: Int
    }

    let questionnaire: String
    let label: String
    let values: [Point]
    let by: String?
    let periods: [Period]?
    let ownMean: Double?
    let comparison: ComparisonReport?
    let comparisonUnavailable: String?

    init(series: StressSeries, period: SeriesReduction.Period?, comparison: ComparisonLookup, timeZone: TimeZone) {
        questionnaire = series.questionnaire.id
        label = series.item.label
        values = series.values.map { Point(at: OffsetTimestamp($0.0, in: timeZone).text, value: $0.1) }
        by = period?.rawValue
        periods = period.map { period in
            SeriesReduction.aggregate(series.values.map { ChartPoint(x: $0.0.timeIntervalSince1970, y: $0.1) }, by: period, in: timeZone)
                .map { Period(start: OffsetTimestamp($0.start, in: timeZone).text, mean: $0.mean, lowest: $0.minimum,
                              highest: $0.maximum, count: $0.count) }
        }
        ownMean = series.ownMean
        switch comparison {
        case .report(let report):
            self.comparison = report
            comparisonUnavailable = nil
        case .unavailable(let reason):
            self.comparison = nil
            comparisonUnavailable = reason
        }
    }
}
