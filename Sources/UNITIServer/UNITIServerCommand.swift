import ArgumentParser

/// Root of the `uniti-server` command line: `serve` and the coordinator commands, which all work
/// on the same `--database` file (also while `serve` runs).
public struct UNITIServerCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "uniti-server",
        abstract: "The UNITI study server and its coordinator commands.",
        subcommands: [ServeCommand.self, StudyCommand.self, QuestionnaireCommand.self, JoinRequestsCommand.self,
                      UsersCommand.self, ExportCommand.self, AdherenceCommand.self, StaffCommand.self, AuditCommand.self, MailCommand.self,
                      ResourceCommand.self, MaintenanceCommand.self, BackupCommand.self, RestoreCommand.self,
                      RandomisationCommand.self, RandomiseCommand.self, VisitsCommand.self, ConsortCommand.self, SitesCommand.self,
                      ScreeningCommand.self]
    )
    public init() {}
}

extension UNITIServerCommand {
    /// Parses the process arguments and runs the chosen subcommand (async ones awaited).
    public static func runFromCommandLine() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
