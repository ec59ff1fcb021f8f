import ArgumentParser
import UNITICore

/// `sensors [--json]`, `sensors allow NAME`, `sensors refuse NAME`: the sensors questionnaires
/// may read while the person answers, with the person's permission and whether each can run
/// here; and the person's say on one. The reading itself is the core's
/// (``QuestionnaireSensors``); this only records the answer and prints.
struct SensorsCommand: HostCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sensors", abstract: L("host.sensors.abstract"))
    }

    /// What the person says about a sensor: `allow` or `refuse` (German `erlauben`, `ablehnen`).
    enum Decision: String, LocalizedArgumentWords {
        case allow, refuse
        static var wordsKey: String { "host.sensors.words" }

        var permission: SensorPermission { self == .allow ? .allowed : .refused }
    }

    @Argument(help: ArgumentHelp(L("host.sensors.decision"), valueName: "allow|refuse")) var decision: Decision?
    @Argument(help: ArgumentHelp(L("host.sensors.sensor"), valueName: "sensor")) var sensor: SensorKind?
    @OptionGroup var output: JSONOutput

    func validate() throws {
        if let decision, sensor == nil {
            throw ValidationError(L("host.sensors.whichSensor", ["decision": decision.rawValue]))
        }
    }

    /// One line of the listing (and of `--json`).
    struct Row: Encodable {
        let sensor: String
        let permission: SensorPermission?
        /// Why the sensor cannot be read here; nil when it can.
        let unavailable: String?
    }

    func run(in shell: Shell) throws {
        let sensors = QuestionnaireSensors(services: shell.services)
        let l = shell.localizer
        if let decision, let sensor {
            try sensors.permissions.set(decision.permission, for: sensor)
            let key = decision == .allow ? "host.sensors.allowed" : "host.sensors.refused"
            shell.console.line(l(key, ["subject": sensor.localizedSubject(l)]))
            return
        }
        let rows = try SensorKind.allCases.map { kind in
            Row(sensor: kind.rawValue, permission: try sensors.permissions.permission(for: kind),
                unavailable: sensors.unavailability(of: kind))
        }
        if output.isRequested(in: shell.services) {
            try shell.console.json(rows)
            return
        }
        shell.console.line(l("host.sensors.header"))
        shell.printTable(rows.map { row in
            let permission = l("core.sensors.permission.\(row.permission?.rawValue ?? "notAsked")")
            return (row.sensor, "\(permission) · \(row.unavailable ?? l("core.sensors.available"))")
        })
    }
}
