import ArgumentParser
import Foundation
import UNITICore

/// `son favorite add|remove SOUND`, `son favorite list [--json]` (thesis outlook).
struct FavoriteCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "favorite", abstract: L("son.favorite.abstract"),
                             subcommands: [Add.self, Remove.self, List.self], defaultSubcommand: List.self)
    }

    func run(in context: ModuleContext) throws {
        try List().run(in: context)
    }

    struct Add: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "add", abstract: L("son.favorite.add.abstract"))
        }
        @Argument(help: ArgumentHelp(L("son.play.soundHelp"), valueName: "sound")) var sound: String

        func run(in context: ModuleContext) throws {
            let entry = try SoundCatalogue.active(in: context.database).sound(sound)
            let added = try SonStore(records: context.records).addFavorite(entry.id, at: context.clock.now)
            context.console.line(L(added ? "son.favorite.added" : "son.favorite.already", ["title": entry.displayTitle]))
        }
    }

    struct Remove: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "remove", abstract: L("son.favorite.remove.abstract"))
        }
        @Argument(help: ArgumentHelp(L("son.play.soundHelp"), valueName: "sound")) var sound: String

        func run(in context: ModuleContext) throws {
            guard try SonStore(records: context.records).removeFavorite(sound, at: context.clock.now) else {
                throw UNITIError(L("son.favorite.notFavorite", ["sound": sound]))
            }
            context.console.line(L("son.favorite.removed", ["sound": sound]))
        }
    }

    struct List: ShellCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: L("son.favorite.list.abstract"))
        }
        @OptionGroup var output: JSONOutput

        struct Row: Encodable { let id: String, title: String }

        func run(in context: ModuleContext) throws {
            let catalogue = try SoundCatalogue.active(in: context.database)
            let rows = try SonStore(records: context.records).favorites().map { id in
                Row(id: id, title: (try? catalogue.sound(id).displayTitle) ?? id)
            }
            if output.isRequested(in: context) {
                try context.console.json(rows)
                return
            }
            if rows.isEmpty { context.console.line(L("son.favorite.none")) }
            // Ids in the width they always had.
            context.console.table(TextTable(columns: [.init(minimumWidth: 14)], rows: rows.map { [$0.id, $0.title] }))
        }
    }
}
