import ArgumentParser
import Foundation
import UNITICore

/// `baseline [--again]` (integrated program): the shared baseline questionnaires, answered once
/// after the first login and used by every module (Track Your Tinnitus reads the worst symptom
/// from it). Which questionnaires belong to it is the studies' choice. A person who stops keeps
/// their answers as a draft that follows them to other devices.
struct BaselineHostCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "baseline", abstract: L("host.baseline.abstract"))
    }

    @Flag(name: .long, help: ArgumentHelp(L("host.baseline.again"))) var again = false

    func run(in shell: Shell) throws {
        let baseline = try Baseline.shared(shell.services)
        let results = try baseline.answer(again: again, with: QuestionnaireEngine(services: shell.services))
        shell.console.line(shell.localizer(results.isEmpty ? "host.baseline.nothing" : "host.baseline.done"))
        shell.syncInBackgroundIfQueued()
    }

    /// One line after login when shared baseline questionnaires are still open.
    static func remindIfOpen(_ shell: Shell) {
        guard case .host = shell.program,
              let open = try? Baseline.shared(shell.services).open(in: shell.services), !open.isEmpty else { return }
        shell.console.line(shell.localizer("host.baseline.open", count: open.count))
    }
}
