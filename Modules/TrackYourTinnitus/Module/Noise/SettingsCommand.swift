import ArgumentParser
import Foundation
import UNITICore

/// `tyt settings noise on|off` and `tyt settings calibration DB` (thesis FR6). `noise` is the
/// core's microphone permission under the module's older name (the same as `sensors
/// allow|refuse microphone`); the calibration is the module's own.
struct SettingsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "settings", abstract: L("tyt.settings.abstract"),
                             subcommands: [Noise.self, Calibration.self])
    }

    init() {}

    func run(in context: ModuleContext) throws {
        let settings = try NoiseSettings.load(context)
        let measured = try context.sensors.permissions.isAllowed(.microphone)
        context.console.line(L(measured ? "tyt.settings.noiseOn" : "tyt.settings.noiseOff"))
        if let offset = settings.calibrationOffset {
            context.console.line(L("tyt.settings.calibrated", ["offset": (offset >= 0 ? "+" : "") + CurrentLanguage.value.number(offset, fractionDigits: 1)]))
        } else {
            context.console.line(L("tyt.settings.uncalibrated"))
        }
    }

    struct Noise: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "noise", abstract: L("tyt.settings.noise.abstract"))
        }

        @Argument(help: ArgumentHelp(L("tyt.settings.noise.value"), valueName: "on|off"), completion: OnOff.offered) var value: OnOff
        init() {}
        func run(in context: ModuleContext) throws {
            try context.sensors.permissions.set(value.isOn ? .allowed : .refused, for: .microphone)
            context.console.line(L(value.isOn ? "tyt.settings.noiseOn" : "tyt.settings.noiseOff"))
        }
    }

    struct Calibration: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "calibration", abstract: L("tyt.settings.calibration.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.settings.calibration.value"), valueName: "DB|off")) var value: String
        init() {}
        func run(in context: ModuleContext) throws {
            var settings = try NoiseSettings.load(context)
            if value.lowercased() == "off" {
                settings.calibrationOffset = nil
            } else {
                guard let offset = Double(value.replacingOccurrences(of: ",", with: ".")), offset.isFinite, abs(offset) <= 200 else {
                    throw UNITIError(L("tyt.settings.calibration.bad", ["value": value]))
                }
                settings.calibrationOffset = offset
            }
            try settings.save(context)
            if let offset = settings.calibrationOffset {
                context.console.line(L("tyt.settings.calibrated", ["offset": (offset >= 0 ? "+" : "") + CurrentLanguage.value.number(offset, fractionDigits: 1)]))
            } else {
                context.console.line(L("tyt.settings.uncalibrated"))
            }
        }
    }
}
