import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48, "Arms switch the app": what a participant's programs sync after randomisation.
@Suite("Arms: a randomised participant's study info offers the arm's modules, day by day, and its questionnaires and notice, never its name", .timeLimit(.minutes(10)))
struct ArmTests {
    static let design = #"""
        {"arms": [{"id": "sound", "label": "Sound therapy arm", "ratio": 1,
                   "modules": [{"id": "son", "fromDay": 0, "toDay": 84}, {"id": "tyt"}], "questionnaires": ["daily"],
                   "notice": {"en": "Listen to the sounds of Shades of Noise every day for twelve weeks.",
                              "de": "Hören Sie zwölf Wochen lang täglich die Klänge von Shades of Noise."}},
                  {"id": "waiting", "label": "Waiting list arm", "ratio": 1, "modules": [{"id": "tyt"}],
                   "notice": {"en": "Keep answering your daily questions."}}],
         "factors": [], "method": "blocks", "blockMultiples": [1]}
        """#

    @Test("before randomisation the study's modules; after it the arm's, with son only from day 0 to day 84; its questionnaires; its notice; no arm id or label anywhere in the answer", arguments: StoreKind.allCases)
    func armsSwitchModules(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                try await administration.create("trial", StudySettings(title: LocalizedText(["en": "Trial"]), access: .public, modules: ["tyt", "tys"]))
                _ = try await administration.importQuestionnaire(Data(dailyQuestionnaireJSON().utf8), into: "trial", module: "tyt")
                _ = try await administration.importQuestionnaire(Data(dailyQuestionnaireJSON(id: "weekly").utf8), into: "trial", module: "tys")
                let trials = TrialService(administration: administration)
                _ = try await trials.setUp(studyId: "trial", design: Data(Self.design.utf8))
                // A block of two: of two participants one gets each arm.
                for name in ["ada", "ben"] { _ = try await fixture.participant(client, name, joining: "trial") }
                func info(_ name: String) async throws -> (StudyInfo, String) {
                    // Signed in afresh: the clock moves by weeks here.
                    let token = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: name, password: "correct horse"))
                        .decode(SessionTokens.self).accessToken
                    let response = try await client.get("/api/v1/studies/trial", token: token)
                    #expect(response.status == .ok, "\(response.text)")
                    let listed = try await client.get("/api/v1/studies?scope=mine", token: token).decode(StudyList.self)
                    let info = try response.decode(StudyInfo.self)
                    #expect(listed.studies == [info], "the list says what the study's own page says")
                    return (info, response.text)
                }
                let before = try await info("ada")
                #expect(before.0.modules == ["tyt", "tys"] && before.0.notice == nil && before.0.questionnaires.map(\.id).sorted() == ["daily", "weekly"])
                let adaToken = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "ada", password: "correct horse"))
                    .decode(SessionTokens.self).accessToken
                #expect(try await client.get("/api/v1/questionnaires", token: adaToken).decode(AssignedQuestionnaireList.self)
                            .questionnaires.map(\.id).sorted() == ["daily", "weekly"], "before randomisation, every questionnaire of the study")

                var arms: [String: String] = [:]
                var stratum = ""
                for name in ["ada", "ben"] {
                    let pseudonym = try #require(try await fixture.store.user(login: name)).pseudonym
                    let allocation = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                        .randomise(studyId: "trial", pseudonym: pseudonym, entered: [:])
                    arms[allocation.arm] = name
                    stratum = allocation.stratum
                }
                let sound = try #require(arms["sound"]), waiting = try #require(arms["waiting"])
                let (day0, text) = try await info(sound)
                #expect(day0.modules == ["son", "tyt"] && day0.questionnaires.map(\.id) == ["daily"])
                #expect(day0.notice?.text(in: "de") == "Hören Sie zwölf Wochen lang täglich die Klänge von Shades of Noise.")
                let (other, otherText) = try await info(waiting)
                #expect(other.modules == ["tyt"] && other.questionnaires.map(\.id).sorted() == ["daily", "weekly"])
                #expect(other.notice?.text(in: "en") == "Keep answering your daily questions.")
                fixture.clock.advance(by: 84 * 86_400 + 3_600)
                #expect(try await info(sound).0.modules == ["son", "tyt"], "day 84 is the last of son")
                fixture.clock.advance(by: 86_400)
                #expect(try await info(sound).0.modules == ["tyt"], "from day 85 without son")
                #expect(try await info(waiting).0.modules == ["tyt"])
                // The questionnaires the devices and the portal offer follow the arm: the sound arm
                // names daily only; the waiting arm has no tys, so no weekly (a tys questionnaire).
                for (name, expected) in [(sound, ["daily"]), (waiting, ["daily"])] {
                    let token = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: name, password: "correct horse"))
                        .decode(SessionTokens.self).accessToken
                    let assigned = try await client.get("/api/v1/questionnaires", token: token).decode(AssignedQuestionnaireList.self)
                    #expect(assigned.questionnaires.map(\.id) == expected, "\(name)")
                    let browser = PortalBrowser(client)
                    _ = try await browser.submit("/login", to: "/login", ["login": name, "password": "correct horse"])
                    let page = try await browser.get("/questionnaires")
                    #expect(page.status == .ok && page.text.contains("/questionnaires/daily") && !page.text.contains("/questionnaires/weekly"), "\(page.text)")
                    #expect(try await browser.get("/questionnaires/weekly").status == .notFound)
                }
                for secret in ["sound", "waiting", "Sound therapy arm", "Waiting list arm", stratum] {
                    #expect(!text.contains("\"\(secret)\"") && !otherText.contains("\"\(secret)\"") && !text.contains(secret + " arm"),
                            "the participant's answer names \(secret)")
                }
            }
        }
    }

    @Test("an arm's unknown module or days running backwards are refused with the design")
    func armModulesAreChecked() {
        var design = RandomisationTests.design(.blocks)
        design.arms[0].modules = [TrialDesign.ArmModule(id: "xyz", fromDay: nil, toDay: nil), TrialDesign.ArmModule(id: "son", fromDay: 10, toDay: 5)]
        #expect(design.problems == ["arm arm1: no module xyz (known: \(StudyRules.knownModuleList))",
                                    "arm arm1: the days of son must run forward within 0 to 3650"])
        #expect(design.arms[1].modules(onDay: 3) == nil)
    }
}
