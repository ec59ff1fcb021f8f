import UNITICore

/// The module's commands in each kind of program, in the order `help` lists them.
enum TNCommands {
    /// In `tinnitus-navigator` the host's own `sync` does what `tn sync` does in the shell.
    static func all(for program: ProgramKind) -> [any ShellCommand.Type] {
        let sync: [any ShellCommand.Type] = program == .integrated ? [RecordSyncCommand.self] : []
        return [
            EventsCommand.self, EventCommand.self, CalendarCommand.self,
            TherapiesCommand.self, TherapyCommand.self,
            AudiogramsCommand.self, AudiogramCommand.self,
            QuestionnairesCommand.self, FillCommand.self, CompletedCommand.self, ScoresCommand.self,
            ReportCommand.self, ExportCommand.self, RecordSettingsCommand.self,
        ] + sync + [AboutModuleCommand.self]
    }
}
