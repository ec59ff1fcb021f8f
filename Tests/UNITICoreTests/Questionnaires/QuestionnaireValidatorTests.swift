import Foundation
import Testing
import UNITIProtocol

@Suite("Questionnaire validation", .timeLimit(.minutes(10)))
struct QuestionnaireValidatorTests {
    func problems(_ name: String) throws -> [String] {
        QuestionnaireValidator.validate(try QuestionnaireFixtures.definition(name)).map(\.description)
    }

    @Test("a broken definition reports every problem with its path and rule")
    func reportsAllProblems() throws {
        let found = try problems("broken-rules.json")
        let expected = [
            "id: must be lower-case letters, digits, '-', '_' or '.', starting with a letter or digit",
            "version: must be an integer of at least 1",
            "title: must have English text (\"en\")",
            "sensors[1]: unknown sensor \"heartRate\"; known: microphoneLevel, location",
            "schedule: a repeating questionnaire needs a schedule",
            "items[0].max: must be greater than min",
            "items[1].step: must divide max - min (10) into whole steps",
            "items[2].label: label \"a\" is already used by items[0]",
            "items[2].options[1].value: value 1 is already used by options[0]",
            "items[3].max: must be greater than min",
            "items[3].showIf.label: must refer to an earlier item; \"d\" is items[4]",
            "items[4].text: must have English text (\"en\")",
            "items[5].showIf.label: refers to no item labelled \"nowhere\"",
            "items[6].points: must be 9 or 5",
            "items[7].maxLength: must be at least 1",
            "items[8].options: needs at least one option",
            "scoring.scores[0].items[2]: item \"g\" (freeText) has no numeric value to add",
            "scoring.scores[0].items[3]: refers to no item labelled \"zz\"",
            "scoring.scores[0].reversed[0]: \"f\" is not among the score's items",
            "scoring.scores[0].bands[1].min: leaves a gap after bands[0], which ends at 1; start at 2",
            "scoring.scores[1].id: score \"total\" is defined twice",
            "scoring.scores[1].bands[1].min: overlaps bands[0] (0–1); bands must be in increasing order without overlap",
        ]
        for line in expected {
            #expect(found.contains(line), "missing: \(line)")
        }
        #expect(found.count == expected.count, "unexpected: \(found.filter { !expected.contains($0) })")
    }

    @Test("every shipped definition and the example definitions are valid")
    func bundledAreValid() throws {
        let shipped = try FileManager.default.contentsOfDirectory(atPath: QuestionnaireFixtures.bundledFolder.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(shipped.contains("tinnitus-distress-12.json") && shipped.contains("tn-case-history.json"))
        for name in shipped + ["every-element.json", "generated-111-items.json", "unknown-type.json"] {
            #expect(try problems(name) == [], "\(name)")
        }
        #expect(try QuestionnaireFixtures.definition("generated-111-items.json").items.count == 111)
    }

    @Test("bands must cover every total the items can give")
    func bandsCoverRange() {
        let definition = QuestionnaireFixtures.make(
            [QuestionnaireItem(label: "a", text: "A", element: .scale(min: 0, max: 4, minLabel: nil, maxLabel: nil))],
            scoring: QuestionnaireScoring(scores: [ScoreRule(id: "s", items: ["a"], bands: [
                GradeBand(min: 0, max: 1, grade: "low"), GradeBand(min: 2, max: 3, grade: "high")])]))
        #expect(QuestionnaireValidator.validate(definition).map(\.code) == [.bandsDoNotCover])
    }

    @Test("slider step must be positive and ranges finite; schedules need sane numbers and dates")
    func sliderAndSchedule() {
        var definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "s", text: "S", element: .slider(SliderRange(min: 0, max: 1, step: 0))),
            QuestionnaireItem(label: "t", text: "T", element: .slider(SliderRange(min: 0, max: 1, step: 0.1))),
        ])
        definition.kind = .repeating
        definition.schedule = QuestionnaireSchedule(frequency: .weekly, timing: .between, start: "2026-05-01",
                                                    end: "2026-04-01", every: 0, amount: 0, startOnDay: -1)
        let found = QuestionnaireValidator.validate(definition).map(\.description)
        #expect(found == [
            "schedule.end: must not be before start",
            "schedule.every: must be at least 1",
            "schedule.amount: must be at least 1",
            "schedule.startOnDay: must be 0 or more",
            "items[0].step: must be greater than 0",
        ])
        definition.schedule = QuestionnaireSchedule(frequency: .monthly, timing: .fixed, at: "2026-13-01")
        #expect(QuestionnaireValidator.validate(definition).map(\.description) == [
            "schedule.at: must be a date written YYYY-MM-DD", "items[0].step: must be greater than 0",
        ])
    }

    @Test("conditions may not point at display items and labels must be identifiers")
    func conditionTargets() {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "intro", text: "Hello", element: .text),
            QuestionnaireItem(label: "q", text: "Q", showIf: ItemCondition(label: "intro", equals: .integer(0)), element: .yesNo),
            QuestionnaireItem(label: "bad label", text: "Q", element: .yesNo),
            QuestionnaireItem(label: "h", element: .headline),
        ])
        #expect(QuestionnaireValidator.validate(definition).map(\.description) == [
            "items[1].showIf.label: refers to \"intro\", which takes no answer",
            "items[2].label: must be letters, digits, '-', '_' or '.', starting with a letter or digit",
            "items[3].text: display items need a text",
        ])
    }
}

@Suite("Answer sheet validation", .timeLimit(.minutes(10)))
struct AnswerSheetValidatorTests {
    let stamp = OffsetTimestamp(Date(timeIntervalSince1970: 1_790_000_000), in: TimeZone(identifier: "UTC")!)

    func sheet(_ values: [String: AnswerValue], partial: Bool = false, id: String = "every-element", version: Int = 3) -> AnswerSheet {
        AnswerSheet(id: UUID(), questionnaireID: id, questionnaireVersion: version,
                    answers: values.mapValues { Answer(value: $0, answeredAt: stamp) },
                    startedAt: stamp, endedAt: stamp, clientVersion: "test", isPartial: partial)
    }

    @Test("a complete, well-typed sheet passes")
    func validSheet() throws {
        let definition = try QuestionnaireFixtures.everyElement
        let values: [String: AnswerValue] = [
            "hears-noise": .yesNo(true), "loudness": .number(35), "stress": .integer(7), "place": .integer(2),
            "company": .choices([2, 4]), "valence": .integer(9), "arousal": .integer(1), "note": .text("fine"),
            "onset": .text("2025-12-24"),
        ]
        #expect(AnswerSheetValidator.validate(sheet(values), against: definition).isEmpty)
    }

    @Test("each wrong answer is named by its label and rule")
    func wrongAnswers() throws {
        let definition = try QuestionnaireFixtures.everyElement
        let values: [String: AnswerValue] = [
            "hears-noise": .integer(1),          // no: hides loudness and onset
            "loudness": .number(35),             // hidden
            "stress": .integer(8),               // out of range
            "place": .integer(9),                // not an option
            "company": .choices([2, 2]),         // twice
            "valence": .text("happy"),           // wrong type
            "arousal": .integer(6),              // 5-point
            "note": .text(String(repeating: "x", count: 201)),
            "t-explain": .integer(1),            // display item
            "ghost": .integer(1),                // unknown
        ]
        let found = AnswerSheetValidator.validate(sheet(values), against: definition).map(\.description)
        #expect(found == [
            "answers.arousal: must be 1–5",
            "answers.company: an option is selected twice",
            "answers.ghost: no item of every-element v3 has this label",
            "answers.loudness: item is hidden by its condition on \"hears-noise\" and must not be answered",
            "answers.note: must be at most 200 characters",
            "answers.place: must be one of 1, 2, 3",
            "answers.stress: must be 0–7",
            "answers.t-explain: text items take no answer",
            "answers.valence: expected a whole number",
        ])
    }

    @Test("slider answers must lie on a step; dates must be real")
    func sliderStepsAndDates() throws {
        let definition = try QuestionnaireFixtures.everyElement
        let base: [String: AnswerValue] = ["hears-noise": .yesNo(true), "stress": .integer(1), "valence": .integer(5)]
        var values = base
        values["loudness"] = .number(33)
        values["onset"] = .text("2025-02-29")
        #expect(AnswerSheetValidator.validate(sheet(values), against: definition).map(\.description) == [
            "answers.loudness: must be on a step of 5 from 0",
            "answers.onset: expected a date YYYY-MM-DD",
        ])
        values["loudness"] = .number(105)
        values["onset"] = nil
        #expect(AnswerSheetValidator.validate(sheet(values), against: definition).map(\.code) == [.outOfRange])
    }

    @Test("required shown items must be answered unless the sheet is partial")
    func requiredItems() throws {
        let definition = try QuestionnaireFixtures.everyElement
        let values: [String: AnswerValue] = ["hears-noise": .yesNo(true)]
        let found = AnswerSheetValidator.validate(sheet(values), against: definition)
        #expect(found.map(\.label) == ["loudness", "stress", "valence"])
        #expect(found.allSatisfy { $0.code == .requiredMissing })
        #expect(AnswerSheetValidator.validate(sheet(values, partial: true), against: definition).isEmpty)
        // Answering "no" hides the required slider, so it is no longer missing.
        let hidden = AnswerSheetValidator.validate(sheet(["hears-noise": .yesNo(false)]), against: definition)
        #expect(hidden.map(\.label) == ["stress", "valence"])
    }

    @Test("a required item of an unknown type blocks submission and says why")
    func requiredUnsupportedBlocks() throws {
        let definition = try QuestionnaireFixtures.definition("unknown-type.json")
        let found = AnswerSheetValidator.validate(sheet(["ok": .yesNo(true)], id: "future-elements", version: 1), against: definition)
        #expect(found.map(\.code) == [.requiredUnsupported])
        #expect(found.first?.label == "sketch")
        #expect(found.first?.message.contains("not supported by this version") == true)
    }

    @Test("a sheet for another questionnaire or version is refused")
    func wrongQuestionnaire() throws {
        let definition = try QuestionnaireFixtures.everyElement
        #expect(AnswerSheetValidator.validate(sheet([:], version: 2), against: definition).map(\.code) == [.wrongQuestionnaire])
    }
}

@Suite("Questionnaire scoring", .timeLimit(.minutes(10)))
struct QuestionnaireScoringTests {
    @Test("the distress total sums twelve 0–2 items with one reversed, and grades it")
    func distressScore() throws {
        let definition = try QuestionnaireFixtures.distress
        let labels = definition.scoring!.scores[0].items
        #expect(labels.count == 12)
        // Everything "true" (2), except the positively worded item also "true" → counts 0.
        var answers = Dictionary(uniqueKeysWithValues: labels.map { ($0, AnswerValue.integer(2)) })
        var results = QuestionnaireScorer.scores(for: definition, answers: answers)
        #expect(results[0] == ScoreResult(id: "total", value: 22, grade: "very-severe", missing: []))
        answers["cope-well"] = .integer(0)
        results = QuestionnaireScorer.scores(for: definition, answers: answers)
        #expect(results[0].value == 24)
        #expect(results[1] == ScoreResult(id: "emotional", value: 12, grade: nil, missing: []))
        #expect(results[2].value == 12)

        let grades = [(0, "slight"), (7, "slight"), (8, "moderate"), (12, "moderate"), (13, "severe"), (18, "severe"), (19, "very-severe")]
        for (total, grade) in grades {
            // Spread `total` over the items (reversed item kept at its neutral 1).
            var remaining = total - 1
            var values: [String: AnswerValue] = ["cope-well": .integer(1)]
            for label in labels where label != "cope-well" {
                let value = min(2, max(0, remaining))
                remaining -= value
                values[label] = .integer(value)
            }
            if total == 0 { values["cope-well"] = .integer(2) ; values["noise-wears-me-out"] = .integer(0) }
            let result = QuestionnaireScorer.scores(for: definition, answers: values)[0]
            #expect(result.value == Double(total) && result.grade == grade, "total \(total)")
        }
    }

    @Test("a score with an unanswered item has no value and lists what is missing")
    func missingItems() throws {
        let definition = try QuestionnaireFixtures.distress
        let result = QuestionnaireScorer.scores(for: definition, answers: ["low-mood": .integer(1)])[0]
        #expect(result.value == nil)
        #expect(result.missing.count == 11)
    }

    @Test("reversing uses each item's own bounds, and multiple choice adds its selected values")
    func reverseWithBounds() {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "s", text: "S", element: .scale(min: 1, max: 7, minLabel: nil, maxLabel: nil)),
            QuestionnaireItem(label: "v", text: "V", element: .samValence(points: 9)),
            QuestionnaireItem(label: "m", text: "M", element: .multipleChoice(options: [ChoiceOption(value: 1, text: "a"), ChoiceOption(value: 4, text: "b")], minSelected: nil, maxSelected: nil)),
        ], scoring: QuestionnaireScoring(scores: [ScoreRule(id: "x", items: ["s", "v", "m"], reversed: ["s", "v"])]))
        let result = QuestionnaireScorer.scores(for: definition, answers: ["s": .integer(2), "v": .integer(9), "m": .choices([1, 4])])
        #expect(result[0].value == 12.0)  // (1 + 7 - 2) + (1 + 9 - 9) + (1 + 4)
    }
}
