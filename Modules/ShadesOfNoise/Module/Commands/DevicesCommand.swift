import ArgumentParser
import Foundation
import UNITICore

/// `son devices [--json]`: the audio outputs ALSA offers (PipeWire and PulseAudio appear as
/// ALSA devices too).
struct DevicesCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "devices", abstract: L("son.devices.abstract"))
    }

    @OptionGroup var output: JSONOutput

    struct Listing: Encodable { let cards: Int, outputs: [AudioDeviceInfo] }

    func run(in context: ModuleContext) throws {
        let outputs = ALSADevice.devices().filter(\.output)
        let cards = ALSADevice.cardCount()
        if output.isRequested(in: context) {
            try context.console.json(Listing(cards: cards, outputs: outputs))
            return
        }
        if cards == 0 { context.console.line(L("son.devices.noCards")) }
        // ALSA names ("default", "sysdefault:CARD=PCH") in the width they always had.
        context.console.table(TextTable(columns: [.init(minimumWidth: 23)], rows: outputs.map { [$0.name, $0.description] }))
    }
}
