import ArgumentParser
import Foundation
import UNITICore

/// `tn audiograms [--json]`: every audiogram, newest first, with its id, date, each ear's
/// pure-tone average and grade, and the person's grade; the JSON carries the thresholds with
/// the computed values beside them.
struct AudiogramsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "audiograms", abstract: L("tn.audiogram.list.abstract"))
    }

    @OptionGroup var output: JSONOutput

    func run(in context: ModuleContext) throws {
        let audiograms = try AudiogramCommand.all(in: context)
        if output.isRequested(in: context) {
            try context.console.json(audiograms.map(AudiogramSummary.init))
            return
        }
        guard !audiograms.isEmpty else {
            context.console.line(L("tn.audiogram.list.none"))
            return
        }
        let header = [L("tn.audiogram.column.id"), L("tn.audiogram.column.date"), L("tn.audiogram.column.ptaRight"),
                      L("tn.audiogram.column.ptaLeft"), L("tn.audiogram.column.grade")]
        context.console.table(TextTable(header: header, rows: audiograms.map { audiogram in
            [HealthRecordID.short(audiogram.id), audiogram.date, AudiogramText.average(audiogram, ear: .right),
             AudiogramText.average(audiogram, ear: .left), AudiogramText.overallGrade(audiogram)]
        }))
    }
}
