import ArgumentParser
import Foundation
import UNITICore

/// `son sounds [--json]`: the catalogue by category (FA02, FA03), favourites marked.
struct SoundsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "sounds", abstract: L("son.sounds.abstract"))
    }

    @OptionGroup var output: JSONOutput

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
        if output.isRequested(in: context) {
            let origin = try SoundCatalogue.activeSource(in: context.database)
            try context.console.json(Listing(tinnitusFrequency: frequency, catalogueVersion: origin.version,
                                             catalogueSource: origin.source, categories: rows))
            return
        }
        let console = context.console
        for category in rows {
            console.line(category.title)
            // The ids' column keeps one width in every category (the width it always had).
            console.table(TextTable(columns: [.init(minimumWidth: 16)], rows: category.sounds.map { sound in
                var title = sound.title
                if sound.usesTinnitusFrequency {
                    title += frequency.map { "  (" + CurrentLanguage.value.number($0) + " Hz" + ")" } ?? "  " + L("son.sounds.needsFrequency")
                }
                return ["\(sound.favorite ? "*" : " ") \(sound.id)", formatDuration(sound.length), title]
            }, indent: 1))
        }
        if !favorites.isEmpty { console.line(L("son.sounds.favoriteLegend")) }
    }
}
