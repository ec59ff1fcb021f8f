import ArgumentParser
import Foundation
import UNITICore

/// `tyt ringtone list|play NAME [--out FILE.wav]|set NAME` (thesis FR4).
struct RingtoneCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "ringtone", abstract: L("tyt.ringtone.abstract"),
                             subcommands: [List.self, Play.self, Set.self])
    }

    static let settingKey = "ringtone"

    init() {}

    func run(in context: ModuleContext) throws {
        try List.list(context, json: context.prefersJSON)
    }

    /// The chosen tone's name (the standard one before a choice).
    static func chosen(_ context: ModuleContext) throws -> String {
        try context.moduleSetting(settingKey) ?? Ringtone.standardName
    }

    static func tone(named name: String) throws -> Ringtone {
        guard let tone = Ringtone.named(name) else {
            throw UNITIError(L("tyt.ringtone.unknown", ["name": name, "names": Ringtone.catalogue.map(\.name).joined(separator: ", ")]))
        }
        return tone
    }

    struct List: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: L("tyt.ringtone.list.abstract"))
        }
        @OptionGroup var output: JSONOutput
        init() {}
        func run(in context: ModuleContext) throws {
            try Self.list(context, json: output.isRequested(in: context))
        }

        struct Entry: Encodable {
            let name: String
            let lowestHz: Int
            let seconds: Double
            let description: String
            let chosen: Bool
        }

        static func list(_ context: ModuleContext, json: Bool) throws {
            let chosen = try RingtoneCommand.chosen(context)
            let entries = Ringtone.catalogue.map { tone in
                Entry(name: tone.name, lowestHz: Int(tone.lowestFrequency.rounded()), seconds: (tone.length * 10).rounded() / 10,
                      description: L("tyt.ringtone.describe.\(tone.name)"), chosen: tone.name == chosen)
            }
            if json {
                try context.console.json(entries)
                return
            }
            // The chosen tone marked with "*"; names and pitches in the widths they always had.
            let columns: [TextTable.Column] = [.init(minimumWidth: 11), .init(.right, minimumWidth: 8)]
            context.console.table(TextTable(columns: columns, rows: entries.map { entry in
                ["\(entry.chosen ? "*" : " ") \(entry.name)", "\(entry.lowestHz) Hz", entry.description]
            }, indent: 0))
        }
    }

    struct Play: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "play", abstract: L("tyt.ringtone.play.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.ringtone.name"), valueName: "NAME"), completion: .list(Ringtone.catalogue.map(\.name))) var name: String
        @Option(name: .customLong("out"), help: ArgumentHelp(L("tyt.ringtone.out"), valueName: "FILE.wav")) var out: String?
        init() {}
        func run(in context: ModuleContext) throws {
            let tone = try RingtoneCommand.tone(named: name)
            let synthesizer = RingtoneSynthesizer()
            let samples = synthesizer.render(tone)
            let sink: any AudioSink = try out.map { try WAVFileSink(path: $0, format: synthesizer.format) }
                ?? ALSADevice.openPlayback(name: "default", format: synthesizer.format)
            try samples.withUnsafeBufferPointer { try sink.write($0) }
            try sink.finish()
            if let out { context.console.line(L("tyt.ringtone.written", ["name": tone.name, "path": out])) }
        }
    }

    struct Set: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "set", abstract: L("tyt.ringtone.set.abstract"))
        }
        @Argument(help: ArgumentHelp(L("tyt.ringtone.name"), valueName: "NAME"), completion: .list(Ringtone.catalogue.map(\.name))) var name: String
        init() {}
        func run(in context: ModuleContext) throws {
            let tone = try RingtoneCommand.tone(named: name)
            try context.setModuleSetting(RingtoneCommand.settingKey, to: tone.name)
            context.console.line(L("tyt.ringtone.chosen", ["name": tone.name]))
        }
    }
}
