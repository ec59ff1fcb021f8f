import ArgumentParser
import UNITICore

/// `status` (or `doctor`): what this installation is and where its data lives.
struct StatusCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "status", abstract: L("host.status.abstract"), aliases: ["doctor"])
    }

    @OptionGroup var output: JSONOutput

    struct Report: Encodable {
        let program: String
        let version: String
        let build: String
        let language: String
        let dataDirectory: String
        let database: String
        let schema: [String: [String]]
        let enabledModules: [String]
        let studies: [String]
        let server: String?
        let pendingOutbox: Int
    }

    func run(in shell: Shell) throws {
        let services = shell.services
        let report = Report(
            program: shell.program.programName,
            version: UNITIVersion.string,
            build: shell.program.kind.rawValue,
            language: CurrentLanguage.value.rawValue,
            dataDirectory: services.dataDirectory.path,
            database: services.database.path,
            schema: try services.database.appliedSteps(),
            enabledModules: try {
                let enabled = try services.studies.enabledModuleIDs()
                return shell.registry.modules.map(\.descriptor.id).filter(enabled.contains).map(\.rawValue)
            }(),
            studies: try services.studies.activeStudies().map(\.id),
            // The server this run talks to: `--server` where given, else the stored one.
            server: try services.sessions.serverURL()?.absoluteString,
            pendingOutbox: try Outbox(database: services.database).undeliveredCount()
        )
        if output.isRequested(in: services) {
            try shell.console.json(report)
            return
        }
        let l = shell.localizer
        let rows: [(String, String)] = [
            (l("host.status.program"), "\(report.program) \(report.version)"),
            (l("host.status.build"), l("core.buildKind.\(report.build)")),
            (l("host.status.language"), report.language),
            (l("host.status.dataDirectory"), report.dataDirectory),
            (l("host.status.database"), report.database),
            (l("host.status.modules"), report.enabledModules.joined(separator: ", ")),
            (l("host.status.studies"), report.studies.joined(separator: ", ")),
            (l("host.status.server"), report.server ?? l("host.status.noServer")),
            (l("host.status.outbox"), "\(report.pendingOutbox)"),
        ]
        shell.printTable(rows)
        shell.console.line(l("host.status.schema"))
        let owners = ["core"] + shell.registry.modules.map(\.descriptor.id.rawValue)
        shell.printTable(owners.map { owner in
            let steps = report.schema[owner] ?? []
            return (owner, steps.isEmpty ? l("host.status.noSteps") : "\(steps.count) (\(steps.last!))")
        }, indent: 4)
    }
}
