import Foundation
import Testing
import UNITITesting

/// Questionnaires in the participant portal, in headless Chromium against a real `uniti-server`
/// (Tests/Portal/journey_questionnaires.py). In the integrated build the journey also runs the
/// real `uniti` shell: the baseline started in the browser continues in `uniti baseline`, and one
/// the shell started continues in the browser. The standalone build has no shell
/// (`--disable-default-traits`), so there the browser finishes the baseline it started; the
/// slider, validation and showIf journeys run in both.
@Suite("Portal questionnaires in a browser", .serialized)
struct PortalQuestionnaireBrowserTests {
    @Test("baseline half in the browser, continued in the shell (integrated build); one sheet each on the server; untouched slider absent; notes beside the items; showIf live")
    func questionnaireJourneys() throws {
        let server = try StudyServer()
        try server.createStudy("base", modules: "tyt,tys",
                               questionnaires: ["uniti-case-history", "tinnitus-distress-12", "tys-demo-about-you", "tys-demo-daily"])
        var expected = ["baseline halfway journey", "slider journey"]
        expected.append(Builds.isIntegrated ? "shell journey" : "browser baseline journey")
        try PortalJourney.run("journey_questionnaires.py", server: server, expecting: expected)

        #expect(try server.sheets(of: "uniti-case-history") == 1)
        #expect(try server.answers(label: "age-group") == ["1"])
        #expect(try server.answers(label: "gender") == ["3"])
        #expect(try server.answers(label: "worst-symptom") == ["4"])
        #expect(try server.sheets(of: "tys-demo-about-you") == 1)
        #expect(try server.answers(label: "general-stress") == ["99"])
        #expect(try server.answers(label: "pressure").isEmpty)
        if Builds.isIntegrated {
            // Started in the shell, finished in the browser, stored once.
            #expect(try server.sheets(of: "tinnitus-distress-12") == 1)
            #expect(try server.answers(label: "noise-wears-me-out") == ["1"])
            #expect(try server.answers(label: "hard-to-relax") == ["2"])
        }
        // Every sheet the browser finished names the portal as its client.
        let clients = try server.query("SELECT DISTINCT json_extract(sheet, '$.clientVersion') FROM answer_sheets WHERE questionnaire_id = 'tys-demo-about-you'")
        #expect(clients == ["uniti-portal 0.2.0"])
    }
}
