import ArgumentParser
import Foundation
import UNITICore

/// `tyt fill`: one check-in; on a terminal a three-second countdown follows, then the shell's
/// prompt (integrated) or the end of the program (standalone), as the thesis's app did (FR2).
struct FillCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "fill", abstract: L("tyt.fill.abstract"))
    }

    @Option(name: .customLong("noise-from"), help: ArgumentHelp(L("tyt.fill.noiseFrom"), valueName: "FILE.wav"))
    var noiseFrom: String?

    init() {}

    func run(in context: ModuleContext) throws {
        try Self.checkIn(context, recording: noiseFrom)
    }

    /// Also used when a due reminder opens the questionnaire on entering the module.
    static func checkIn(_ context: ModuleContext, recording: String? = nil) throws {
        _ = try MomentaryCheckIn(context: context).run(recording: recording)
        guard context.console.isTerminal, context.input.isInteractive else { return }
        let integrated = context.program == .integrated
        for second in stride(from: 3, through: 1, by: -1) {
            context.console.write("\r" + L(integrated ? "tyt.fill.countdownShell" : "tyt.fill.countdownEnd", ["seconds": "\(second)"]) + " ")
            context.clock.sleep(seconds: 1)
        }
        context.console.line()
        if !integrated { context.requestEndOfProgram() }
    }
}
