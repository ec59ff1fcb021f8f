import Foundation
import Testing
import UNITITesting

/// Questionnaires in the participant portal, in headless Chromium against a real `uniti-server`
/// (Tests/Portal/journey_questionnaires.py). In the integrated build the journey also runs the
/// real `uniti` shell: the baseline started in the browser continues in `uniti baseline`, and one
/// the shell started continues in the browser. The standalone build has no shell
/// (`--disable-default-traits`), so there the browser finishes the baseline it started; the
/// slider, validation and showIf journeys run in both.
@Suite("Portal questionnaires in a browser", .serialized, .timeLimit(.minutes(15)))
struct PortalQuestionnaireBrowserTests {
    @Test("baseline half in the browser, continued in the shell (integrated build); one sheet each on the server; untouched slider absent; notes beside the items; showIf live")
    func questionnaireJourneys() throws {
        let server = try StudyServer()
        try server.createStudy("base", modules: "tyt,tys",
                               questionnaires: ["uniti-case-history", "tinnitus-distress-12", "tys-demo-about-you", "tys-demo-daily"])
        var expected = ["baseline halfway journey", "slider journey"]
        expected.append(Builds.isIntegrated ? "shell journey" : "browser baseline journey")
        try PortalJourney.run("journey_questionnaires.py", server: server, expecting: expected)

        // The stored values of one item of one questionnaire (age group and gender are asked by two).
        func answers(_ questionnaire: String, _ label: String) throws -> [String] {
            try server.query("""
                SELECT a.value FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
                WHERE s.questionnaire_id = '\(questionnaire)' AND a.label = '\(label)'
                """)
        }
        #expect(try server.sheets(of: "uniti-case-history") == 1)
        // Answered in the browser, the rest in the shell (or the browser, standalone): one sheet.
        #expect(try answers("uniti-case-history", "age-group") == ["1"])
        #expect(try answers("uniti-case-history", "gender") == ["3"])
        #expect(try answers("uniti-case-history", "worst-symptom") == ["4"])
        #expect(try server.sheets(of: "tys-demo-about-you") == 1)
        #expect(try answers("tys-demo-about-you", "general-stress") == ["99"])
        // The slider nobody moved is not in the sheet.
        #expect(try answers("tys-demo-about-you", "pressure").isEmpty)
        if Builds.isIntegrated {
            // Started in the shell, finished in the browser, stored once.
            #expect(try server.sheets(of: "tinnitus-distress-12") == 1)
            #expect(try answers("tinnitus-distress-12", "noise-wears-me-out") == ["1"])
            #expect(try answers("tinnitus-distress-12", "hard-to-relax") == ["2"])
        }
        // Every sheet the browser finished names the portal as its client.
        let clients = try server.query("SELECT DISTINCT json_extract(sheet, '$.clientVersion') FROM answer_sheets WHERE questionnaire_id = 'tys-demo-about-you'")
        #expect(clients == ["uniti-portal 0.2.0"])
    }
}
