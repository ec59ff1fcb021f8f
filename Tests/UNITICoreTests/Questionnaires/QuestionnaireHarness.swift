import Foundation
@testable import UNITICore
import UNITIProtocol

/// A temporary data directory with the core tables, captured output, scripted lines and a
/// fixed clock, for driving the questionnaire engine in tests.
final class QuestionnaireHarness {
    let folder: String
    let database: AppDatabase
    let console: Console
    let output: CapturedOutput
    let input: ScriptedInput
    let clock: FixedClock
    let services: CoreServices

    init(lines: [String] = []) throws {
        folder = NSTemporaryDirectory() + "uniti-questionnaire-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        database = try AppDatabase(path: folder + "/uniti.sqlite", migrationSets: CoreMigrations.all)
        (console, output) = Console.capturing()
        input = ScriptedInput(lines)
        clock = FixedClock(Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "Europe/Berlin")!)
        services = CoreServices(dataDirectory: DataDirectory(path: folder), database: database, console: console,
                                input: input, clock: clock)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func engine(keys: (any KeyInput)? = nil) -> QuestionnaireEngine {
        QuestionnaireEngine(services: services, keys: keys, localizer: Localizer(language: .english))
    }

    var drafts: QuestionnaireDraftStore { QuestionnaireDraftStore(database: database, clock: clock) }
    var sheets: AnswerSheetStore { AnswerSheetStore(database: database, clock: clock) }

    /// Rows in a core table.
    func count(_ table: String) throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }
}
