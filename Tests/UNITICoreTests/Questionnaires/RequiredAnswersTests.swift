import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("Every question required (RequiredAnswers)", .timeLimit(.minutes(10)))
struct RequiredAnswersTests {
    @Test("every question becomes required; display items stay unrequired, unknown types become unrequired, the rest is unchanged")
    func flags() throws {
        let unknown = try QuestionnaireFixtures.definition("unknown-type.json")
        let applied = RequiredAnswers.everyQuestion.applied(to: unknown)
        #expect(applied.items.map(\.required) == [true, false, false])
        let every = RequiredAnswers.everyQuestion.applied(to: try QuestionnaireFixtures.everyElement)
        #expect(every.items.filter { $0.element.isQuestion }.allSatisfy { $0.required })
        #expect(every.items.filter { !$0.element.isQuestion }.allSatisfy { !$0.required })
        #expect(RequiredAnswers.asDefined.applied(to: unknown) == unknown)
        #expect(QuestionnaireValidator.validate(every).isEmpty)
    }

    @Test("the engine refuses to finish while an item its definition leaves optional is unanswered")
    func optionalItemRequired() throws {
        // every-element.json item by item: the optional single choice "place" is left empty.
        let harness = try QuestionnaireHarness(lines: ["y", "35", "7", "-", "2,4", "9", "3", "all fine", "2025-12-24"])
        #expect(throws: (any Error).self) {
            try harness.engine().answer(QuestionnaireFixtures.everyElement, owner: "tys", requiring: .everyQuestion)
        }
        #expect(try harness.count("core_answer_sheets") == 0)
    }

    @Test("a required item of an unknown type no longer blocks: it is announced, skipped, and the sheet is finished")
    func unknownTypeSkipped() throws {
        let harness = try QuestionnaireHarness(lines: ["y"])
        let result = try harness.engine().answer(QuestionnaireFixtures.definition("unknown-type.json"), owner: "tys",
                                                 requiring: .everyQuestion)
        #expect(result.sheet.values == ["ok": .integer(0)])
        #expect(!result.sheet.isPartial)
        #expect(harness.output.out.contains("uses the element type \"drawing\", which this version does not support"))
        // The sheet still names the definition as it is: id and version unchanged.
        #expect(result.sheet.questionnaireID == "future-elements" && result.sheet.questionnaireVersion == 1)
    }

    @Test("fill runs alsoStoring in the sheet's transaction: when it fails, the sheet is not kept either")
    func fillHookInSameTransaction() throws {
        // The demo study's one-time questionnaire; the second time its kept draft is resumed and saved.
        let harness = try ModuleHarness([], input: ["1", "3", "-", "50", "3", "2", "save"] + ["y", "save"],
                                        now: StudyQuestionnaireServiceTests.now)
        let service = StudyQuestionnaires(services: harness.services, module: .tys)
        let status = try service.status(of: "tys-demo-about-you")
        struct Refused: Error {}
        #expect(throws: (any Error).self) {
            try service.fill(status, with: QuestionnaireEngine(services: harness.services)) { _, _ in throw Refused() }
        }
        #expect(try service.sheets().isEmpty)
        var storedBeforeHook: Bool?
        let result = try service.fill(status, with: QuestionnaireEngine(services: harness.services)) { result, db in
            // The sheet is already stored in this same transaction.
            storedBeforeHook = try AnswerSheetStore.isFinished(result.sheet.id, in: db)
        }
        #expect(storedBeforeHook == true)
        #expect(try service.sheets().map(\.sheet.id) == [result.sheet.id])
    }
}
