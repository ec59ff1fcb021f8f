import ArgumentParser
import Foundation
import UNITICore

/// `son devices [--json]`: the audio outputs ALSA offers (PipeWire and PulseAudio appear as
/// ALSA devices too).
struct DevicesCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "devices", abstract: L("son.devices.abstract"))
    }

    @Flag(help: ArgumentHelp(L("son.option.json"))) var json = false

    struct Listing: Encodable { let cards: Int, outputs: [AudioDeviceInfo] }

    func run(in context: ModuleContext) throws {
        let outputs = ALSADevice.devices().filter(\.output)
        let cards = ALSADevice.cardCount()
        if json || context.services.prefersJSON {
            try context.console.json(Listing(cards: cards, outputs: outputs))
            return
        }
        if cards == 0 { context.console.line(L("son.devices.noCards")) }
        for device in outputs {
            context.console.line("  \(device.name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(device.description)")
        }
    }
}
