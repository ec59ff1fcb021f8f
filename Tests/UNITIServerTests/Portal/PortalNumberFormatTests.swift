import Foundation
import Testing
import UNITIProtocol
import UNITIText
@testable import UNITIServer

/// A number the portal shows a person is written as their language writes it (`28,8 dB HL` in
/// German); what is exported or posted keeps the point.
@Suite("Numbers in the visitor's language", .timeLimit(.minutes(5)))
struct PortalNumberFormatTests {
    @Test("German writes a decimal comma, English a point; whole numbers have no fraction unless asked for")
    func languageNumbers() {
        #expect(Language.english.number(28.75, fractionDigits: 1) == "28.8")
        #expect(Language.german.number(28.75, fractionDigits: 1) == "28,8")
        #expect(Language.german.number(20, fractionDigits: 1) == "20,0")
        #expect(Language.german.number(40.5) == "40,5")
        #expect(Language.german.number(40) == "40")
        #expect(Language.german.number(-0.25) == "-0,25")
        #expect(SliderRange(min: 0, max: 100, step: 0.5, unit: "%").text(54.5, in: .german) == "54,5 %")
        #expect(PortalText.number(2.5, "de") == "2,5" && PortalText.number(2.5, "en") == "2.5" && PortalText.number(2.5, "fr") == "2.5")
    }

    @Test("an audiogram's averages read 28,8 on the German page and 28.8 on the English one")
    func audiogramAveragesInGerman() async throws {
        let server = try TestServer()
        try await server.run { client in
            let anna = PortalBrowser(client)
            try await server.portalAccount(anna, "anna")
            #expect(try await server.portalLogin(anna, "anna").status == .seeOther)
            let saved = try await anna.submit("/record/audiograms/new", to: "/record/audiograms", PortalRecordTests.levels())
            let location = try #require(saved.headers[.location])
            let path = String(location.prefix { $0 != "?" })
            // Right: (10 + 15 + 20 + 35) / 4 = 20; left: (20 + 25 + 30 + 40) / 4 = 28.75.
            let english = try await anna.get(path)
            #expect(english.text.contains(#"<dd id="average-left">28.8</dd>"#))
            anna.cookies["uniti_language"] = "de"
            let german = try await anna.get(path)
            #expect(german.text.contains(#"<dd id="average-left">28,8</dd>"#), "\(german.text)")
            #expect(german.text.contains(#"<dd id="average-right">20,0</dd>"#))
            #expect(try await anna.get("/record/audiograms").text.contains("28,8"))
        }
    }

    @Test("a slider answered 40.5 shows as 40,5 % on the German sheet page and stays 40.5 in the download; the form's values keep the point")
    func sliderAnswerInGerman() async throws {
        let server = try TestServer()
        try await server.createStudy("s")
        let json = """
            {"id": "half", "version": 1, "title": {"en": "Half steps"}, "kind": "oneTime",
             "items": [{"type": "slider", "label": "level", "required": true, "text": {"en": "How much?"},
                        "min": 0, "max": 100, "step": 0.5, "unit": "%"}]}
            """
        _ = try await server.store.addQuestionnaire(try QuestionnaireImport.document(from: Data(json.utf8), studyId: "s"),
                                                     module: .tys, now: server.clock.now())
        try await server.run { client in
            let anna = try await server.loggedInPortalAccount(client, "anna")
            let token = try await client.apiToken("anna")
            #expect(try await client.json(.post, "/api/v1/studies/s/join", token: token, body: JoinStudyRequest()).status == .ok)
            // The slider's form: its attributes keep the point; the script shows its value with a German comma.
            anna.cookies["uniti_language"] = "de"
            let form = try await anna.get("/questionnaires/half")
            #expect(form.text.contains(#"data-decimal=",""#), "\(form.text)")
            #expect(form.text.contains(#"step="0.5""#))
            anna.cookies["uniti_language"] = "en"
            let started = OffsetTimestamp(parsing: "2027-01-15T09:00:00+01:00")!
            let id = UUID()
            let sheet = AnswerSheet(id: id, questionnaireID: "half", questionnaireVersion: 1,
                                    answers: ["level": Answer(value: .number(40.5), answeredAt: started)],
                                    startedAt: started, endedAt: started, clientVersion: "test 1")
            let stored = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet]))
            #expect(stored.status == .ok, "\(stored.text)")
            let path = "/data/sheets/\(id.uuidString.lowercased())"
            #expect(try await anna.get(path).text.contains("40.5 %"))
            anna.cookies["uniti_language"] = "de"
            let german = try await anna.get(path)
            #expect(german.text.contains("40,5 %"), "\(german.text)")
            let download = try await anna.get("/data/export.json")
            #expect(download.text.contains("40.5") && !download.text.contains("40,5"))
        }
    }
}
