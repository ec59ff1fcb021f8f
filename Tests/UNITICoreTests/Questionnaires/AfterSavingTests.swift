import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// A study's message after a questionnaire and its help text above a score threshold (issue 30),
/// shown at once after saving, in the person's language.
@Suite("Texts after saving: the study's message, and help when a score reaches its threshold", .timeLimit(.minutes(2)))
struct AfterSavingTests {
    static let definition: QuestionnaireDefinition = {
        var definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "distress", text: "How distressed are you?", element: .slider(SliderRange(min: 0, max: 10, step: 1))),
        ], scoring: QuestionnaireScoring(scores: [ScoreRule(id: "total", items: ["distress"])]))
        definition.afterSaving = AfterSaving(
            message: LocalizedText(["en": "These answers are not read by a clinician.", "de": "Diese Antworten liest keine Ärztin."]),
            help: [ScoreHelp(score: "total", atLeast: 8, text: LocalizedText(["en": "In a crisis call 112.", "de": "In einer Krise: 112."]))])
        return definition
    }()

    @Test("a score at the threshold shows the message and the help; below it only the message", arguments: [("8", true), ("7", false)])
    func helpAtThreshold(_ answer: String, _ helps: Bool) throws {
        let harness = try QuestionnaireHarness(lines: [answer])
        _ = try harness.engine().answer(Self.definition, owner: "tys")
        #expect(harness.output.out.contains("These answers are not read by a clinician."))
        #expect(harness.output.out.contains("In a crisis call 112.") == helps, "\(harness.output.out)")
    }

    @Test("the texts come in the language asked in")
    func inGerman() throws {
        let harness = try QuestionnaireHarness(lines: ["9"])
        _ = try QuestionnaireEngine(services: harness.services, localizer: Localizer(language: .german)).answer(Self.definition, owner: "tys")
        #expect(harness.output.out.contains("Diese Antworten liest keine Ärztin.") && harness.output.out.contains("In einer Krise: 112."))
    }

    @Test("help for a score the questionnaire does not have, or without English, is a validation problem")
    func validated() throws {
        var definition = Self.definition
        definition.afterSaving?.help.append(ScoreHelp(score: "nope", atLeast: 1, text: LocalizedText(["de": "Nur Deutsch"])))
        let problems = QuestionnaireValidator.validate(definition).map(\.path)
        #expect(problems.contains("afterSaving.help[1].score") && problems.contains("afterSaving.help[1].text"), "\(problems)")
        #expect(QuestionnaireValidator.validate(Self.definition).isEmpty)
        // Round trip: the field survives encoding, and a definition without it still decodes.
        let data = try JSONEncoder().encode(Self.definition)
        #expect(try JSONDecoder().decode(QuestionnaireDefinition.self, from: data).afterSaving == Self.definition.afterSaving)
    }
}
