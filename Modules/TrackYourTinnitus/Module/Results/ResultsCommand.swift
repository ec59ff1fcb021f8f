import ArgumentParser
import Foundation
import UNITICore

/// `tyt results`: the person's check-ins over time (thesis FR5).
struct ResultsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "results", abstract: L("tyt.results.abstract"))
    }

    @Option(name: .customLong("by"), help: ArgumentHelp(L("tyt.results.by"), valueName: "day|week"))
    var period: SeriesReduction.Period?
    @Option(name: .customLong("svg"), help: ArgumentHelp(L("tyt.results.svg"), valueName: "FILE"))
    var svgPath: String?
    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let view = period.map { ResultCharts.View.period($0) } ?? .selection
        let store = ResultStore(database: context.database)
        let noise = try NoiseSettings.load(context)
        if output.isRequested(in: context) {
            context.console.line(ResultExport(try store.all(), calibrationOffset: noise.calibrationOffset).render())
            return
        }
        // The default view shows at most the latest 160 (thesis 5.2), so only those are read.
        let total = try store.count()
        let results = view == .selection ? try store.latest(ResultSelection.consideredMaximum) : try store.all()
        guard !results.isEmpty else {
            context.console.line(L("tyt.results.none"))
            return
        }
        let charts = ResultCharts(results: results, view: view, timeZone: context.clock.timeZone, noise: noise)
        if let svgPath {
            do {
                try charts.svg().write(toFile: svgPath, atomically: true, encoding: .utf8)
            } catch let error as UNITIError {
                throw error
            } catch {
                throw UNITIError(L("tyt.results.cannotWrite", ["path": svgPath]))
            }
            context.console.line(L("tyt.results.svgWritten", count: total, ["path": svgPath]))
            return
        }
        let shown = view == .selection ? ResultSelection.select(results).count : results.count
        context.console.line(L("tyt.results.header", count: total, ["shown": "\(shown)"]))
        for line in try charts.terminal(width: context.console.width) { context.console.line(line) }
    }
}
