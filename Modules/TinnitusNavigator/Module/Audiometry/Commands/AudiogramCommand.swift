import ArgumentParser
import Foundation
import GRDB
import UNITICore

/// `tn audiogram add|show|edit|delete` (thesis FR11: enter, show and delete measurements of
/// audiometry, for both ears, with custom frequencies, drawn as a diagram). Alone it lists
/// the audiograms, as `tn audiograms` does.
struct AudiogramCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "audiogram", abstract: L("tn.audiogram.abstract"),
                             subcommands: [Add.self, Show.self, Edit.self, Delete.self])
    }

    func run(in context: ModuleContext) throws {
        try AudiogramsCommand().run(in: context)
    }

    /// The audiogram an id (or a unique prefix of it) names.
    static func find(_ id: String, in context: ModuleContext) throws -> Audiogram {
        try HealthRecordStore(context).find(Audiogram.self, id, noun: L("tn.audiogram.noun"))
    }

    /// Every audiogram, newest first (by date, then by entry).
    static func all(in context: ModuleContext) throws -> [Audiogram] {
        try HealthRecordStore(context).all(Audiogram.self, orderedBy: [Column("date").desc, Column("createdAt").desc])
    }

    /// The line a saved audiogram is confirmed with: its id, date, averages and grade.
    static func savedLine(_ key: String, _ audiogram: Audiogram) -> String {
        L(key, ["id": HealthRecordID.short(audiogram.id), "date": audiogram.date,
                "right": AudiogramText.average(audiogram, ear: .right), "left": AudiogramText.average(audiogram, ear: .left),
                "grade": AudiogramText.overallGrade(audiogram)])
    }
}
