import Foundation
import Testing
import UNITIProtocol

@Suite("Questionnaire format", .timeLimit(.minutes(10)))
struct QuestionnaireFormatTests {
    @Test("every element type decodes into its case with its fields")
    func decodesEveryElement() throws {
        let definition = try QuestionnaireFixtures.everyElement
        #expect(definition.id == "every-element")
        #expect(definition.version == 3)
        #expect(definition.kind == .repeating)
        #expect(definition.presentation == .oneAtATime)
        #expect(definition.sensors == [.microphoneLevel, .location])
        #expect(definition.schedule == QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2026-01-05",
                                                             end: "2026-03-29", every: 1, amount: 3, startOnDay: 2))
        let types = definition.items.map(\.element.typeName)
        #expect(Set(types) == Set(QuestionnaireElement.knownTypeNames))
        guard case .slider(let range) = definition.item(labeled: "loudness")?.element else {
            Issue.record("loudness is not a slider"); return
        }
        #expect(range.min == 0 && range.max == 100 && range.step == 5)
        #expect(range.maxLabel?.text(in: "de") == "sehr laut")
        #expect(definition.item(labeled: "loudness")?.showIf == ItemCondition(label: "hears-noise", equals: .integer(0)))
        #expect(definition.item(labeled: "arousal")?.element == .samArousal(points: 5))
        #expect(definition.item(labeled: "note")?.element == .freeText(multiline: true, maxLength: 200))
        #expect(definition.title.text(in: "de") == "Alle Elementtypen")
        #expect(QuestionnaireValidator.validate(definition).isEmpty)
    }

    @Test("a definition survives encoding and decoding unchanged")
    func roundTrips() throws {
        for name in ["every-element.json", "tinnitus-distress-12.json"] {
            let definition = try QuestionnaireFixtures.definition(name)
            let again = try QuestionnaireDefinition.load(from: JSONEncoder().encode(definition))
            #expect(again == definition)
        }
    }

    @Test("an unknown element type decodes as unsupported instead of failing")
    func unknownTypeLoads() throws {
        let definition = try QuestionnaireFixtures.definition("unknown-type.json")
        #expect(definition.items.count == 3)
        #expect(definition.items[1].element == .unsupported(typeName: "drawing"))
        #expect(definition.items[2].element == .unsupported(typeName: "audioRecording"))
        #expect(QuestionnaireValidator.validate(definition).isEmpty)
    }

    @Test("malformed JSON is refused with one error giving line and column")
    func syntaxErrorHasPosition() throws {
        #expect {
            try QuestionnaireDefinition.load(from: QuestionnaireFixtures.data("broken-syntax.json"))
        } throws: { error in
            let message = (error as? QuestionnaireFormatError)?.message ?? ""
            return message.hasPrefix("not valid JSON at line 5, column")
        }
    }

    @Test("a field of the wrong type is refused naming its JSON path")
    func fieldTypeErrorHasPath() throws {
        #expect(throws: QuestionnaireFormatError("items[1].min: expected an integer")) {
            try QuestionnaireDefinition.load(from: QuestionnaireFixtures.data("broken-field-type.json"))
        }
        #expect(throws: QuestionnaireFormatError("items[0].label: required field is missing")) {
            try QuestionnaireDefinition.load(from: Data(#"{"id":"x","version":1,"title":"T","items":[{"type":"yesNo"}]}"#.utf8))
        }
    }

    @Test("arbitrary bytes never crash the loader")
    func garbageIsAnError() {
        for text in ["", "null", "[]", "{", "\u{0}\u{1}", #"{"items": 5}"#, String(repeating: "[", count: 5000)] {
            #expect(throws: QuestionnaireFormatError.self) { try QuestionnaireDefinition.load(from: Data(text.utf8)) }
        }
    }

    @Test("yes is stored as 0 and no as 1")
    func yesNoValues() throws {
        #expect(AnswerValue.yesNo(true) == .number(0))
        #expect(AnswerValue.yesNo(false) == .number(1))
        let json = String(decoding: try JSONEncoder().encode([AnswerValue.yesNo(true), .yesNo(false)]), as: UTF8.self)
        #expect(json == "[0,1]")
    }

    @Test("times are written as ISO 8601 with their offset, digit for digit as Foundation's formatter writes them, and read back")
    func timestampTextMatchesFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let offsets = [0, 3600, 7200, -18_000, 19_800, -34_200, 45_900, 50_400, -43_200]
        for _ in 0..<2_000 {
            // From 1970 to 2200, and the offsets of real zones (half and quarter hours too).
            let instant = Date(timeIntervalSince1970: Double(Int64.random(in: 0...7_258_118_400, using: &generator)))
            let zone = TimeZone(secondsFromGMT: offsets.randomElement(using: &generator)!)!
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = zone
            formatter.formatOptions = [.withInternetDateTime, .withColonSeparatorInTimeZone]
            let expected = formatter.string(from: instant).replacingOccurrences(of: "Z", with: "+00:00")
            let stamp = OffsetTimestamp(instant, in: zone)
            #expect(stamp.text == expected)
            #expect(OffsetTimestamp(parsing: stamp.text)?.date == instant)
        }
        #expect(OffsetTimestamp(Date(timeIntervalSince1970: 1_782_000_000.25), in: TimeZone(secondsFromGMT: -5400)!).text
                    == "2026-06-20T22:30:00-01:30")
        #expect(OffsetTimestamp.utcMilliseconds(Date(timeIntervalSince1970: 1_782_000_000.25)) == "2026-06-21T00:00:00.250Z")
    }

    @Test("answer sheets keep the UTC offset of their times; a time on a day the calendar lacks is refused")
    func timestampsKeepOffset() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let instant = Date(timeIntervalSince1970: 1_782_000_000)  // a summer instant
        let stamp = OffsetTimestamp(instant, in: berlin)
        #expect(stamp.text.hasSuffix("+02:00"))
        #expect(stamp.offsetSeconds == 7200)
        #expect(stamp.date == instant)
        #expect(OffsetTimestamp(parsing: "2026-11-22T16:05:09Z")?.offsetSeconds == 0)
        #expect(OffsetTimestamp(parsing: "2026-11-22T16:05:09-05:30")?.offsetSeconds == -19_800)
        #expect(OffsetTimestamp(parsing: "2026-11-22T16:05:09") == nil)
        #expect(OffsetTimestamp(parsing: "2026-02-30T16:05:09Z") == nil)
        // The day must exist: leap days by the Gregorian rule, each month's length, no month 13 or day 0.
        for valid in ["2028-02-29", "2000-02-29", "2026-04-30", "2026-12-31", "2026-01-01"] {
            #expect(OffsetTimestamp(parsing: valid + "T16:05:09Z") != nil, "\(valid)")
        }
        for invalid in ["2026-02-29", "2100-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00", "2026-06-31"] {
            #expect(OffsetTimestamp(parsing: invalid + "T16:05:09Z") == nil, "\(invalid)")
        }

        let sheet = AnswerSheet(
            id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!, questionnaireID: "q", questionnaireVersion: 2,
            answers: ["a": Answer(value: .integer(1), answeredAt: stamp), "b": Answer(value: .choices([1, 4]), answeredAt: stamp),
                      "c": Answer(value: .text("hi"), answeredAt: stamp), "d": Answer(value: .number(2.5), answeredAt: stamp)],
            startedAt: stamp, endedAt: stamp, clientVersion: "uniti 0.1.0",
            sensors: SensorReadings(microphone: MicrophoneReading(dbfs: -41.5, measuredAt: stamp),
                                    location: LocationReading(latitude: 48.4, longitude: 9.99, accuracyMeters: 12, measuredAt: stamp)),
            isPartial: true)
        let data = try JSONEncoder().encode(sheet)
        #expect(try AnswerSheet.load(from: data) == sheet)
        #expect(String(decoding: data, as: UTF8.self).contains(#""startedAt":"\#(stamp.text)""#))
    }

    @Test("conditions show an item only when the earlier answer matches, through chains")
    func visibility() throws {
        let definition = QuestionnaireFixtures.make([
            QuestionnaireItem(label: "a", text: "A", element: .yesNo),
            QuestionnaireItem(label: "b", text: "B", showIf: ItemCondition(label: "a", equals: .integer(0)), element: .yesNo),
            QuestionnaireItem(label: "c", text: "C", showIf: ItemCondition(label: "b", in: [.integer(0), .integer(1)]), element: .yesNo),
            QuestionnaireItem(label: "d", text: "D", showIf: ItemCondition(label: "m", equals: .integer(4)),
                              element: .text),
            QuestionnaireItem(label: "m", text: "M", element: .multipleChoice(options: [ChoiceOption(value: 2, text: "x"), ChoiceOption(value: 4, text: "y")], minSelected: nil, maxSelected: nil)),
        ])
        #expect(definition.visibleLabels(given: [:]) == ["a", "m"])
        #expect(definition.visibleLabels(given: ["a": .integer(0)]) == ["a", "b", "m"])
        #expect(definition.visibleLabels(given: ["a": .integer(0), "b": .integer(1)]) == ["a", "b", "c", "m"])
        // Changing the first answer hides the whole chain, even with a stale answer to b.
        #expect(definition.visibleLabels(given: ["a": .integer(1), "b": .integer(1)]) == ["a", "m"])
    }
}

@Suite("Questionnaire JSON Schema", .timeLimit(.minutes(10)))
struct QuestionnaireSchemaTests {
    static let schemaURL = QuestionnaireFixtures.testsFolder.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Documentation/questionnaire.schema.json")

    @Test("the schema names the same element types, sensors and presentations as the code")
    func schemaMatchesCode() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemaURL)) as? [String: Any])
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let defs = try #require(schema["$defs"] as? [String: Any])
        let item = try #require(defs["item"] as? [String: Any])
        let rules = try #require(item["allOf"] as? [[String: Any]])
        let typed = Set(rules.compactMap { rule in
            ((rule["if"] as? [String: Any])?["properties"] as? [String: Any]).flatMap { ($0["type"] as? [String: Any])?["const"] as? String }
        })
        // Every type with fields of its own has a rule; yesNo and date have none.
        #expect(typed == Set(QuestionnaireElement.knownTypeNames).subtracting(["yesNo", "date"]))
        let properties = try #require(schema["properties"] as? [String: Any])
        // Every top-level field a definition can carry is in the schema (it allows no others).
        var full = QuestionnaireDefinition(id: "all", version: 1, title: "All", intro: "i", outro: "o", kind: .repeating,
                                           schedule: QuestionnaireSchedule(frequency: .daily, timing: .between), scheduleChangeable: true,
                                           sensors: [.location], items: [QuestionnaireItem(label: "a", element: .yesNo)],
                                           scoring: QuestionnaireScoring(scores: []))
        full.completionWindowMinutes = 30
        full.lateAnswerMinutes = 10
        full.afterSaving = AfterSaving(message: "m")
        full.languages = ["de", "en"]
        let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(full)) as? [String: Any])
        #expect(Set(encoded.keys).subtracting(properties.keys).isEmpty, "\(Set(encoded.keys).subtracting(properties.keys))")
        let sensors = ((properties["sensors"] as? [String: Any])?["items"] as? [String: Any])?["enum"] as? [String]
        #expect(sensors == QuestionnaireSensor.known.map(\.rawValue))
        let presentations = (properties["presentation"] as? [String: Any])?["enum"] as? [String]
        #expect(presentations == QuestionnairePresentation.allCases.map(\.rawValue))
        let kinds = (properties["kind"] as? [String: Any])?["enum"] as? [String]
        #expect(kinds == QuestionnaireKind.allCases.map(\.rawValue))
    }
}
