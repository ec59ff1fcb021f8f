import ArgumentParser
import Foundation
import UNITICore

/// `tyt settings noise on|off` and `tyt settings calibration DB` (thesis FR6).
struct SettingsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "settings", abstract: L("tyt.settings.abstract"),
                             subcommands: [Noise.self, Calibration.self])
    }

    init() {}

    func run(in context: ModuleContext) throws {
        let settings = try NoiseSettings.load(context)
        context.console.line(L(settings.isEnabled ? "tyt.settings.noiseOn" : "tyt.settings.noiseOff"))
        if let offset = settings.calibrationOffset {
            context.console.line(L("tyt.settings.calibrated", ["offset": String(format: "%+.1f", offset)]))
        } else {
            context.console.line(L("tyt.settings.uncalibrated"))
        }
    }

    struct Noise: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "noise", abstract: L("tyt.settings.noise.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.settings.noise.value"), valueName: "on|off")) var value: String
        init() {}
        func run(in context: ModuleContext) throws {
            var settings = try NoiseSettings.load(context)
            switch value.lowercased() {
            case "on", "an", "ein": settings.isEnabled = true
            case "off", "aus": settings.isEnabled = false
            default: throw UNITIError(L("tyt.settings.noise.bad", ["value": value]))
            }
            try settings.save(context)
            context.console.line(L(settings.isEnabled ? "tyt.settings.noiseOn" : "tyt.settings.noiseOff"))
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
                context.console.line(L("tyt.settings.calibrated", ["offset": String(format: "%+.1f", offset)]))
            } else {
                context.console.line(L("tyt.settings.uncalibrated"))
            }
        }
    }
}
