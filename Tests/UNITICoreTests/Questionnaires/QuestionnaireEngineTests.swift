import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Questionnaire engine, line protocol", .timeLimit(.minutes(10)))
struct QuestionnaireLineProtocolTests {
    /// Answers for every-element.json that are all valid.
    static let validLines = ["y", "35", "7", "2", "2,4", "9", "3", "all fine", "2025-12-24"]

    @Test("each prompt is shown once and answers come from the following lines")
    func answersEveryElement() throws {
        let harness = try QuestionnaireHarness(lines: Self.validLines)
        let result = try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        let values = result.sheet.values
        #expect(values == [
            "hears-noise": .integer(0), "loudness": .number(35), "stress": .integer(7), "place": .integer(2),
            "company": .choices([2, 4]), "valence": .integer(9), "arousal": .integer(3), "note": .text("all fine"),
            "onset": .text("2025-12-24"),
        ])
        #expect(harness.input.prompts.count == 9)
        #expect(harness.input.prompts[0] == "1/7 Do you hear the noise now? * (y/n) ")
        #expect(harness.input.prompts[1] == "2/9 How loud is it? * (0–100) ")
        #expect(!result.sheet.isPartial)
        #expect(result.sheet.startedAt.offsetSeconds == 3600)
        #expect(result.sheet.endedAt != nil)
        #expect(result.sheet.clientVersion.hasPrefix("uniti "))
        #expect(AnswerSheetValidator.validate(result.sheet, against: try QuestionnaireFixtures.everyElement).isEmpty)
        // Finished: the draft is gone.
        #expect(try harness.count("core_questionnaire_drafts") == 0)
    }

    @Test("malformed or out-of-range input repeats the prompt after one line saying what is accepted")
    func repromptsOnBadInput() throws {
        var lines = Self.validLines
        lines.replaceSubrange(0...0, with: ["maybe", "0", "ja"])   // yes/no: two bad lines
        lines.replaceSubrange(3...3, with: ["33", "101", "35"])     // slider: off step, out of range
        let harness = try QuestionnaireHarness(lines: lines)
        let result = try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        #expect(result.sheet.values["hears-noise"] == .yesNo(true))
        #expect(result.sheet.values["loudness"] == .number(35))
        let prompts = harness.input.prompts
        #expect(prompts.filter { $0.contains("Do you hear the noise now?") }.count == 3)
        #expect(prompts.filter { $0.contains("How loud is it?") }.count == 3)
        let out = harness.output.out
        #expect(out.components(separatedBy: "Type y or n (yes/no, ja/nein). An answer is needed.\n").count - 1 == 2)
        #expect(out.components(separatedBy: "Type a number from 0 to 100 in steps of 5. An answer is needed.\n").count - 1 == 2)
    }

    @Test("a dash leaves an optional item empty and is refused for a required one")
    func dashLeavesEmpty() throws {
        let harness = try QuestionnaireHarness(lines: ["y", "-", "35", "7", "-", "-", "9", "-", "-", "-"])
        let result = try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        #expect(Set(result.sheet.answers.keys) == ["hears-noise", "loudness", "stress", "valence"])
        #expect(harness.output.out.contains("This question needs an answer. Type a number from 0 to 100 in steps of 5."))
    }

    @Test("answering no hides the conditional items; they are neither asked nor stored")
    func conditionsHideItems() throws {
        let harness = try QuestionnaireHarness(lines: ["n", "3", "-", "-", "5", "-", "-"])
        let result = try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        #expect(result.sheet.values["hears-noise"] == .yesNo(false))
        #expect(result.sheet.answers["loudness"] == nil)
        #expect(result.sheet.answers["onset"] == nil)
        #expect(!harness.input.prompts.contains { $0.contains("How loud") || $0.contains("Since when") })
    }

    @Test("an untouched slider stores no value")
    func sliderWithoutInitialValue() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "level", text: "Level", element: .slider(SliderRange(min: 0, max: 10, step: 1))),
        ])
        let harness = try QuestionnaireHarness(lines: ["-"])
        let result = try harness.engine().answer(definition, owner: "tyt")
        #expect(result.sheet.answers.isEmpty)
        let json = String(decoding: try JSONEncoder().encode(result.sheet), as: UTF8.self)
        #expect(!json.contains("level"))
    }

    @Test("nothing is saved when input ends before the sheet is valid, and the draft holds only valid answers")
    func nothingSavedOnInvalidInput() throws {
        let harness = try QuestionnaireHarness(lines: ["y", "200", "abc"])
        #expect(throws: PromptCancelled.self) {
            try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        }
        #expect(try harness.count("core_answer_sheets") == 0)
        let draft = try #require(try harness.drafts.draft(owner: "tys", questionnaireID: "every-element"))
        #expect(draft.sheet.values == ["hears-noise": .yesNo(true)])
        #expect(draft.sheet.isPartial)
    }

    @Test("a preview writes nothing to the database")
    func previewStoresNothing() throws {
        let harness = try QuestionnaireHarness(lines: ["y", "35"])
        #expect(throws: PromptCancelled.self) {
            try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "preview", keepsDraft: false)
        }
        #expect(try harness.count("core_questionnaire_drafts") == 0)
    }

    @Test("an interrupted sheet is offered for resuming and continues where it stopped")
    func resumesDraft() throws {
        let definition = try QuestionnaireFixtures.everyElement
        let first = try QuestionnaireHarness(lines: ["y", "40", "-"])  // "-" on the required scale is refused, then input ends
        let engine = first.engine()
        #expect(throws: PromptCancelled.self) { try engine.answer(definition, owner: "tys") }
        #expect(first.output.err.contains("so far are kept"))
        let draft = try #require(try first.drafts.draft(owner: "tys", questionnaireID: "every-element"))

        // A new start of the same questionnaire (same database): resume, then answer the rest.
        let second = try QuestionnaireHarness(lines: ["y", "6", "-", "-", "5", "-", "-", "-"])
        try second.drafts.save(draft, owner: "tys")
        let result = try second.engine().answer(definition, owner: "tys")
        #expect(second.input.prompts[0].contains("Continue where you stopped?"))
        #expect(second.input.prompts[0].contains("answered 2 questions"))
        #expect(!second.input.prompts.contains { $0.contains("How loud") })
        #expect(result.sheet.id == draft.sheet.id)
        #expect(result.sheet.values["loudness"] == .number(40))
        #expect(result.sheet.values["stress"] == .integer(6))
        #expect(try second.count("core_questionnaire_drafts") == 0)
    }

    @Test("declining to resume starts afresh and drops the draft")
    func declinesResume() throws {
        let harness = try QuestionnaireHarness(lines: ["y", "40"])
        #expect(throws: PromptCancelled.self) { try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys") }
        let again = ScriptedInput(["n"] + ["n", "3", "-", "-", "5", "-", "-"])
        let services = CoreServices(dataDirectory: harness.services.dataDirectory, database: harness.database,
                                    console: harness.console, input: again, clock: harness.clock,
                                    random: SeededRandomSource(seed: 1), program: .integrated)
        let result = try QuestionnaireEngine(services: services, localizer: Localizer(language: .english)).answer(QuestionnaireFixtures.everyElement, owner: "tys")
        #expect(result.sheet.values["hears-noise"] == .yesNo(false))
        #expect(result.sheet.answers["loudness"] == nil)
    }

    @Test("a required item of an unknown type is shown as unsupported and blocks submission with the reason")
    func unsupportedRequiredBlocks() throws {
        let harness = try QuestionnaireHarness(lines: ["y"])
        #expect {
            try harness.engine().answer(QuestionnaireFixtures.definition("unknown-type.json"), owner: "tys")
        } throws: { error in
            let message = (error as? UNITIError)?.message ?? ""
            return message.contains("answers.sketch") && message.contains("not supported by this version")
        }
        #expect(harness.output.out.contains("uses the element type \"drawing\", which this version does not support"))
        #expect(harness.input.prompts.count == 1)
        #expect(try harness.count("core_answer_sheets") == 0)
    }

    @Test("an invalid definition is refused before anything is asked")
    func refusesInvalidDefinition() throws {
        let harness = try QuestionnaireHarness(lines: ["y"])
        #expect(throws: UNITIError.self) {
            try harness.engine().answer(QuestionnaireFixtures.definition("broken-rules.json"), owner: "tys")
        }
        #expect(harness.input.prompts.isEmpty)
    }

    @Test("the distress questionnaire is scored with its grade after answering")
    func scoresAfterAnswering() throws {
        let harness = try QuestionnaireHarness(lines: ["2", "1", "0", "1", "2", "0", "1", "2", "1", "1", "0", "2"])
        let result = try harness.engine().answer(QuestionnaireFixtures.distress, owner: "tn")
        #expect(result.scores.first == ScoreResult(id: "total", value: 15, grade: "severe", missing: []))
        let summary = QuestionnaireAuthoring.summary(of: result, definition: try QuestionnaireFixtures.distress,
                                                     localizer: Localizer(language: .english))
        #expect(summary.contains("  Total distress: 15 (severe)"))
        #expect(summary.contains("  cope-well: 0 (not true)"))
    }
}

@Suite("Answer sheet store", .timeLimit(.minutes(10)))
struct AnswerSheetStoreTests {
    @Test("sheets are stored with their module and read back; storing the same id twice keeps one")
    func storesSheets() throws {
        let harness = try QuestionnaireHarness(lines: QuestionnaireLineProtocolTests.validLines)
        let result = try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys")
        try harness.sheets.save(result.sheet, owner: "tys")
        try harness.sheets.save(result.sheet, owner: "tys")
        #expect(try harness.sheets.sheets(owner: "tys") == [result.sheet])
        #expect(try harness.sheets.sheets(owner: "tyt").isEmpty)
        #expect(try harness.sheets.sheet(id: result.sheet.id) == result.sheet)
    }

    @Test("a synced draft travels as a record, never as a partial answer sheet, and holds valid partial answers")
    func syncedDraft() throws {
        let harness = try QuestionnaireHarness(lines: ["y", "40"])
        let engine = harness.engine()
        #expect(throws: PromptCancelled.self) {
            try engine.answer(QuestionnaireFixtures.everyElement, owner: "tys", syncsDraft: true)
        }
        let draft = try #require(try engine.drafts.draft(owner: "tys", questionnaireID: "every-element"))
        #expect(draft.sheet.isPartial)
        #expect(AnswerSheetValidator.validate(draft.sheet, against: try QuestionnaireFixtures.everyElement).isEmpty)
        let queued = try engine.services.database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, clientID FROM core_outbox").map { "\($0["kind"] as String) \($0["clientID"] as String)" }
        }
        #expect(queued == ["record record:tys:draft:every-element"])
        #expect(try harness.sheets.sheets(owner: "tys", questionnaireID: "every-element").isEmpty)
    }
}
