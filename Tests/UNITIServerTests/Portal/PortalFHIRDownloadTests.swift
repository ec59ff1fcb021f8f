import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TinnitusNavigatorShared
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// The portal's FHIR download (`/data/record.fhir.json`, issue 15): the person's sheets and
/// TinnitusNavigator record as one valid FHIR R4 bundle, named by pseudonym only, with nothing
/// of anyone else's.
@Suite("Portal FHIR download", .timeLimit(.minutes(10)))
struct PortalFHIRDownloadTests {
    /// Stores a tn `completed` record holding `sheet`, as the shell syncs one.
    private func completedRecord(_ server: TestServer, userId: Int64, _ sheet: AnswerSheet) async throws {
        let id = sheet.id.uuidString.lowercased()
        let stamp = (sheet.endedAt ?? sheet.startedAt).date
        let payload = JSONValue.object([
            "id": .string(id), "questionnaireID": .string(sheet.questionnaireID), "version": .number(Double(sheet.questionnaireVersion)),
            "completedAt": .string(Timestamps.formatMilliseconds(stamp)), "updatedAt": .string(Timestamps.formatMilliseconds(stamp)),
            "sheet": try JSONDecoder().decode(JSONValue.self, from: try JSONCoding.data(sheet)),
        ])
        let upsert = ModuleRecordUpsert(moduleId: "tn", clientId: "completed:\(id)", updatedAt: Timestamps.formatMilliseconds(stamp),
                                        deleted: nil, payload: payload)
        _ = try await server.store.applyRecords(userId: userId, changes: [RecordChange(upsert: upsert, updatedAt: stamp)])
    }

    private static func resources(_ bundle: JSONValue) -> [JSONValue] {
        bundle["entry"]?.arrayItems.compactMap { $0["resource"] } ?? []
    }

    private static func count(_ type: String, in bundle: JSONValue) -> Int {
        resources(bundle).filter { $0["resourceType"] == .string(type) }.count
    }

    @Test("the bundle holds each sheet once, the tn record and a pseudonymous Patient, is valid FHIR R4 and holds nothing of another person")
    func bundleOfOwnRecord() async throws {
        let server = try TestServer()
        try await server.createStudy("tinnitus")
        try await server.addQuestionnaire("daily", study: "tinnitus")
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            let bob = try await server.signedInBrowser(client, "bob")
            let annaId = try #require(try await server.store.user(login: "anna")).id

            // A sheet the server collected, also completed in tn (it must appear once), and one
            // completed in tn of a questionnaire the server does not know.
            let collected = sheet(loudness: 61)
            _ = try await server.store.storeSheets(userId: annaId, sheets: [ValidatedSheet(sheet: collected, studyId: "tinnitus")],
                                                   receivedAt: Date())
            try await completedRecord(server, userId: annaId, collected)
            let onlyInShell = sheet(loudness: 17, questionnaire: "tn-thi", startedAt: "2027-01-20T18:00:00+01:00")
            try await completedRecord(server, userId: annaId, onlyInShell)

            #expect(try await anna.submit("/record/events/new", to: "/record/events", [
                "title": "ENT appointment", "at": "2026-11-20T14:30", "type": "appointment", "description": ""]).status == .seeOther)
            #expect(try await anna.submit("/record/therapies/new", to: "/record/therapies", [
                "name": "Hearing aids", "type": "hearing-aid", "start": "2025-03-01", "end": "", "note": ""]).status == .seeOther)
            #expect(try await anna.submit("/record/audiograms/new", to: "/record/audiograms", PortalRecordTests.levels()).status == .seeOther)
            #expect(try await bob.submit("/record/events/new", to: "/record/events", [
                "title": "Bob's own attack", "at": "2026-11-21T08:00", "type": "attack", "description": ""]).status == .seeOther)

            let page = try await anna.get("/data")
            #expect(page.text.contains(#"href="/data/record.fhir.json""#))

            let download = try await anna.get("/data/record.fhir.json")
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == "application/fhir+json; charset=utf-8")
            #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"uniti-record-") == true)
            let text = download.text
            let bundle = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(bundle["resourceType"] == .string("Bundle"))
            #expect(bundle["type"] == .string("collection"))
            #expect(Self.count("Patient", in: bundle) == 1)
            #expect(Self.count("Questionnaire", in: bundle) == 1)
            #expect(Self.count("QuestionnaireResponse", in: bundle) == 2)
            #expect(Self.count("Encounter", in: bundle) == 1)
            #expect(Self.count("Procedure", in: bundle) == 1)
            // The audiogram panel and one Observation per ear and frequency (7 + 7), pitch and loudness left.
            #expect(Self.count("Observation", in: bundle) == 1 + 14 + 2)

            let responses = Self.resources(bundle).filter { $0["resourceType"] == .string("QuestionnaireResponse") }
            let values = responses.flatMap { $0.all("valueInteger") + $0.all("valueDecimal") }
            #expect(values.contains(.number(61)) && values.contains(.number(17)))

            // The Patient is the pseudonym and nothing else; no login, address or other person.
            let patient = try #require(Self.resources(bundle).first { $0["resourceType"] == .string("Patient") })
            #expect(patient["name"] == nil && patient["telecom"] == nil)
            let pseudonym = try #require(try await server.store.user(login: "anna")).pseudonym
            #expect(patient["id"] == .string(FHIRResourceID.named("uniti-server/patient/\(pseudonym)").uuid))
            for secret in ["anna@example.org", "\"anna\"", "Bob's own attack", "bob@example.org"] {
                #expect(!text.contains(secret), "the bundle contains \(secret)")
            }

            let file = NSTemporaryDirectory() + "portal-fhir-\(UUID().uuidString).json"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let validation = try FHIRValidator.validate(file)
            #expect(validation.status == 0, "\(validation.out)\(validation.err)")

            // The same download twice is the same file but for the bundle's timestamp.
            let again = try await anna.get("/data/record.fhir.json").text
            #expect(again.split(separator: "\n").filter { !$0.contains("\"timestamp\"") }
                == text.split(separator: "\n").filter { !$0.contains("\"timestamp\"") })
        }
    }

    @Test("the words are in the page's language, and without a session the download sends to the login")
    func languageAndLogin() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = try await server.signedInBrowser(client, "anna")
            #expect(try await anna.submit("/record/audiograms/new", to: "/record/audiograms", PortalRecordTests.levels()).status == .seeOther)
            #expect(try await anna.get("/data/record.fhir.json").text.contains("\"Pure-tone audiogram\""))
            anna.cookies["uniti_language"] = "de"
            let german = try await anna.get("/data/record.fhir.json").text
            #expect(german.contains("\"Tonaudiogramm\""))
            #expect(german.contains("Hörschwelle"))

            let stranger = try await PortalBrowser(client).get("/data/record.fhir.json")
            #expect(stranger.status == .seeOther)
            #expect(stranger.headers[.location] == "/login")
        }
    }
}
