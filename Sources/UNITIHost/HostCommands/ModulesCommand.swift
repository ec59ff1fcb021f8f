import ArgumentParser
import UNITICore

/// `modules [--json]`: every module this program offers, whether the person's studies enable
/// it, and the build kind.
struct ModulesCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "modules", abstract: L("host.modules.abstract"))
    }

    @Flag(help: ArgumentHelp(L("host.option.json"))) var json = false

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
        if json || shell.services.prefersJSON {
            try shell.console.json(Listing(build: shell.program.kind.rawValue, modules: rows))
            return
        }
        let l = shell.localizer
        shell.console.line(l("host.modules.header", ["build": l("core.buildKind.\(shell.program.kind.rawValue)")]))
        for row in rows {
            let state = row.enabled ? l("host.modules.enabled") : l("host.modules.disabled")
            let name = row.name.padding(toLength: 20, withPad: " ", startingAt: 0)
            let id = row.id.padding(toLength: 5, withPad: " ", startingAt: 0)
            shell.console.line("  \(id)\(name)\(state.padding(toLength: 10, withPad: " ", startingAt: 0))\(row.summary)")
        }
    }
}
