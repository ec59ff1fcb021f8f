import UNITICore

/// The module's commands in each kind of program, in the order `help` lists them.
enum TNCommands {
    static func all(for program: ProgramKind) -> [any ShellCommand.Type] {
        [
            EventsCommand.self, EventCommand.self, CalendarCommand.self,
            TherapiesCommand.self, TherapyCommand.self,
            RecordSettingsCommand.self, RecordSyncCommand.self, AboutModuleCommand.self,
        ]
    }
}
