import ArgumentParser
import Foundation
import UNITICore

extension AudiogramCommand {
    /// `tn audiogram add`: by prompts, or on one line with `--left`/`--right` (then nothing is
    /// asked, and every bad value is named in one line with nothing saved).
    struct Add: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "add", abstract: L("tn.audiogram.add.abstract"))
        }

        @OptionGroup var values: AudiogramOptions

        func run(in context: ModuleContext) throws {
            let now = context.clock.now
            var draft: AudiogramDraft
            if values.hasThresholds {
                draft = AudiogramDraft(date: LocalDate(now, in: context.clock.timeZone))
                var parser = AudiogramValueParser()
                values.apply(to: &draft, &parser, adding: true)
                draft.checkComplete(&parser)
                if let error = parser.error { throw error }
            } else {
                draft = try AudiogramPrompts(context: context).draft()
                // Values given beside the prompts (a note, a date) count as well.
                var parser = AudiogramValueParser()
                values.apply(to: &draft, &parser, adding: true)
                if let error = parser.error { throw error }
            }
            let audiogram = try draft.audiogram(now: now)
            try HealthRecordStore(context).save(audiogram)
            context.console.line(AudiogramCommand.savedLine("tn.audiogram.added", audiogram))
        }
    }
}
