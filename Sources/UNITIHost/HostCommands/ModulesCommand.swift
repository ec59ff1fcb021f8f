import ArgumentParser
import UNITICore

/// `modules [--json]`: every module this program offers, whether the person's studies enable
/// it, and the build kind.
struct ModulesCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "modules", abstract: L("host.modules.abstract"))
    }

    @OptionGroup var output: JSONOutput

    struct Row: Encodable {
        let id: String
        let name: String
        let version: String
        let summary: String
        let enabled: Bool
        let program: String
    }

    struct Listing: Encodable {
        let build: String
        let modules: [Row]
    }

    func run(in shell: Shell) throws {
        let enabled = try shell.services.studies.enabledModuleIDs()
        let rows = shell.registry.modules.map { module in
            Row(id: module.descriptor.id.rawValue, name: module.descriptor.name, version: module.descriptor.version,
                summary: module.descriptor.summary, enabled: enabled.contains(module.descriptor.id),
                program: module.descriptor.programName)
        }
        if output.isRequested(in: shell.services) {
            try shell.console.json(Listing(build: shell.program.kind.rawValue, modules: rows))
            return
        }
        let l = shell.localizer
        shell.console.line(l("host.modules.header", ["build": l("core.buildKind.\(shell.program.kind.rawValue)")]))
        // Name and state keep their width when a standalone program lists its one module.
        let columns: [TextTable.Column] = [.left, .init(minimumWidth: 18), .init(minimumWidth: 8)]
        shell.console.table(TextTable(columns: columns, rows: rows.map { row in
            [row.id, row.name, row.enabled ? l("host.modules.enabled") : l("host.modules.disabled"), row.summary]
        }))
    }
}
