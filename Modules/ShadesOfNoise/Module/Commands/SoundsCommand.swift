import ArgumentParser
import Foundation
import UNITICore

/// `son sounds [--json]`: the catalogue by category (FA02, FA03), favourites marked.
struct SoundsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sounds", abstract: L("son.sounds.abstract"))
    }

    @Flag(help: ArgumentHelp(L("son.option.json"))) var json = false

    struct SoundRow: Encodable {
        let id: String, title: String, kind: String, length: Double, synthesized: Bool, favorite: Bool
        let usesTinnitusFrequency: Bool
        let parameters: SoundCatalogue.Parameters
    }
    struct CategoryRow: Encodable { let id: String, title: String, sounds: [SoundRow] }
    struct Listing: Encodable {
        let tinnitusFrequency: Double?
        /// The catalogue in use: its version, and whether it is the bundled one or the server's.
        let catalogueVersion: Int, catalogueSource: String
        let categories: [CategoryRow]
    }

    func run(in context: ModuleContext) throws {
        let catalogue = try SoundCatalogue.active(in: context.database)
        let favorites = Set(try SonStore(records: context.records).favorites())
        let frequency = try TinnitusFrequency.stored(in: context)
        let language = CurrentLanguage.value.rawValue
        let rows = catalogue.categories.map { category in
            CategoryRow(id: category.id, title: category.title.text(in: language), sounds: category.sounds.map {
                SoundRow(id: $0.id, title: $0.displayTitle, kind: $0.kind, length: $0.length, synthesized: $0.synthesized,
                         favorite: favorites.contains($0.id), usesTinnitusFrequency: $0.usesTinnitusFrequency,
                         parameters: $0.parameters)
            })
        }
        if json || context.services.prefersJSON {
            let origin = try SoundCatalogue.activeSource(in: context.database)
            try context.console.json(Listing(tinnitusFrequency: frequency, catalogueVersion: origin.version,
                                             catalogueSource: origin.source, categories: rows))
            return
        }
        let console = context.console
        for category in rows {
            console.line(category.title)
            for sound in category.sounds {
                let mark = sound.favorite ? "*" : " "
                var line = " \(mark) \(sound.id.padding(toLength: 15, withPad: " ", startingAt: 0)) "
                    + "\(formatDuration(sound.length))  \(sound.title)"
                if sound.usesTinnitusFrequency {
                    line += frequency == nil ? "  " + L("son.sounds.needsFrequency")
                        : "  (" + String(format: "%g Hz", frequency!) + ")"
                }
                console.line(line)
            }
        }
        if !favorites.isEmpty { console.line(L("son.sounds.favoriteLegend")) }
    }
}
