import Foundation
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The shared harness with the core tables only, for driving the questionnaire engine.
final class QuestionnaireHarness {
    let harness: ModuleHarness
    var database: AppDatabase { harness.database }
    var output: CapturedOutput { harness.output }
    var input: ScriptedInput { harness.input }
    var clock: FixedClock { harness.clock }
    var services: CoreServices { harness.services }
    var console: Console { services.console }

    init(lines: [String] = []) throws {
        harness = try ModuleHarness([], input: lines, now: Date(timeIntervalSince1970: 1_795_000_000))
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
