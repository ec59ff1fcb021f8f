import UNITICore

/// The module's commands in each kind of program, in the order `help` lists them.
enum TNCommands {
    static func all(for program: ProgramKind) -> [any ShellCommand.Type] {
        [AboutModuleCommand.self, ExportCommand.self]
    }
}
