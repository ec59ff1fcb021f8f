import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tyt baseline [--again]`: answers the baseline questionnaires still open, in order
/// (integrated: the shell's shared baseline, the same as its `baseline` command). Every answer
/// is kept as a synced draft, so a person who stops continues where they stopped, on any device.
struct BaselineCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "baseline", abstract: L("tyt.baseline.abstract"))
    }

    @Flag(name: .long, help: ArgumentHelp(L("tyt.baseline.again"))) var again = false

    init() {}

    func run(in context: ModuleContext) throws {
        try Self.answer(BaselineQuestionnaires.baseline(context), again: again, in: context)
    }

    static func answer(_ baseline: Baseline, again: Bool, in context: ModuleContext) throws {
        let results = try baseline.answer(again: again, with: context.questionnaires)
        context.console.line(L(results.isEmpty ? "tyt.baseline.nothing" : "tyt.baseline.done"))
        if let symptom = try WorstSymptom.chosen(context.services) {
            context.console.line(L("tyt.baseline.symptom", ["symptom": symptom.phrase(in: context.localizer.language.rawValue)]))
        }
    }
}
