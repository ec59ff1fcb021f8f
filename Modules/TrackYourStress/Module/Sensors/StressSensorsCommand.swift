import ArgumentParser
import UNITICore

/// `tys sensors [allow|deny microphone|location]`: whether questionnaires may read the noise
/// level and the position while the person answers (thesis FR14, FR15). The permission is the
/// core's (``SensorPermissions``), the same the shell's `sensors` command sets: asked once, kept,
/// and never read without it.
struct StressSensorsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sensors", abstract: L("tys.sensors.abstract"))
    }

    /// `allow` or `deny` (also `refuse`; German `erlauben`, `ablehnen`).
    enum Decision: String, LocalizedArgumentWords {
        case allow, deny
        static var wordsKey: String { "tys.sensors.words" }
    }

    @Argument(help: ArgumentHelp(L("tys.sensors.decision"), valueName: "allow|deny")) var decision: Decision?
    @Argument(help: ArgumentHelp(L("tys.sensors.sensor"), valueName: "microphone|location")) var sensor: SensorKind?

    init() {}

    func validate() throws {
        if decision != nil, sensor == nil { throw ValidationError(L("tys.sensors.whichSensor")) }
    }

    func run(in context: ModuleContext) throws {
        let sensors = context.sensors
        if let decision, let sensor {
            try sensors.permissions.set(decision == .allow ? .allowed : .refused, for: sensor)
            context.console.line(L(decision == .allow ? "tys.sensors.allowed" : "tys.sensors.denied",
                                   ["subject": sensor.localizedSubject(context.localizer)]))
            return
        }
        let rows = try SensorKind.allCases.map { kind -> [String] in
            let permission: String
            switch try sensors.permissions.permission(for: kind) {
            case .allowed: permission = L("tys.sensors.state.allowed")
            case .refused: permission = L("tys.sensors.state.denied")
            case nil: permission = L("tys.sensors.state.notAsked")
            }
            return [kind.rawValue, permission]
        }
        context.console.table(TextTable(columns: [.init(minimumWidth: 11), .left], rows: rows))
        context.console.line(L("tys.sensors.hint"))
    }
}
