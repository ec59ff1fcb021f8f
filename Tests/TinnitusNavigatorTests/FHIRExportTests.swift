import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import TinnitusNavigatorShared
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: tn export --fhir writes the record as a valid FHIR R4 bundle", .timeLimit(.minutes(10)))
struct FHIRExportTests {
    static let berlin = ModuleHarness.berlin

    static func day(_ year: Int, _ month: Int, _ day: Int) -> LocalDate { LocalDate(year: year, month: month, day: day) }
    static func at(_ date: LocalDate, _ hour: Int, _ minute: Int = 0) -> Date {
        date.instant(at: TimeOfDay(hour: hour, minute: minute), in: berlin)
    }

    /// A record with every kind of entry: events of each type, therapies planned, running and
    /// ended (a medical one among them), two audiograms with custom frequencies, discomfort,
    /// pitch and loudness, and a completed tinnitus-distress-12. Logged in with an e-mail
    /// address as the login name, which must not reach the file.
    static func seededFixture() throws -> TNFixture {
        let fixture = try TNFixture()
        let now = TNFixture.now
        try fixture.services.sessions.save(Session(username: "anna.example@example.org", tokens: SessionTokens(
            accessToken: "a", refreshToken: "r", expiresAt: "2026-11-24T10:00:00Z", refreshExpiresAt: "2026-12-24T10:00:00Z")))
        let store = fixture.store
        for event in [
            try HealthEvent(title: "ENT check-up", at: at(day(2026, 5, 1), 9, 30), type: .appointment,
                            description: "Audiogram and tinnitus matching", now: now),
            try HealthEvent(title: "Audiologist", at: at(day(2026, 12, 1), 14), type: .appointment, description: nil, now: now),
            try HealthEvent(title: "Loud after the concert", at: at(day(2026, 7, 12), 23, 15), type: .attack,
                            description: "Lasted two days", now: now),
            try HealthEvent(title: "Depressive episode", at: at(day(2026, 2, 3), 8), type: .mentalIllness, description: nil, now: now),
            try HealthEvent(title: "Moved to a quieter flat", at: at(day(2026, 8, 20), 12), type: .other, description: nil, now: now),
        ] { try store.save(event) }
        for therapy in [
            try Therapy(name: "Hearing aids, both ears", type: .hearingAid, start: day(2026, 4, 1), end: nil, note: "Helps in company", now: now),
            try Therapy(name: "CBT for tinnitus", type: .psychotherapy, start: day(2025, 1, 10), end: day(2025, 6, 30), note: nil, now: now),
            try Therapy(name: "Betahistine", type: .medical, start: day(2025, 2, 1), end: day(2025, 3, 1), note: "No change", now: now),
            try Therapy(name: "Retraining", type: .trt, start: day(2026, 12, 1), end: nil, note: nil, now: now),
            try Therapy(name: "Noiser at night", type: .masker, start: day(2026, 6, 1), end: day(2026, 12, 31), note: nil, now: now),
        ] { try store.save(therapy) }
        let first = try Audiogram(
            id: "aaaaaaaa-0000-4000-8000-000000000001", date: day(2026, 3, 2),
            thresholds: (Audiogram.standardFrequencies + [3000, 12_000]).map { EarValues(hz: $0, left: $0 == 1000 ? 35 : 20, right: 25) },
            discomfort: [EarValues(hz: 1000, left: 95, right: 100), EarValues(hz: 4000, left: 90, right: nil)],
            pitchLeft: 6000, loudnessLeft: 40, note: "Measured at the ENT practice", now: now)
        let second = try Audiogram(
            id: "aaaaaaaa-0000-4000-8000-000000000002", date: day(2026, 10, 15),
            thresholds: Audiogram.standardFrequencies.map { EarValues(hz: $0, left: 30, right: $0 == 8000 ? nil : 30) },
            pitchLeft: 4000, pitchRight: 4500, loudnessLeft: 30, loudnessRight: 35, now: now)
        try store.save(first)
        try store.save(second)
        try store.save(CompletedQuestionnaire(sheet: try distressSheet()))
        return fixture
    }

    /// A finished tinnitus-distress-12 with every question answered.
    static func distressSheet() throws -> AnswerSheet {
        let definition = try QuestionnaireLoader.bundled("tinnitus-distress-12")
        let ended = at(day(2026, 11, 20), 18)
        var answers: [String: Answer] = [:]
        for (index, item) in definition.questions.enumerated() {
            guard case .singleChoice(let options) = item.element else { continue }
            answers[item.label] = Answer(value: .integer(options[index % options.count].value),
                                         answeredAt: OffsetTimestamp(ended, in: berlin))
        }
        return AnswerSheet(id: UUID(uuidString: "5F0C1A7E-2B64-4E1F-9C1D-8B1E2F3A4B5C")!, questionnaireID: definition.id,
                           questionnaireVersion: definition.version, answers: answers,
                           startedAt: OffsetTimestamp(ended.addingTimeInterval(-240), in: berlin),
                           endedAt: OffsetTimestamp(ended, in: berlin), clientVersion: "uniti test", language: "en", owner: .tn)
    }

    static func temporaryPath() -> String { NSTemporaryDirectory() + "tn-fhir-\(UUID().uuidString).json" }

    static func export(_ fixture: TNFixture) throws -> (path: String, bundle: JSONValue, run: (succeeded: Bool, out: String, err: String)) {
        let path = temporaryPath()
        let run = fixture.run("tn export --fhir \(path)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (path, try JSONDecoder().decode(JSONValue.self, from: data), run)
    }

    static func resources(_ bundle: JSONValue) -> [JSONValue] {
        (bundle["entry"]?.arrayItems ?? []).compactMap { $0["resource"] }
    }

    @Test("the export of a full record passes fhir.resources' R4 validation, every resource of it")
    func exportValidates() throws {
        let fixture = try Self.seededFixture()
        let (path, bundle, run) = try Self.export(fixture)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(run.succeeded, "\(run.err)")
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == "55 resources written to \(path)")
        let result = try FHIRValidator.validate(path)
        #expect(result.status == 0, "validator: \(result.err)")
        #expect(result.out.contains("55 resources valid (FHIR 4.0.1)"))
        #expect(bundle["resourceType"] == .string("Bundle"))
        #expect(bundle["type"] == .string("collection"))
    }

    @Test("the bundle holds one resource per entry as mapped: counts per type, values, references, no e-mail")
    func exportStructure() throws {
        let fixture = try Self.seededFixture()
        let (path, bundle, _) = try Self.export(fixture)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let resources = Self.resources(bundle)
        var counts: [String: Int] = [:]
        for resource in resources { counts[resource["resourceType"]?.stringValue ?? "?", default: 0] += 1 }
        // Audiograms: 24 (18 thresholds, 3 discomfort, pitch and loudness left, panel) and 18
        // (13 thresholds, pitch and loudness per ear, panel); events: 3 non-appointments.
        #expect(counts == ["Patient": 1, "Questionnaire": 1, "QuestionnaireResponse": 1, "Observation": 45,
                           "Encounter": 2, "Procedure": 4, "MedicationStatement": 1])

        // The left ear's threshold at 1000 Hz in March, under its LOINC code.
        let left1000 = resources.filter {
            $0["code"]?["coding"]?.arrayItems.first?["code"] == .string("89016-0") && $0["effectiveDateTime"] == .string("2026-03-02")
        }
        #expect(left1000.count == 1)
        #expect(left1000.first?["valueQuantity"] == .object(["value": .number(35), "unit": .string("dB HL"),
                                                             "system": .string("http://unitsofmeasure.org"), "code": .string("dB")]))
        // 12000 Hz has no LOINC code: text only, the frequency as a component.
        let high = resources.filter { $0["code"]?["text"] == .string("Hearing threshold, left ear, 12000 Hz") }
        #expect(high.count == 1)
        #expect(high.first?["code"]?["coding"] == nil)
        #expect(high.first?["component"]?.arrayItems.first?["valueQuantity"]?["value"] == .number(12_000))

        // Every reference and the questionnaire's canonical URL point at an entry of the bundle.
        let fullURLs = Set((bundle["entry"]?.arrayItems ?? []).compactMap { $0["fullUrl"]?.stringValue })
        #expect(fullURLs.count == 55)
        #expect(fullURLs.allSatisfy { $0.hasPrefix("urn:uuid:") })
        let references = bundle.all("reference").compactMap(\.stringValue)
        #expect(references.count > 55)
        #expect(references.filter { !fullURLs.contains($0) } == [])
        let response = try #require(resources.first { $0["resourceType"] == .string("QuestionnaireResponse") })
        let questionnaire = try #require(resources.first { $0["resourceType"] == .string("Questionnaire") })
        #expect(response["questionnaire"] == questionnaire["url"])
        #expect(fullURLs.contains(response["questionnaire"]?.stringValue ?? ""))
        #expect(response["item"]?.arrayItems.count == 12)
        #expect(response["item"]?.arrayItems.first?["answer"]?.arrayItems.first?["valueCoding"]?["code"] == .string("0"))

        // A panel per audiogram, whose members are the audiogram's other Observations.
        let panels = resources.filter { $0["code"]?["coding"]?.arrayItems.first?["code"] == .string("89015-2") }
        #expect(panels.map { $0["hasMember"]?.arrayItems.count } == [23, 17])

        // The login name is an e-mail address; nothing like one reaches the file.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("@"))
        #expect(!text.contains("anna.example"))
        let patient = try #require(resources.first)
        #expect(patient["resourceType"] == .string("Patient"))
        #expect(patient["name"] == nil && patient["telecom"] == nil)
    }

    @Test("events map by kind: an appointment is an Encounter planned or finished, an attack an Observation")
    func eventMapping() throws {
        let fixture = try Self.seededFixture()
        let (path, bundle, _) = try Self.export(fixture)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let resources = Self.resources(bundle)
        let encounters = resources.filter { $0["resourceType"] == .string("Encounter") }
        #expect(encounters.map { $0["status"] } == [.string("finished"), .string("planned")])
        #expect(encounters.first?["period"]?["start"] == .string("2026-05-01T09:30:00+02:00"))
        #expect(encounters.first?["reasonCode"]?.arrayItems.first?["text"] == .string("Audiogram and tinnitus matching"))
        let attack = try #require(resources.first { $0["valueString"] == .string("Loud after the concert") })
        #expect(attack["code"] == .object(["text": .string("tinnitus attack")]))
        #expect(attack["effectiveDateTime"] == .string("2026-07-12T23:15:00+02:00"))
        #expect(attack["note"]?.arrayItems.first?["text"] == .string("Lasted two days"))
        let statement = try #require(resources.first { $0["resourceType"] == .string("MedicationStatement") })
        #expect(statement["medicationCodeableConcept"]?["text"] == .string("Betahistine"))
        #expect(statement["effectivePeriod"] == .object(["start": .string("2025-02-01"), "end": .string("2025-03-01")]))
    }

    @Test("two exports of the same record are the same bytes, and the pseudonym is kept")
    func deterministic() throws {
        let fixture = try Self.seededFixture()
        let (first, _, _) = try Self.export(fixture)
        let (second, _, _) = try Self.export(fixture)
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
        #expect(try fixture.context.moduleSetting(PseudonymousPatient.settingKey) != nil)
    }

    @Test("without --fhir the command refuses in one line saying what to type, and writes nothing")
    func usage() throws {
        let fixture = try TNFixture()
        let run = fixture.run("tn export")
        #expect(!run.succeeded)
        #expect(run.err.contains("tn export --fhir FILE.json"))
        #expect(run.err.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1)
        let missing = NSTemporaryDirectory() + "no-such-dir-\(UUID().uuidString)/x.json"
        let unwritable = fixture.run("tn export --fhir \(missing)")
        #expect(!unwritable.succeeded)
        #expect(unwritable.err.contains("Cannot write \(missing)"))
    }

    @Test("the validator is no formality: it rejects an Observation without status, naming it")
    func validatorRejects() throws {
        let patient = FHIRResourceID.named("patient")
        let path = try FHIRValidator.writeBundle([
            FHIRBundleEntry(id: patient, resource: .object(["resourceType": .string("Patient")])),
            FHIRBundleEntry(id: .named("observation"), resource: .object([
                "resourceType": .string("Observation"), "code": .object(["text": .string("x")]),
                "subject": FHIR.reference(patient),
            ])),
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try FHIRValidator.validate(path)
        #expect(result.status == 1)
        #expect(result.err.contains("entry 1 (Observation"))
        #expect(result.err.contains("status"))
    }
}
