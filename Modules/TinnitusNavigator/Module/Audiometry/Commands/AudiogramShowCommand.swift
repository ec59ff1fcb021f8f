import ArgumentParser
import Foundation
import UNITICore

extension AudiogramCommand {
    /// `tn audiogram show ID [--ear left|right] [--compare OTHER] [--svg FILE] [--json]`: the
    /// diagram with both ears (or one, thesis FR11: a diagram per ear), the thresholds,
    /// averages and grade, the tinnitus, and how hearing changed since the audiogram before it
    /// (or since `OTHER`).
    struct Show: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "show", abstract: L("tn.audiogram.show.abstract"))
        }

        @Argument(help: ArgumentHelp(L("tn.audiogram.idHelp"), valueName: "id")) var id: String
        @Option(help: ArgumentHelp(L("tn.audiogram.show.earHelp"), valueName: Ear.allValueStrings.joined(separator: "|"))) var ear: Ear?
        @Option(help: ArgumentHelp(L("tn.audiogram.show.compareHelp"), valueName: "id")) var compare: String?
        @Option(help: ArgumentHelp(L("tn.audiogram.show.svgHelp"), valueName: "file")) var svg: String?
        @OptionGroup var output: JSONOutput

        struct Report: Encodable {
            let audiogram: AudiogramSummary
            let comparison: AudiogramComparison?
        }

        func run(in context: ModuleContext) throws {
            let audiogram = try AudiogramCommand.find(id, in: context)
            let other: Audiogram?
            if let compare {
                other = try AudiogramCommand.find(compare, in: context)
            } else {
                other = AudiogramComparison.previous(of: audiogram, among: try AudiogramCommand.all(in: context))
            }
            let comparison = other.flatMap { $0.id == audiogram.id ? nil : AudiogramComparison($0, audiogram) }
            if let svg {
                let plot = AudiogramPlot(audiogram, ear: ear)
                try ExportFile.write(AudiogramSVG(fitting: plot).document(plot), to: svg)
            }
            if output.isRequested(in: context) {
                try context.console.json(Report(audiogram: AudiogramSummary(audiogram), comparison: comparison))
                return
            }
            let console = context.console
            for line in try AudiogramTerminalChart(chart: TerminalChart(console: console, height: AudiogramTerminalChart.height))
                .lines(audiogram, ear: ear) {
                console.line(line)
            }
            console.line()
            console.line(L("tn.audiogram.show.header", ["id": HealthRecordID.short(audiogram.id), "date": audiogram.date]))
            // One ear asked for is one ear throughout: the table, the average, the tinnitus and
            // the comparison (thesis FR11); the grade by the better ear needs both.
            let ears = self.ear.map { [$0] } ?? [Ear.right, .left]
            let table = AudiogramText.thresholdRows(audiogram, ears: ears)
            console.table(TextTable(columns: Array(repeating: .right, count: table.header.count), header: table.header, rows: table.rows))
            if let ear = self.ear {
                console.line(L("tn.audiogram.show.averageEar", ["ear": ear.title, "average": AudiogramText.average(audiogram, ear: ear)]))
            } else {
                console.line(L("tn.audiogram.show.averages", ["right": AudiogramText.average(audiogram, ear: .right),
                                                              "left": AudiogramText.average(audiogram, ear: .left)]))
                console.line(L("tn.audiogram.show.grade", ["grade": AudiogramText.overallGrade(audiogram)]))
            }
            for ear in ears {
                if let tinnitus = AudiogramText.tinnitus(audiogram, ear: ear) {
                    console.line(L("tn.audiogram.show.tinnitus", ["ear": ear.title, "text": tinnitus]))
                }
            }
            if let note = audiogram.note { console.line(L("tn.audiogram.show.note", ["note": note])) }
            if let comparison { Self.show(comparison, ears: ears, on: console) }
            if let svg { console.line(L("tn.audiogram.show.svgWritten", ["path": svg])) }
        }

        /// The change per frequency and ear, and of each ear's average, for `ears`.
        static func show(_ comparison: AudiogramComparison, ears: [Ear] = [.right, .left], on console: Console) {
            console.line()
            console.line(L("tn.audiogram.compare.header", [
                "before": comparison.beforeDate, "beforeID": HealthRecordID.short(comparison.beforeID),
                "after": comparison.afterDate, "afterID": HealthRecordID.short(comparison.afterID),
            ]))
            let header = [L("tn.audiogram.column.hz")] + ears.flatMap { [$0.columnTitle, L("tn.audiogram.column.change")] }
            let rows = comparison.rows.map { row -> [String] in
                ["\(row.hz)"] + ears.flatMap { ear -> [String] in
                    let change = ear == .left ? row.left : row.right
                    return ["\(AudiogramText.level(change.before)) → \(AudiogramText.level(change.after))",
                            AudiogramText.change(change.change.map(Double.init))]
                }
            }
            console.table(TextTable(columns: Array(repeating: .right, count: header.count), header: header, rows: rows))
            if ears.count == 1, let ear = ears.first {
                let change = ear == .left ? comparison.ptaChangeLeft : comparison.ptaChangeRight
                console.line(L("tn.audiogram.compare.averageEar", ["ear": ear.title, "change": AudiogramText.change(change)]))
            } else {
                console.line(L("tn.audiogram.compare.averages", ["right": AudiogramText.change(comparison.ptaChangeRight),
                                                                 "left": AudiogramText.change(comparison.ptaChangeLeft)]))
            }
            console.line(L("tn.audiogram.compare.meaning"))
        }
    }
}

/// `--ear left|right` (`links|rechts`: every language's word is understood, help lists the
/// current language's).
extension Ear: LocalizedArgumentWords {
    public static var wordsKey: String { "tn.ear" }
}
