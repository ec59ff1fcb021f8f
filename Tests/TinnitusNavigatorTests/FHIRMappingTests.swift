import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import TinnitusNavigatorShared
import UNITIProtocol
import UNITITesting

@Suite("FHIR mapping: therapy status by dates, questionnaire item types, answers, ids", .timeLimit(.minutes(10)))
struct FHIRMappingTests {
    static let today = "2026-11-23"

    static func therapy(_ type: Therapy.Kind, _ start: String, _ end: String?) throws -> Therapy {
        try Therapy(name: "t", type: type, start: LocalDate(parsing: start), end: end.map { try LocalDate(parsing: $0) },
                    note: nil, now: TNFixture.now)
    }

    @Test("a therapy is in preparation before its start, in progress up to and on its last day, completed after",
          arguments: [
              ("2026-12-01", nil, "preparation", "intended"),
              ("2026-11-23", nil, "in-progress", "active"),
              ("2026-01-01", "2026-11-23", "in-progress", "active"),
              ("2026-01-01", "2026-11-22", "completed", "completed"),
              ("2025-01-01", nil, "in-progress", "active"),
          ] as [(String, String?, String, String)])
    func therapyStatus(start: String, end: String?, procedure: String, medication: String) throws {
        #expect(TherapyFHIR.status(of: try Self.therapy(.psychotherapy, start, end), on: Self.today) == procedure)
        #expect(TherapyFHIR.status(of: try Self.therapy(.medical, start, end), on: Self.today) == medication)
    }

    @Test("a medical treatment is a MedicationStatement, every other therapy a Procedure with performedPeriod")
    func therapyResourceTypes() throws {
        for kind in Therapy.Kind.allCases {
            #expect(TherapyFHIR.resourceType(of: try Self.therapy(kind, "2026-01-01", nil)) == (kind == .medical ? "MedicationStatement" : "Procedure"))
        }
        let patient = PseudonymousPatient(id: .named("p"))
        let entry = TherapyFHIR(patient: patient, words: FHIRExportWords { key, _ in key }, today: Self.today).entry(try Self.therapy(.trt, "2026-01-01", "2026-02-01"))
        #expect(entry.resource["performedPeriod"] == .object(["start": .string("2026-01-01"), "end": .string("2026-02-01")]))
        #expect(entry.resource["subject"] == FHIR.reference(patient.id))
    }

    /// A definition with every element type, a condition on a yes/no and one on a choice.
    static let allTypes = QuestionnaireDefinition(id: "all-types", version: 3, title: LocalizedText(["en": "All", "de": "Alle"]), items: [
        QuestionnaireItem(label: "h", text: "Head", element: .headline),
        QuestionnaireItem(label: "t", text: "Read this", element: .text),
        QuestionnaireItem(label: "yn", text: LocalizedText(["en": "Ringing?", "de": "Klingeln?"]), required: true, element: .yesNo),
        QuestionnaireItem(label: "one", text: "One", element: .singleChoice(options: [
            ChoiceOption(value: 0, text: LocalizedText(["en": "no", "de": "nein"])), ChoiceOption(value: 2, text: "yes"),
        ])),
        QuestionnaireItem(label: "many", text: "Many", showIf: ItemCondition(label: "yn", equals: .yesNo(true)),
                          element: .multipleChoice(options: [ChoiceOption(value: 1, text: "a"), ChoiceOption(value: 2, text: "b")],
                                                   minSelected: nil, maxSelected: nil)),
        QuestionnaireItem(label: "whole", text: "Whole slider", showIf: ItemCondition(label: "one", in: [.integer(0), .integer(2)]),
                          element: .slider(SliderRange(min: 0, max: 100, step: 5))),
        QuestionnaireItem(label: "fine", text: "Fine slider", element: .slider(SliderRange(min: 0, max: 1, step: 0.1))),
        QuestionnaireItem(label: "scale", text: "Scale", element: .scale(min: 0, max: 7, minLabel: nil, maxLabel: nil)),
        QuestionnaireItem(label: "valence", text: "Valence", element: .samValence(points: 9)),
        QuestionnaireItem(label: "arousal", text: "Arousal", element: .samArousal(points: 5)),
        QuestionnaireItem(label: "line", text: "Line", element: .freeText(multiline: false, maxLength: 80)),
        QuestionnaireItem(label: "para", text: "Paragraph", element: .freeText(multiline: true, maxLength: nil)),
        QuestionnaireItem(label: "when", text: "When", element: .date),
        QuestionnaireItem(label: "future", text: "Future", element: .unsupported(typeName: "drawing")),
    ])

    static func item(_ questionnaire: JSONValue, _ label: String) -> JSONValue? {
        questionnaire["item"]?.arrayItems.first { $0["linkId"] == .string(label) }
    }

    @Test("each element type becomes its FHIR item type, choices with options, showIf as enableWhen")
    func itemTypes() throws {
        let questionnaire = Self.allTypes.fhirQuestionnaire(url: "urn:uuid:00000000-0000-4000-8000-000000000000")
        let types = Dictionary(uniqueKeysWithValues: Self.allTypes.items.map { ($0.label, Self.item(questionnaire, $0.label)?["type"]?.stringValue) })
        #expect(types == ["h": "display", "t": "display", "yn": "boolean", "one": "choice", "many": "choice", "whole": "integer",
                          "fine": "decimal", "scale": "integer", "valence": "integer", "arousal": "integer", "line": "string",
                          "para": "text", "when": "date", "future": "string"])
        #expect(Self.item(questionnaire, "many")?["repeats"] == .bool(true))
        #expect(Self.item(questionnaire, "yn")?["required"] == .bool(true))
        #expect(Self.item(questionnaire, "line")?["maxLength"] == .number(80))
        #expect(Self.item(questionnaire, "one")?["answerOption"]?.arrayItems.last?["valueCoding"] == .object(["code": .string("2"), "display": .string("yes")]))
        // yes is stored as 0: enableWhen compares with the boolean true.
        #expect(Self.item(questionnaire, "many")?["enableWhen"] == .array([.object([
            "question": .string("yn"), "operator": .string("="), "answerBoolean": .bool(true)])]))
        #expect(Self.item(questionnaire, "many")?["enableBehavior"] == nil)
        #expect(Self.item(questionnaire, "whole")?["enableWhen"]?.arrayItems.count == 2)
        #expect(Self.item(questionnaire, "whole")?["enableBehavior"] == .string("any"))
        // The German title travels as a translation extension of `title`.
        #expect(questionnaire["_title"]?.all("valueString") == [.string("Alle")])
    }

    @Test("answers take the type their item declares: yes = 0 is true, choices are codings, dates are dates")
    func answerTypes() {
        let sheet = AnswerSheet(id: UUID(), questionnaireID: "all-types", questionnaireVersion: 3, answers: [
            "yn": Answer(value: .yesNo(true), answeredAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)),
            "many": Answer(value: .choices([1, 2]), answeredAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)),
            "fine": Answer(value: .number(0.3), answeredAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)),
            "when": Answer(value: .text("2026-11-01"), answeredAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)),
            "gone": Answer(value: .integer(4), answeredAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)),
        ], startedAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin), clientVersion: "test")
        let response = sheet.fhirQuestionnaireResponse(definition: Self.allTypes, questionnaireURL: "urn:uuid:x", subject: .named("p"))
        let answers = Dictionary(uniqueKeysWithValues: (response["item"]?.arrayItems ?? []).map {
            ($0["linkId"]?.stringValue ?? "", $0["answer"]?.arrayItems ?? [])
        })
        #expect(answers["yn"] == [.object(["valueBoolean": .bool(true)])])
        #expect(answers["many"]?.count == 2)
        #expect(answers["many"]?.last == .object(["valueCoding": .object(["code": .string("2"), "display": .string("b")])]))
        #expect(answers["fine"] == [.object(["valueDecimal": .number(0.3)])])
        #expect(answers["when"] == [.object(["valueDate": .string("2026-11-01")])])
        // An answer to an item the definition lacks is kept, typed by its value.
        #expect(answers["gone"] == [.object(["valueInteger": .number(4)])])
        #expect(response["status"] == .string("completed"))
    }

    @Test("a questionnaire of every element type and a response to every item pass fhir.resources' R4 validation")
    func allTypesValidate() throws {
        let patient = FHIRResourceID.named("patient")
        let url = FHIRResourceID.named("questionnaire/all-types/3")
        let stamp = OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin)
        let values: [String: AnswerValue] = [
            "yn": .yesNo(false), "one": .integer(2), "many": .choices([1]), "whole": .integer(55), "fine": .number(0.7),
            "scale": .integer(6), "valence": .integer(3), "arousal": .integer(5), "line": .text("short"),
            "para": .text("two\nlines"), "when": .text("2026-10-30"), "future": .text("a sketch"),
        ]
        var sheet = AnswerSheet(id: UUID(), questionnaireID: "all-types", questionnaireVersion: 3,
                                answers: values.mapValues { Answer(value: $0, answeredAt: stamp) },
                                startedAt: stamp, endedAt: stamp, clientVersion: "test", language: "de")
        // It answers a prompt, late: the prompt's extension goes with it.
        sheet.promptId = "tyt/daily/2026-10-30T09:00"
        sheet.promptedAt = stamp
        sheet.late = true
        sheet.initiatedBy = .prompt
        let prompt = try #require(sheet.fhirPromptExtension)
        #expect(prompt["url"] == .string(FHIR.promptExtension))
        #expect(prompt["extension"] == .array([
            .object(["url": .string("initiatedBy"), "valueCode": .string("prompt")]),
            .object(["url": .string("promptId"), "valueString": .string("tyt/daily/2026-10-30T09:00")]),
            .object(["url": .string("deliveredAt"), "valueDateTime": .string(stamp.text)]),
            .object(["url": .string("timing"), "valueCode": .string("late")]),
        ]))
        var own = sheet
        (own.promptId, own.promptedAt, own.late, own.initiatedBy) = (nil, nil, nil, .participant)
        #expect(own.fhirPromptExtension?["extension"] == .array([
            .object(["url": .string("initiatedBy"), "valueCode": .string("participant")]),
            .object(["url": .string("timing"), "valueCode": .string("self-initiated")]),
        ]))
        own.initiatedBy = nil
        #expect(own.fhirPromptExtension == nil, "an older client's sheet says nothing of prompts")
        let path = try FHIRValidator.writeBundle([
            FHIRBundleEntry(id: patient, resource: .object(["resourceType": .string("Patient")])),
            FHIRBundleEntry(id: url, resource: Self.allTypes.fhirQuestionnaire(url: url.fullURL)),
            FHIRBundleEntry(id: .named("response"), resource: sheet.fhirQuestionnaireResponse(
                definition: Self.allTypes, questionnaireURL: url.fullURL, subject: patient)),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try FHIRValidator.validate(path)
        #expect(result.status == 0, "validator: \(result.err)")
    }

    @Test("resource ids are name-based UUIDs: the same name the same id, another name another, RFC 9562 version 8")
    func resourceIDs() {
        let id = FHIRResourceID.named("questionnaire/tinnitus-distress-12/1")
        #expect(id == FHIRResourceID.named("questionnaire/tinnitus-distress-12/1"))
        #expect(id != FHIRResourceID.named("questionnaire/tinnitus-distress-12/2"))
        #expect(UUID(uuidString: id.uuid) != nil)
        #expect(Array(id.uuid)[14] == "8")
        #expect(["8", "9", "a", "b"].contains(Array(id.uuid)[19]))
        #expect(id.fullURL == "urn:uuid:\(id.uuid)")
    }
}
