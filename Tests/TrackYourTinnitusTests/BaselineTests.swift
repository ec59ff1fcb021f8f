import Foundation
import GRDB
import Testing
@testable import TrackYourTinnitus
import UNITICore
import UNITIProtocol

@Suite("Baseline questionnaires (thesis FR8, FR9)")
struct BaselineTests {
    @Test("the chosen worst symptom is named by item 8 of the next check-in")
    func worstSymptom() throws {
        let fixture = try TinnitusFixture(input: ["3"] + CheckInTests.answers)
        try BaselineCommand.answer([WorstSymptom.questionnaireID], again: false, in: fixture.context)
        #expect(try WorstSymptom.chosen(in: fixture.context.answerSheets, owner: "tyt") == .worries)
        _ = try MomentaryCheckIn(context: fixture.context, moduleID: "tyt").run(recording: nil)
        let prompts = (fixture.services.input as! ScriptedInput).prompts
        #expect(prompts.contains { $0.contains("How strongly do you notice strong worries right now?") })
    }

    @Test("stopping half way keeps a partial sheet queued for sync; the next run resumes and completes the same sheet")
    func partialThenResume() throws {
        let first = try TinnitusFixture(input: ["2", "1"])
        #expect(throws: PromptCancelled.self) { try BaselineCommand.answer(["tyt-case-history"], again: false, in: first.context) }
        let partial = try #require(try first.context.answerSheets.sheets(owner: "tyt", questionnaireID: "tyt-case-history").first)
        #expect(partial.isPartial)
        #expect(partial.answers.count == 2)
        let queued = try first.services.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_outbox WHERE kind = 'answerSheet'")
        }
        #expect(queued == 1)

        // Same data, a later session: resume ("yes"), answer the rest.
        let later = ModuleContext(services: CoreServices(
            dataDirectory: first.services.dataDirectory, database: first.services.database, console: first.services.console,
            input: ScriptedInput(["yes", "1", "0", "no", "-"]), clock: first.clock), module: first.module.descriptor)
        try BaselineCommand.answer(["tyt-case-history"], again: false, in: later)
        let sheets = try later.answerSheets.sheets(owner: "tyt", questionnaireID: "tyt-case-history")
        #expect(sheets.count == 1)
        #expect(sheets[0].id == partial.id)
        #expect(!sheets[0].isPartial)
    }
}
