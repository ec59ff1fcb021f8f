import ArgumentParser
import Foundation
import UNITICore

extension AudiogramCommand {
    /// `tn audiogram edit ID [options]`: changes what the options name and keeps the rest and
    /// the id, so the new version replaces the old one on every device.
    struct Edit: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "edit", abstract: L("tn.audiogram.edit.abstract"))
        }

        @Argument(help: ArgumentHelp(L("tn.audiogram.idHelp"), valueName: "id")) var id: String
        @OptionGroup var values: AudiogramOptions

        func run(in context: ModuleContext) throws {
            let original = try AudiogramCommand.find(id, in: context)
            guard !values.isEmpty else { throw UNITIError(L("tn.audiogram.edit.nothing")) }
            var draft = AudiogramDraft(original)
            var parser = AudiogramValueParser()
            values.apply(to: &draft, &parser, adding: false)
            draft.checkComplete(&parser)
            if let error = parser.error { throw error }
            // Newer than the version it replaces even when the clock stands still or went back,
            // so newest-wins takes the edit everywhere.
            let now = max(context.clock.now, original.updatedAt.addingTimeInterval(0.001))
            let edited = try draft.audiogram(replacing: original, now: now)
            try HealthRecordStore(context).save(edited, at: now)
            context.console.line(AudiogramCommand.savedLine("tn.audiogram.edited", edited))
        }
    }
}
