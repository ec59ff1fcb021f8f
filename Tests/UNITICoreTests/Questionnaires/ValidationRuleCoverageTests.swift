import Foundation
import Testing
import UNITIProtocol

/// One small case per validation rule, so every rule is known to fire (and only where meant).
@Suite("Questionnaire validation rules, one case each", .timeLimit(.minutes(10)))
struct ValidationRuleCoverageTests {
    typealias Code = ValidationProblem.Code
    static let stamp = OffsetTimestamp(Date(timeIntervalSince1970: 1_790_000_000), in: TimeZone(identifier: "UTC")!)

    static func yesNo(_ label: String, required: Bool = false, showIf: ItemCondition? = nil) -> QuestionnaireItem {
        QuestionnaireItem(label: label, text: "Q", required: required, showIf: showIf, element: .yesNo)
    }

    static func options(_ values: [Int]) -> [ChoiceOption] { values.map { ChoiceOption(value: $0, text: LocalizedText(["en": "o\($0)"])) } }

    static func scored(_ items: [QuestionnaireItem], _ rule: ScoreRule) -> QuestionnaireDefinition {
        QuestionnaireFixtures.make(items, scoring: QuestionnaireScoring(scores: [rule]))
    }

    /// Definitions that break exactly one rule.
    static var definitionCases: [(Code, QuestionnaireDefinition)] {
        var cases: [(Code, QuestionnaireDefinition)] = []
        var d = QuestionnaireFixtures.make([yesNo("a")])
        d.id = "Upper"; cases.append((.invalidIdentifier, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.version = 0; cases.append((.invalidVersion, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.intro = LocalizedText(["de": "Hallo"]); cases.append((.missingEnglish, d))
        cases.append((.noItems, QuestionnaireFixtures.make([])))
        cases.append((.duplicateLabel, QuestionnaireFixtures.make([yesNo("a"), yesNo("a")])))
        cases.append((.invalidLabel, QuestionnaireFixtures.make([yesNo("-a")])))
        cases.append((.conditionUnknownLabel, QuestionnaireFixtures.make([yesNo("a", showIf: ItemCondition(label: "x", equals: .integer(0)))])))
        cases.append((.conditionForwardReference, QuestionnaireFixtures.make([yesNo("a", showIf: ItemCondition(label: "b", equals: .integer(0))), yesNo("b")])))
        cases.append((.conditionOnDisplayItem, QuestionnaireFixtures.make([
            QuestionnaireItem(label: "h", text: "H", element: .headline), yesNo("a", showIf: ItemCondition(label: "h", equals: .integer(0)))])))
        cases.append((.conditionNoValues, QuestionnaireFixtures.make([yesNo("a"), yesNo("b", showIf: ItemCondition(label: "a", in: []))])))
        cases.append((.noOptions, QuestionnaireFixtures.make([QuestionnaireItem(label: "c", text: "C", element: .singleChoice(options: []))])))
        cases.append((.duplicateChoiceValue, QuestionnaireFixtures.make([QuestionnaireItem(label: "c", text: "C", element: .singleChoice(options: options([1, 1])))])))
        cases.append((.invalidSelectionBounds, QuestionnaireFixtures.make([QuestionnaireItem(label: "c", text: "C",
            element: .multipleChoice(options: options([1, 2]), minSelected: nil, maxSelected: 3))])))
        cases.append((.rangeNotIncreasing, QuestionnaireFixtures.make([QuestionnaireItem(label: "s", text: "S", element: .scale(min: 3, max: 3, minLabel: nil, maxLabel: nil))])))
        cases.append((.invalidStep, QuestionnaireFixtures.make([QuestionnaireItem(label: "s", text: "S", element: .slider(SliderRange(min: 0, max: 1, step: -1)))])))
        cases.append((.stepDoesNotDivideRange, QuestionnaireFixtures.make([QuestionnaireItem(label: "s", text: "S", element: .slider(SliderRange(min: 0, max: 1, step: 0.3)))])))
        cases.append((.invalidPoints, QuestionnaireFixtures.make([QuestionnaireItem(label: "s", text: "S", element: .samArousal(points: 3))])))
        cases.append((.invalidMaxLength, QuestionnaireFixtures.make([QuestionnaireItem(label: "t", text: "T", element: .freeText(multiline: false, maxLength: -5))])))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.kind = .repeating; cases.append((.missingSchedule, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2026-1-1")
        cases.append((.invalidDate, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 0)
        cases.append((.invalidScheduleNumber, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.schedule = QuestionnaireSchedule(frequency: .weekly, timing: .fixed)
        cases.append((.scheduleIncomplete, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2026-02-01", end: "2026-01-31")
        cases.append((.dateRangeNotIncreasing, d))
        d = QuestionnaireFixtures.make([yesNo("a")])
        d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, windows: [PromptWindow(days: ["mon"], from: "20:00", to: "08:00")])
        cases.append((.invalidWindow, d))
        // A gap of 20 minutes beside the default completion window of 60: two prompts open at once.
        d = QuestionnaireFixtures.make([yesNo("a")]); d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 2, minimumGapMinutes: 20)
        cases.append((.promptsOverlap, d))
        // Three prompts an hour apart do not fit 08:00-09:00.
        d = QuestionnaireFixtures.make([yesNo("a")])
        d.schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 3, windows: [PromptWindow(days: ["mon"], from: "08:00", to: "09:00")])
        cases.append((.promptsDoNotFit, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.sensors = [QuestionnaireSensor(rawValue: "gps")]; cases.append((.unknownSensor, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.sensors = [.location, .location]; cases.append((.duplicateSensor, d))
        d = QuestionnaireFixtures.make([yesNo("a")]); d.languages = ["el", "EN"]; cases.append((.invalidLanguages, d))
        cases.append((.duplicateScoreID, QuestionnaireFixtures.make([yesNo("a")], scoring: QuestionnaireScoring(scores: [
            ScoreRule(id: "s", items: ["a"]), ScoreRule(id: "s", items: ["a"])]))))
        cases.append((.scoreUnknownItem, scored([yesNo("a")], ScoreRule(id: "s", items: ["b"]))))
        cases.append((.scoreItemNotNumeric, scored([QuestionnaireItem(label: "d", text: "D", element: .date)], ScoreRule(id: "s", items: ["d"]))))
        cases.append((.reversedNotInItems, scored([yesNo("a"), yesNo("b")], ScoreRule(id: "s", items: ["a"], reversed: ["b"]))))
        cases.append((.bandNotIncreasing, scored([yesNo("a")], ScoreRule(id: "s", items: ["a"], bands: [GradeBand(min: 1, max: 0, grade: "g")]))))
        cases.append((.bandOverlap, scored([yesNo("a"), yesNo("b")], ScoreRule(id: "s", items: ["a", "b"], bands: [
            GradeBand(min: 0, max: 1, grade: "g"), GradeBand(min: 1, max: 2, grade: "h")]))))
        cases.append((.bandGap, scored([yesNo("a"), yesNo("b"), yesNo("c")], ScoreRule(id: "s", items: ["a", "b", "c"], bands: [
            GradeBand(min: 0, max: 0, grade: "g"), GradeBand(min: 2, max: 3, grade: "h")]))))
        cases.append((.bandsDoNotCover, scored([yesNo("a"), yesNo("b")], ScoreRule(id: "s", items: ["a", "b"], bands: [
            GradeBand(min: 0, max: 1, grade: "g")]))))
        return cases
    }

    /// Answers that break exactly one sheet rule, against `sheetDefinition`.
    static let sheetDefinition = QuestionnaireFixtures.make([
        QuestionnaireItem(label: "intro", text: "Hello", element: .text),
        yesNo("a", required: true),
        yesNo("b", showIf: ItemCondition(label: "a", equals: .integer(0))),
        QuestionnaireItem(label: "c", text: "C", element: .singleChoice(options: options([1, 2]))),
        QuestionnaireItem(label: "m", text: "M", element: .multipleChoice(options: options([1, 2, 3]), minSelected: 2, maxSelected: nil)),
        QuestionnaireItem(label: "s", text: "S", element: .slider(SliderRange(min: 0, max: 1, step: 0.5))),
        QuestionnaireItem(label: "t", text: "T", element: .freeText(multiline: false, maxLength: 3)),
        QuestionnaireItem(label: "u", text: "U", element: .unsupported(typeName: "drawing")),
    ])

    static let sheetCases: [(Code, [String: AnswerValue])] = [
        (.unknownLabel, ["a": .integer(1), "zz": .integer(1)]),
        (.answerToDisplayItem, ["a": .integer(1), "intro": .integer(1)]),
        (.answerToHiddenItem, ["a": .integer(1), "b": .integer(1)]),
        (.wrongType, ["a": .integer(1), "t": .integer(5)]),
        (.outOfRange, ["a": .integer(2)]),
        (.notOnStep, ["a": .integer(1), "s": .number(0.25)]),
        (.unknownChoice, ["a": .integer(1), "c": .integer(3)]),
        (.duplicateChoice, ["a": .integer(1), "m": .choices([1, 1])]),
        (.selectionCount, ["a": .integer(1), "m": .choices([1])]),
        (.tooLong, ["a": .integer(1), "t": .text("four")]),
        (.requiredMissing, [:]),
    ]

    @Test("each definition rule fires on its case and nothing else does", arguments: definitionCases.map { ($0.0.rawValue, $0.1) })
    func definitionRule(code: String, definition: QuestionnaireDefinition) {
        #expect(QuestionnaireValidator.validate(definition).map(\.code.rawValue) == [code])
    }

    @Test("each sheet rule fires on its case and nothing else does", arguments: sheetCases.map { ($0.0.rawValue, $0.1) })
    func sheetRule(code: String, values: [String: AnswerValue]) {
        let found = AnswerSheetValidator.validate(answers: values, isPartial: false, against: Self.sheetDefinition)
        #expect(found.map(\.code.rawValue) == [code])
    }

    @Test("every rule has a case (the wrong-questionnaire and unsupported rules are tested with sheets elsewhere)")
    func everyRuleCovered() {
        let covered = Set(Self.definitionCases.map(\.0) + Self.sheetCases.map(\.0) + [.wrongQuestionnaire, .requiredUnsupported])
        #expect(covered == Set(Code.allCases))
    }
}
