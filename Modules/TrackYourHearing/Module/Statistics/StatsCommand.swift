import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyh stats [--svg FILE] [--json]` (thesis FR8): how many hearing questionnaires the person
/// completed, from every device, and when the last ten were filled, as a table and a small
/// chart of the first numeric answer (how much the hearing loss got in the way).
struct StatsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "stats", abstract: L("tyh.stats.abstract"))
    }

    @Option(name: .customLong("svg"), help: ArgumentHelp(L("tyh.stats.svg"), valueName: "FILE")) var svgPath: String?
    @OptionGroup var output: JSONOutput

    init() {}

    struct Entry: Encodable {
        let finishedAt: String
        /// The first numeric answer of the sheet, with its item's label.
        let label: String?
        let value: Double?
    }

    struct Statistics: Encodable {
        let completed: Int
        let lastTen: [Entry]
    }

    static func statistics(_ context: ModuleContext) throws -> (Statistics, [(Date, Double)]) {
        let sheets = try context.studyQuestionnaires.sheets()  // newest first, every device
        let service = context.studyQuestionnaires
        var entries: [Entry] = []
        var points: [(Date, Double)] = []
        for stored in sheets.prefix(10) {
            let sheet = stored.sheet
            let finished = sheet.endedAt ?? sheet.startedAt
            let definition = try service.definition(answeredBy: sheet) ?? (try? QuestionnaireLoader.bundled(sheet.questionnaireID))
            let item = definition?.questions.first { item in
                if case .slider = item.element { return sheet.answers[item.label]?.value.number != nil }
                return false
            }
            let value = item.flatMap { sheet.answers[$0.label]?.value.number }
            entries.append(Entry(finishedAt: finished.text, label: item?.label, value: value))
            if let value { points.append((finished.date, value)) }
        }
        return (Statistics(completed: sheets.count, lastTen: entries), points.reversed())
    }

    func run(in context: ModuleContext) throws {
        let (statistics, points) = try Self.statistics(context)
        if output.isRequested(in: context) {
            try context.console.json(statistics)
            return
        }
        let console = context.console
        console.line(L("tyh.stats.completed", ["count": "\(statistics.completed)"]))
        guard !statistics.lastTen.isEmpty else { return }
        console.line(L("tyh.stats.lastTen", count: statistics.lastTen.count))
        console.table(TextTable(columns: [.left, .right], rows: statistics.lastTen.map { entry in
            return [OffsetTimestamp.minuteText(entry.finishedAt), entry.value.map { String(format: "%.0f %%", $0) } ?? "—"]
        }))
        guard !points.isEmpty else { return }
        let series = [ChartSeries(name: L("tyh.stats.series"), points: points.map { ChartPoint(x: $0.0.timeIntervalSince1970, y: $0.1) },
                                  style: .points)]
        let low = points.first!.0.timeIntervalSince1970, high = points.last!.0.timeIntervalSince1970
        let padding = low == high ? 43_200.0 : (high - low) * 0.02
        let x = try ChartAxis(lower: low - padding, upper: high + padding, format: .date(context.clock.timeZone))
        let y = try ChartAxis(lower: 0, upper: 100)
        if let svgPath {
            do {
                try SVGChart(title: L("tyh.stats.series")).render(series, x: x, y: y).write(toFile: svgPath, atomically: true, encoding: .utf8)
            } catch {
                throw UNITIError(L("tyh.stats.cannotWrite", ["path": svgPath]))
            }
            console.line(L("tyh.stats.svgWritten", ["path": svgPath]))
            return
        }
        for line in try TerminalChart(width: min(console.width, 72), height: 5).lines(series, x: x, y: y, title: L("tyh.stats.series")) {
            console.line(line)
        }
    }
}
