import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `adherence [--days N] [--json]`: how the person answered their prompts, of every module, per
/// day and overall, with a small calendar heat-map (``AdherenceReport``).
struct AdherenceCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "adherence", abstract: L("adherence.abstract"))
    }

    @Option(help: ArgumentHelp(L("adherence.option.days"))) var days = 14
    @OptionGroup var output: JSONOutput

    func run(in shell: Shell) throws {
        guard (1...366).contains(days) else { throw UNITIError(L("adherence.error.days", ["days": "\(days)"])) }
        let clock = shell.services.clock
        let report = try AdherenceReport.make(PromptLog(database: shell.services.database, clock: clock), at: clock.now,
                                              in: clock.timeZone, days: days)
        if output.isRequested(in: shell.services) { return try shell.console.json(report) }
        let l = shell.localizer
        guard report.overall.delivered + report.overall.withdrawn > 0 else { return shell.console.line(l("adherence.none")) }
        // The calendar: one row per week, Monday first, a cell per day.
        let weekdays = Weekday.allCases.sorted { $0.rawValue < $1.rawValue }
        shell.console.line("  " + weekdays.map { String($0.localizedName.prefix(2)) }.joined(separator: " "))
        let dates = report.days.compactMap { try? LocalDate(parsing: $0.date) }
        var line = "  " + String(repeating: "   ", count: (dates.first?.weekday.rawValue ?? 1) - 1)
        for (date, day) in zip(dates, report.days) {
            line += AdherenceReport.cell(day.counts) + "  "
            if date.weekday.rawValue == 7 { shell.console.line(line); line = "  " }
        }
        if line.trimmingCharacters(in: .whitespaces) != "" { shell.console.line(line) }
        shell.console.line(l("adherence.legend"))
        let header = [l("adherence.column.day"), l("adherence.column.delivered"), l("adherence.column.inTime"),
                      l("adherence.column.late"), l("adherence.column.missed"), l("adherence.column.rate")]
        func row(_ name: String, _ counts: AdherenceCounts) -> [String] {
            [name, "\(counts.delivered)", "\(counts.answeredInTime)", "\(counts.late)", "\(counts.missed)",
             counts.rate.map { "\(Int(($0 * 100).rounded())) %" } ?? "–"]
        }
        let rows = report.days.filter { $0.counts.delivered > 0 }.map { row($0.date, $0.counts) } + [row(l("adherence.overall"), report.overall)]
        shell.console.table(TextTable(columns: [.left, .right, .right, .right, .right, .right], header: header, rows: rows))
    }
}
