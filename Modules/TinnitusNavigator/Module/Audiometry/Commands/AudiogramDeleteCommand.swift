import ArgumentParser
import Foundation
import UNITICore

extension AudiogramCommand {
    /// `tn audiogram delete ID [--yes]`: asks first when a person types at a terminal; the
    /// deletion reaches the other devices as a tombstone.
    struct Delete: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: L("tn.audiogram.delete.abstract"))
        }

        @Argument(help: ArgumentHelp(L("tn.audiogram.idHelp"), valueName: "id")) var id: String
        @Flag(name: [.customShort("y"), .long], help: ArgumentHelp(L("tn.audiogram.delete.yesHelp"))) var yes = false

        func run(in context: ModuleContext) throws {
            let audiogram = try AudiogramCommand.find(id, in: context)
            let short = HealthRecordID.short(audiogram.id)
            if !yes, context.input.isInteractive {
                let answer = try context.input.readLine(prompt: L("tn.audiogram.delete.confirm", ["id": short, "date": audiogram.date]) + " ")
                guard let answer, Confirmation.isYes(answer) else {
                    context.console.line(L("tn.audiogram.delete.kept", ["id": short]))
                    return
                }
            }
            try HealthRecordStore(context).delete(Audiogram.self, id: audiogram.id)
            context.console.line(L("tn.audiogram.deleted", ["id": short, "date": audiogram.date]))
        }
    }
}
