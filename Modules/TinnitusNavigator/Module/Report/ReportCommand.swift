import ArgumentParser
import Foundation
import UNITICore

/// `tn report --out FILE.html [--from YYYY-MM-DD] [--to YYYY-MM-DD]`: the report for the
/// doctor, one HTML file that opens offline and prints to A4 (in a browser: Print, or
/// `chromium --headless --print-to-pdf`).
struct ReportCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "report", abstract: L("tn.report.abstract"))
    }

    @Option(help: ArgumentHelp(L("tn.report.outHelp"), valueName: "file.html")) var out: String
    @Option(help: ArgumentHelp(L("tn.report.fromHelp"), valueName: "YYYY-MM-DD")) var from: String?
    @Option(help: ArgumentHelp(L("tn.report.toHelp"), valueName: "YYYY-MM-DD")) var to: String?

    func run(in context: ModuleContext) throws {
        let start = try from.map { try LocalDate(parsing: $0) }
        let end = try to.map { try LocalDate(parsing: $0) }
        let report = try DoctorReport.gather(in: context, from: start, to: end)
        try ExportFile.write(DoctorReportHTML(report: report).document(), to: out)
        context.console.line(L("tn.report.written", [
            "path": out, "from": report.from.description, "to": report.to.description,
            "audiograms": L("tn.report.count.audiograms", count: report.audiograms.count),
            "therapies": L("tn.report.count.therapies", count: report.therapies.count),
            "events": L("tn.report.count.events", count: report.events.count),
            "questionnaires": L("tn.report.count.questionnaires", count: report.questionnaires.reduce(0) { $0 + $1.completions.count }),
        ]))
    }
}
