import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

/// A questionnaire with every element type of the core format, a condition and an element type
/// the server does not know. Field names on the page are `q<index>`: the comments give them.
func everyTypeQuestionnaireJSON(presentation: String = "allOnOnePage") -> String {
    """
    {"id": "every-type", "version": 1, "title": {"en": "Every type", "de": "Alle Typen"}, "kind": "oneTime",
     "presentation": "\(presentation)",
     "items": [
       {"type": "headline", "label": "head", "text": {"en": "About you"}},
       {"type": "text", "label": "hint", "text": {"en": "Answer what applies."}},
       {"type": "yesNo", "label": "smoker", "required": true, "text": {"en": "Do you smoke?"}},
       {"type": "singleChoice", "label": "mood", "text": {"en": "Mood?"},
        "options": [{"value": 1, "text": {"en": "bad"}}, {"value": 2, "text": {"en": "so-so"}}, {"value": 3, "text": {"en": "good"}}]},
       {"type": "multipleChoice", "label": "places", "text": {"en": "Where?"}, "maxSelected": 2,
        "options": [{"value": 1, "text": {"en": "home"}}, {"value": 2, "text": {"en": "work"}}, {"value": 3, "text": {"en": "outside"}}]},
       {"type": "slider", "label": "loudness", "text": {"en": "How loud?"}, "min": 0, "max": 100, "step": 1, "unit": "%"},
       {"type": "slider", "label": "annoyance", "text": {"en": "How annoying?"}, "min": 0, "max": 10, "step": 0.5},
       {"type": "scale", "label": "sleep", "required": true, "text": {"en": "Sleep?"}, "min": 0, "max": 7,
        "minLabel": {"en": "poor"}, "maxLabel": {"en": "great"}},
       {"type": "samValence", "label": "valence", "text": {"en": "Feeling?"}, "points": 9},
       {"type": "samArousal", "label": "arousal", "text": {"en": "Excitement?"}, "points": 5},
       {"type": "freeText", "label": "notes", "text": {"en": "Notes"}, "multiline": true, "maxLength": 200},
       {"type": "date", "label": "onset", "text": {"en": "Since when?"}},
       {"type": "hologram", "label": "future", "text": {"en": "A question of the future"}},
       {"type": "scale", "label": "cigarettes", "required": true, "text": {"en": "How many a day?"}, "min": 1, "max": 5,
        "showIf": {"label": "smoker", "equals": 0}},
       {"type": "freeText", "label": "brand", "text": {"en": "Which brand?"}, "showIf": {"label": "smoker", "equals": 0}}
     ]}
    """
}

/// A study `pilot` with the every-type questionnaire (presented by Track Your Stress) and the
/// bundled case history of the shared baseline; the portal accounts named are its members.
private func prepare(_ server: TestServer, _ browser: PortalBrowser, members: [String], presentation: String = "allOnOnePage") async throws {
    try await server.createStudy("pilot")
    let document = try QuestionnaireImport.document(from: Data(everyTypeQuestionnaireJSON(presentation: presentation).utf8), studyId: "pilot")
    _ = try await server.store.addQuestionnaire(document, module: .tys, now: server.clock.now())
    // The shell's baseline questionnaire as the program ships it.
    let caseHistory = try Data(contentsOf: repositoryRoot.appendingPathComponent("Configurations/Resources/Questionnaires/uniti-case-history.json"))
    _ = try await server.store.addQuestionnaire(try QuestionnaireImport.document(from: caseHistory, studyId: "pilot"), module: nil,
                                                now: server.clock.now())
    for name in members {
        try await server.portalAccount(browser, name)
        try await server.store.setMembership(studyId: "pilot", userId: try await server.userId(name), status: .member, now: server.clock.now())
    }
}

extension TestServer {
    func userId(_ name: String) async throws -> Int64 {
        try #require(try await store.pool.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM users WHERE username = ?", arguments: [name]) })
    }

    /// The draft record of a questionnaire as the server keeps it for the person's devices.
    func draftRecord(_ name: String, owner: String, questionnaire: String) async throws -> (draft: QuestionnaireDraft, updatedAt: String)? {
        guard let record = try await store.record(userId: try await userId(name), moduleId: owner, clientId: "draft:\(questionnaire)"),
              let payload = record.payload else { return nil }
        return (try JSONDecoder().decode(QuestionnaireDraft.self, from: JSONEncoder().encode(payload)), record.updatedAt)
    }

    func storedSheets(_ name: String) async throws -> [AnswerSheet] {
        try await store.sheets(userId: try await userId(name), offset: 0, limit: 100).sheets.map(\.sheet)
    }
}

extension TestClientProtocol {
    /// Logs an existing account in through the API, as the shell does; returns the access token.
    func apiLogin(_ name: String, password: String = "correct horse") async throws -> String {
        let login = try await json(.post, "/api/v1/account/login", body: LoginRequest(login: name, password: password))
        #expect(login.status == .ok)
        return try login.decode(SessionTokens.self).accessToken
    }
}

extension PortalBrowser {
    /// Posts the questionnaire form with the page's CSRF token.
    func answer(_ id: String, _ fields: [String: String], query: String = "") async throws -> TestResponse {
        try await submit("/questionnaires/\(id)\(query)", to: "/questionnaires/\(id)", fields)
    }
}

/// The text of the element with `id` (up to its closing tag): what a person sees beside an item.
private func element(_ id: String, in html: String) -> String? {
    guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
    let rest = html[start.upperBound...]
    guard let end = rest.range(of: "</") else { return nil }
    return String(rest[..<end.lowerBound])
}

@Suite("Portal questionnaires", .timeLimit(.minutes(10)))
struct PortalQuestionnaireTests {
    @Test("every element type becomes a form control: radios with a no-answer choice, checkboxes, a slider without a value, scale, SAM pictograms, text, date; an unknown type is shown as not supported")
    func rendersEveryElementType() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna"])
            _ = try await server.portalLogin(browser, "anna")
            let list = try await browser.get("/questionnaires")
            #expect(list.status == .ok)
            #expect(list.text.contains(#"href="/questionnaires/every-type""#))
            #expect(list.text.contains(#"href="/questionnaires/uniti-case-history""#))
            #expect(element("state-every-type", in: list.text)?.contains("not started") == true)

            let page = try await browser.get("/questionnaires/every-type")
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.contains(#"<h2 class="item q-headline" id="item-q0">About you</h2>"#))
            #expect(html.contains("Answer what applies."))
            // yes/no (0 = yes, 1 = no) and single choice, each resettable with "No answer" (checked while unanswered).
            #expect(html.contains(#"name="q2" id="q2-0" value="0""#))
            #expect(html.contains(#"name="q2" id="q2-1" value="1""#))
            #expect(html.contains(#"name="q3" id="q3-none" value="" checked"#))
            #expect(html.contains(#"type="checkbox" name="q4_2""#))
            // The slider: a range without a name (moving it is the script's job) and a number
            // field that stays empty until answered, with a visible "not answered".
            #expect(html.contains(#"<input type="range" class="slider untouched" id="q5-range" data-for="q5" min="0" max="100" step="1" value="""#))
            #expect(!html.contains(#"type="range" name="#))
            #expect(html.contains(#"type="number" class="slider-field" id="q5" name="q5" inputmode="decimal" min="0" max="100" step="1" value="""#))
            #expect(element("q5-shown", in: html)?.hasSuffix(">not answered") == true)
            #expect(html.contains(#"step="0.5""#))
            #expect(html.contains(#"name="q7" id="q7-7" value="7""#))
            #expect(html.contains("poor") && html.contains("great"))
            // SAM: 9 valence and 5 arousal pictograms, drawn without any <style>.
            #expect(html.components(separatedBy: #"<svg class="manikin""#).count - 1 == 14)
            #expect(!html.contains("<style"))
            #expect(html.contains(#"name="q9" id="q9-4" value="5""#))
            #expect(html.contains(#"<textarea id="q10" name="q10" rows="4" maxlength="200"></textarea>"#))
            #expect(html.contains(#"<input type="date" id="q11" name="q11" value="">"#))
            #expect(html.contains("This question (type “hologram”) cannot be shown here and is skipped."))
            #expect(!html.contains(#"name="q12""#))
            // The condition: hidden while "smoker" is unanswered, and told to the script.
            let conditional = try #require(html.range(of: #"id="item-q13""#).map { String(html[$0.lowerBound...].prefix(200)) })
            #expect(conditional.contains(#"data-show-if="{&quot;field&quot;:&quot;q2&quot;,&quot;values&quot;:[0]}""#))
            #expect(conditional.contains(" hidden>"))
            // CSRF field, the external script, and no inline script or handler.
            #expect(html.contains(#"name="csrf" value=""#))
            #expect(html.contains(#"<script src="/portal.js" defer></script>"#))
            #expect(html.components(separatedBy: "<script").count - 1 == 1)
            #expect(!html.contains(" onclick=") && !html.contains(" onchange=") && !html.contains(" oninput="))
            let script = try await browser.get("/portal.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("data-show-if"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            // In German: the portal's words and the questionnaire's own German title.
            browser.extraHeaders[.acceptLanguage] = "de"
            let german = try await browser.get("/questionnaires/every-type").text
            #expect(german.contains("<h1>Alle Typen</h1>"))
            #expect(german.contains(#"value="" checked> Keine Angabe"#))
            #expect(element("q5-shown", in: german)?.hasSuffix(">nicht beantwortet") == true)
        }
    }

    @Test("after saving, the study's message and the help for a score at its threshold are shown with the sheet, escaped; below the threshold only the message; that the team looks only where a reviewed alert rule matched",
          arguments: [("8", true), ("7", false)])
    func textsAfterSaving(_ distress: String, _ helps: Bool) async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await server.createStudy("pilot")
            let json = """
                {"id": "distress", "version": 1, "title": {"en": "Distress"}, "kind": "oneTime",
                 "items": [{"type": "slider", "label": "distress", "text": {"en": "How distressed are you?"}, "min": 0, "max": 10, "step": 1}],
                 "scoring": {"scores": [{"id": "total", "items": ["distress"]}]},
                 "afterSaving": {"message": {"en": "Nobody reads these answers <b>at once</b>."},
                                 "help": [{"score": "total", "atLeast": 8, "text": {"en": "In a crisis call 112."}}]}}
                """
            let document = try QuestionnaireImport.document(from: Data(json.utf8), studyId: "pilot")
            _ = try await server.store.addQuestionnaire(document, module: .tys, now: server.clock.now())
            // The team looks at a total of 8 or more; a rule on every sheet is not reviewed and promises nothing.
            var reviewed = AlertRule(name: "High distress", kind: .safety, roles: [.owner], reviewed: true)
            reviewed.questionnaireId = "distress"; reviewed.score = "total"; reviewed.comparison = .atLeast; reviewed.threshold = 8
            var unreviewed = reviewed
            unreviewed.reviewed = false; unreviewed.threshold = 0
            for rule in [reviewed, unreviewed] { _ = try await server.store.addAlertRule(studyId: "pilot", rule, actor: .operator, now: server.clock.now()) }
            try await server.portalAccount(browser, "anna")
            try await server.store.setMembership(studyId: "pilot", userId: try await server.userId("anna"), status: .member,
                                                 now: server.clock.now())
            _ = try await server.portalLogin(browser, "anna")
            let done = try await browser.answer("distress", ["q0": distress, "utcOffset": "0", "action": "finish"])
            #expect(done.status == .seeOther, "\(done.text)")
            let sheet = try #require(try await server.storedSheets("anna").first)
            let location = try #require(done.headers[.location])
            #expect(location == "/data/sheets/\(sheet.id.uuidString.lowercased())?saved=1")
            let page = try await browser.get(location)
            let texts = try #require(element("after-saving", in: page.text.replacingOccurrences(of: "</p>", with: "")))
            #expect(texts.contains("Nobody reads these answers &lt;b&gt;at once&lt;/b&gt;."), "\(texts)")
            #expect(texts.contains("In a crisis call 112.") == helps, "\(texts)")
            #expect(texts.contains("The study team is told of answers like these") == helps, "\(texts)")
            // The sheet's page opened later (not just saved) shows them no more.
            #expect(!(try await browser.get("/data/sheets/\(sheet.id.uuidString.lowercased())").text.contains("after-saving")))
        }
    }

    @Test("finishing stores one sheet through the sheet path: an untouched slider and a hidden item's answer are absent, the portal's client version and the browser's offset are kept, and the finished sheet replaces the draft")
    func finishStoresOneSheet() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna"])
            _ = try await server.portalLogin(browser, "anna")
            // "No" to smoking hides the cigarettes question: its answer (sent anyway, as a browser
            // without script does) is dropped. The second slider is never touched.
            let done = try await browser.answer("every-type", [
                "q2": "1", "q3": "3", "q4_0": "1", "q4_2": "1", "q5": "55", "q6": "", "q7": "4", "q8": "", "q9": "5",
                "q10": "fine", "q11": "2026-10-01", "q13": "3", "utcOffset": "60", "action": "finish",
            ])
            #expect(done.status == .seeOther, "\(done.text)")
            #expect(done.headers[.location] == "/questionnaires?notice=questionnaireDone")
            let sheets = try await server.storedSheets("anna")
            #expect(sheets.count == 1)
            let sheet = try #require(sheets.first)
            #expect(sheet.values == ["smoker": .number(1), "mood": .number(3), "places": .choices([1, 3]), "loudness": .number(55),
                                     "sleep": .number(4), "arousal": .number(5), "notes": .text("fine"), "onset": .text("2026-10-01")])
            #expect(sheet.answers["annoyance"] == nil)
            #expect(sheet.answers["cigarettes"] == nil)
            #expect(!sheet.isPartial)
            #expect(sheet.clientVersion == "uniti-portal 0.2.0")
            #expect(sheet.owner == .tys)
            #expect(sheet.startedAt.offsetSeconds == 3600)
            #expect(sheet.startedAt.text.hasSuffix("+01:00"))
            #expect(sheet.endedAt?.text.hasSuffix("+01:00") == true)
            // The draft record holds the finished sheet: every device drops its draft.
            let record = try #require(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type"))
            #expect(record.draft.sheet == sheet)
            #expect(record.draft.visited.isEmpty)
            // Done: listed with its date, the page says so, and a second post stores nothing.
            let list = try await browser.get("/questionnaires?notice=questionnaireDone")
            #expect(list.text.contains("Thank you, your answers are sent."))
            #expect(element("state-every-type", in: list.text)?.contains("done on 2027-01-15 09:00") == true)
            #expect(try await browser.get("/questionnaires/every-type").text.contains("You answered this questionnaire on"))
            _ = try await browser.answer("every-type", ["q2": "1", "q7": "2", "action": "finish"])
            #expect(try await server.storedSheets("anna").count == 1)
        }
    }

    @Test("a missing required answer and an out-of-range value are named beside their items; every typed answer stays in the form and the valid ones in the draft; typed markup is shown as text")
    func problemsBesideItemsAnswersKept() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna"])
            _ = try await server.portalLogin(browser, "anna")
            let refused = try await browser.answer("every-type", [
                "q2": "0", "q3": "2", "q5": "150", "q6": "abc", "q10": "<script>alert(1)</script>", "q11": "2026-02-30", "action": "finish",
            ])
            #expect(refused.status == .unprocessableContent)
            let html = refused.text
            #expect(element("problem-q5", in: html)?.hasSuffix(">Enter a value from 0 to 100.") == true)
            #expect(element("problem-q6", in: html)?.hasSuffix(">This is not an answer this question takes.") == true)
            #expect(element("problem-q7", in: html)?.hasSuffix(">Please answer this question.") == true)
            #expect(element("problem-q11", in: html)?.hasSuffix(">Enter a date as YYYY-MM-DD.") == true)
            // "Yes" to smoking shows the cigarettes question, required now.
            #expect(element("problem-q13", in: html)?.hasSuffix(">Please answer this question.") == true)
            #expect(!(html.range(of: #"id="item-q13""#).map { html[$0.lowerBound...].prefix(200).contains(" hidden>") } ?? true))
            #expect(element("problem-q3", in: html) == nil)
            // What was typed is still there, the refused values too.
            #expect(html.contains(#"id="q2-0" value="0" checked"#))
            #expect(html.contains(#"id="q3-1" value="2" checked"#))
            #expect(html.contains(#"name="q5" inputmode="decimal" min="0" max="100" step="1" value="150""#))
            #expect(html.contains(#"value="abc""#))
            #expect(html.contains(#"value="2026-02-30""#))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;</textarea>"))
            #expect(!html.contains("<script>alert(1)"))
            // Nothing stored as a sheet; the accepted answers are in the draft.
            #expect(try await server.storedSheets("anna").isEmpty)
            let draft = try #require(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")).draft
            #expect(draft.sheet.isPartial)
            #expect(draft.sheet.values == ["smoker": .number(0), "mood": .number(2), "notes": .text("<script>alert(1)</script>")])
            // The page shown later has them too.
            let again = try await browser.get("/questionnaires/every-type")
            #expect(again.text.contains(#"id="q3-1" value="2" checked"#))
            #expect(again.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;</textarea>"))
            #expect(again.text.contains(#"id="draft-note""#))
        }
    }

    @Test("one question per page with back and next; each step is saved as the shell's baseline draft (owner uniti, kind draft), which the shell's draft continues and finishing ends")
    func oneAtATimeBaselineDraft() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna"])
            _ = try await server.portalLogin(browser, "anna")
            let first = try await browser.get("/questionnaires/uniti-case-history")
            #expect(first.text.contains("Question 1 of 8"))
            #expect(first.text.contains(#"name="at" value="0""#))
            #expect(!first.text.contains(#"id="back""#))
            #expect(!first.text.contains(#"name="q1""#))
            // Next without the required answer: named, nothing moves.
            let missing = try await browser.answer("uniti-case-history", ["at": "0", "action": "next"])
            #expect(missing.status == .unprocessableContent)
            #expect(element("problem-q0", in: missing.text)?.hasSuffix(">Please answer this question.") == true)
            let next = try await browser.answer("uniti-case-history", ["at": "0", "q0": "1", "action": "next"])
            #expect(next.headers[.location] == "/questionnaires/uniti-case-history?at=1")
            let second = try await browser.get("/questionnaires/uniti-case-history?at=1")
            #expect(second.text.contains("Question 2 of 8"))
            #expect(second.text.contains(#"id="back""#))
            let back = try await browser.answer("uniti-case-history", ["at": "1", "q1": "3", "action": "back"], query: "?at=1")
            #expect(back.headers[.location] == "/questionnaires/uniti-case-history?at=0")

            // The draft is the shell's: owner uniti, id draft:<questionnaire>, a partial sheet and the passed questions.
            let saved = try #require(try await server.draftRecord("anna", owner: "uniti", questionnaire: "uniti-case-history"))
            #expect(saved.draft.sheet.isPartial)
            #expect(saved.draft.sheet.values == ["age-group": .number(1), "gender": .number(3)])
            // Passed: the one answered before "next", and the one answered before "back".
            #expect(saved.draft.visited == ["age-group", "gender"])
            #expect(saved.draft.sheet.clientVersion == "uniti-portal 0.2.0")

            // A draft the shell wrote later (with more answers) is what the portal continues.
            var shell = saved.draft
            let answered = shell.sheet.startedAt
            for (label, value) in [("duration", 2), ("side", 2), ("course", 0), ("hearing-loss", 1)] {
                shell.sheet.answers[label] = Answer(value: .integer(value), answeredAt: answered)
            }
            shell.visited = ["age-group", "course", "duration", "gender", "hearing-loss", "side"]
            shell.sheet.clientVersion = "uniti 0.2.0"
            let token = try await client.apiLogin("anna")
            let pushed = try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "uniti", clientId: "draft:uniti-case-history", updatedAt: "2030-01-01T00:00:00.000Z",
                                   payload: try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(shell))),
            ]))
            #expect(pushed.status == .ok)
            // It resumes at the first question not yet passed.
            let resumed = try await browser.get("/questionnaires/uniti-case-history")
            #expect(resumed.text.contains("Question 7 of 8"))
            #expect(resumed.text.contains(#"name="at" value="6""#))
            let earlier = try await browser.get("/questionnaires/uniti-case-history?at=2")
            #expect(earlier.text.contains(#"id="q2-2" value="2" checked"#))
            #expect(try await browser.answer("uniti-case-history", ["at": "6", "action": "next"]).headers[.location]
                == "/questionnaires/uniti-case-history?at=7")
            #expect(try await browser.answer("uniti-case-history", ["at": "7", "q7": "4", "action": "next"]).headers[.location]
                == "/questionnaires/uniti-case-history?at=end")
            // Saved after the shell's version although the device clock ran ahead: this one wins.
            let stepped = try #require(try await server.draftRecord("anna", owner: "uniti", questionnaire: "uniti-case-history"))
            #expect(stepped.updatedAt > "2030-01-01T00:00:00.000Z")
            #expect(stepped.draft.sheet.values["worst-symptom"] == .number(4))
            let end = try await browser.get("/questionnaires/uniti-case-history?at=end")
            #expect(end.text.contains(#"id="finish""#))
            let finished = try await browser.answer("uniti-case-history", ["action": "finish"], query: "?at=end")
            #expect(finished.headers[.location] == "/questionnaires?notice=questionnaireDone", "\(finished.text)")

            // One sheet, the shell's sheet id, and the record now carries it finished.
            let sheets = try await server.storedSheets("anna")
            #expect(sheets.count == 1)
            #expect(sheets.first?.id == shell.sheet.id)
            #expect(sheets.first?.owner == .shell)
            #expect(sheets.first?.values.count == 7)
            let record = try #require(try await server.draftRecord("anna", owner: "uniti", questionnaire: "uniti-case-history"))
            #expect(record.draft.sheet.isPartial == false)
            #expect(record.draft.sheet.id == shell.sheet.id)
            // The shell uploading the same sheet id later keeps it once.
            let upload = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [record.draft.sheet]))
            #expect(upload.status == .ok)
            #expect(try await server.storedSheets("anna").count == 1)
        }
    }

    @Test("another person's questionnaire and draft are never shown: their answers do not appear, a study one has not joined is 404, and logged-out visitors go to the login")
    func otherPeopleInvisible() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna", "bert"])
            try await server.portalAccount(browser, "carl")
            _ = try await server.portalLogin(browser, "anna")
            let saved = try await browser.answer("every-type", ["q10": "anna's secret", "q3": "3", "action": "save"])
            #expect(saved.headers[.location] == "/questionnaires?notice=questionnaireSaved")
            let own = try await browser.get("/questionnaires/every-type").text
            #expect(own.contains("s secret</textarea>"))
            #expect(!own.contains("anna's secret"))

            let bert = PortalBrowser(client)
            _ = try await server.portalLogin(bert, "bert")
            let bertsPage = try await bert.get("/questionnaires/every-type")
            #expect(bertsPage.status == .ok)
            #expect(!bertsPage.text.contains("secret"))
            #expect(!bertsPage.text.contains(#"id="q3-2" value="3" checked"#))
            #expect(!bertsPage.text.contains(#"id="draft-note""#))
            #expect(element("state-every-type", in: try await bert.get("/questionnaires").text)?.contains("not started") == true)
            // Bert's save is his own record; Anna's is untouched.
            _ = try await bert.answer("every-type", ["q3": "1", "action": "save"])
            #expect(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")?.draft.sheet.values["mood"] == .number(3))

            let carl = PortalBrowser(client)
            _ = try await server.portalLogin(carl, "carl")
            let notMember = try await carl.get("/questionnaires/every-type")
            #expect(notMember.status == .notFound)
            #expect(notMember.text.contains("There is no such questionnaire among yours."))
            #expect(try await carl.get("/questionnaires").text.contains(#"id="no-questionnaires""#))
            let token = try #require(PortalBrowser.csrf(in: try await carl.get("/questionnaires").text))
            #expect(try await carl.post("/questionnaires/every-type", ["csrf": token, "q3": "1", "action": "save"]).status == .notFound)
            #expect(try await carl.get("/questionnaires/no-such-thing").status == .notFound)

            let visitor = PortalBrowser(client)
            for path in ["/questionnaires", "/questionnaires/every-type"] {
                let response = try await visitor.get(path)
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login")
            }
            // A form without its CSRF token changes nothing.
            #expect(try await browser.post("/questionnaires/every-type", ["q3": "1", "action": "save"]).status == .forbidden)
            #expect(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")?.draft.sheet.values["mood"] == .number(3))
        }
    }

    @Test("without the script, finishing first shows the optional questions the answers bring up; with it, the sheet is sent at once")
    func conditionalQuestionsShownWithoutScript() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna", "bert"])
            _ = try await server.portalLogin(browser, "anna")
            let fields = ["q2": "0", "q7": "4", "q13": "2", "action": "finish"]
            let shown = try await browser.answer("every-type", fields)
            #expect(shown.status == .ok)
            #expect(shown.text.contains("Your answers bring up more questions, shown now."))
            #expect(shown.text.contains(#"id="item-q14""#))
            #expect(!(shown.text.range(of: #"id="item-q14""#).map { shown.text[$0.lowerBound...].prefix(150).contains(" hidden>") } ?? true))
            #expect(try await server.storedSheets("anna").isEmpty)
            // Seen now: the next finish sends, the optional question left empty.
            let sent = try await browser.answer("every-type", fields)
            #expect(sent.headers[.location] == "/questionnaires?notice=questionnaireDone")
            #expect(try await server.storedSheets("anna").first?.values == ["smoker": .number(0), "sleep": .number(4), "cigarettes": .number(2)])

            // With the script (it reports the UTC offset), the page showed them as they came up.
            let bert = PortalBrowser(client)
            _ = try await server.portalLogin(bert, "bert")
            let direct = try await bert.answer("every-type", fields.merging(["utcOffset": "0"]) { $1 })
            #expect(direct.headers[.location] == "/questionnaires?notice=questionnaireDone")
        }
    }

    @Test("malformed fields get a message beside their item, never a crash or a lost answer: huge and non-numbers, unknown options and positions, a body that is no form")
    func malformedFieldsNeverCrash() async throws {
        let server = try TestServer()
        try await server.run { client in
            let browser = PortalBrowser(client)
            try await prepare(server, browser, members: ["anna"])
            _ = try await server.portalLogin(browser, "anna")
            let odd = try await browser.answer("every-type", [
                "q2": "99999999999999999999999", "q3": "7", "q4_9": "1", "q5": "1e400", "q6": "nan", "q7": "four",
                "q9": "-1", "q10": "kept", "q12": "x", "at": "-5", "utcOffset": "9999", "action": "finish",
            ])
            #expect(odd.status == .unprocessableContent)
            #expect(element("problem-q2", in: odd.text)?.hasSuffix(">This is not an answer this question takes.") == true)
            #expect(element("problem-q3", in: odd.text)?.hasSuffix(">Choose one of the options shown.") == true)
            #expect(element("problem-q5", in: odd.text)?.hasSuffix(">This is not an answer this question takes.") == true)
            #expect(element("problem-q6", in: odd.text)?.hasSuffix(">This is not an answer this question takes.") == true)
            #expect(element("problem-q7", in: odd.text)?.hasSuffix(">This is not an answer this question takes.") == true)
            #expect(element("problem-q9", in: odd.text)?.hasSuffix(">Enter a value from 1 to 5.") == true)
            #expect(odd.text.contains(#"name="q5" inputmode="decimal" min="0" max="100" step="1" value="1e400""#))
            #expect(odd.text.contains("kept</textarea>"))
            #expect(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")?.draft.sheet.values == ["notes": .text("kept")])
            // An unknown action saves; the offset out of range counts as UTC.
            #expect(try await browser.answer("every-type", ["q3": "2", "action": "explode"]).headers[.location]
                == "/questionnaires?notice=questionnaireSaved")
            #expect(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")?.draft.sheet.startedAt.offsetSeconds == 0)
            // A body that is not a form carries no CSRF token: refused, nothing changes.
            let token = try #require(PortalBrowser.csrf(in: try await browser.get("/questionnaires").text))
            var headers: HTTPFields = [.contentType: "application/json"]
            headers[.cookie] = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let json = try await client.execute(uri: "/questionnaires/every-type", method: .post, headers: headers,
                                                body: ByteBuffer(string: #"{"csrf": "\#(token)", "q3": "1"}"#)) { $0 }
            #expect(json.status == .forbidden)
            #expect(try await server.draftRecord("anna", owner: "tys", questionnaire: "every-type")?.draft.sheet.values["mood"] == .number(2))
            // One-at-a-time pages ignore positions that are no item.
            #expect(try await browser.get("/questionnaires/uniti-case-history?at=999").text.contains("Question 1 of 8"))
            #expect(try await browser.get("/questionnaires/uniti-case-history?at=-1").text.contains("Question 1 of 8"))
        }
    }
}
