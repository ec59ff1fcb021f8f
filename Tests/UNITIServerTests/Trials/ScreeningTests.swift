import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 48, eligibility screening: a study's screening questionnaire answered before joining,
/// its rules over answers and scores, a log that keeps an ineligible person's answers only when
/// they agreed, the API's join, the portal's screening page and the CONSORT flow's counts.
@Suite("Trials: eligibility screening", .timeLimit(.minutes(10)))
struct ScreeningTests {
    /// Age (a slider), pulsatile tinnitus (yes/no, an exclusion), hearing aid (yes/no) with its
    /// years shown only for a yes, and three distress items scored as `total`. A yes/no answer
    /// is 0 for yes and 1 for no (``AnswerValue/yesNo(_:)``).
    static let questionnaire = #"""
        {"id": "screen", "version": 1, "title": {"en": "Screening", "de": "Screening"}, "kind": "oneTime",
         "items": [
           {"type": "slider", "label": "age", "text": {"en": "How old are you?"}, "min": 0, "max": 120, "step": 1},
           {"type": "yesNo", "label": "pulsatile", "text": {"en": "Does your tinnitus beat with your pulse?"}},
           {"type": "yesNo", "label": "aid", "text": {"en": "Do you wear a hearing aid?"}},
           {"type": "slider", "label": "aid_years", "text": {"en": "For how many years?"}, "min": 0, "max": 60, "step": 1,
            "showIf": {"label": "aid", "equals": 0}},
           {"type": "scale", "label": "d1", "text": {"en": "Distress 1"}, "min": 0, "max": 4},
           {"type": "scale", "label": "d2", "text": {"en": "Distress 2"}, "min": 0, "max": 4},
           {"type": "scale", "label": "d3", "text": {"en": "Distress 3"}, "min": 0, "max": 4}
         ],
         "scoring": {"scores": [{"id": "total", "items": ["d1", "d2", "d3"]}]}}
        """#

    static let screening = #"""
        {"questionnaire": "screen",
         "rules": [{"id": "age", "item": "age", "min": 18, "max": 80},
                   {"id": "no-pulsatile", "item": "pulsatile", "in": [1]},
                   {"id": "new-aid", "item": "aid_years", "max": 5},
                   {"id": "distress", "score": "total", "min": 3}],
         "ineligibleMessage": {"en": "Thank you. **This study** does not suit you.", "de": "Danke. Diese Studie passt nicht zu Ihnen."},
         "keepAnswersQuestion": {"en": "May we keep your answers if you cannot take part?", "de": "Dürfen wir Ihre Antworten behalten?"}}
        """#

    static let design = #"""
        {"arms": [{"id": "a", "label": "Arm A", "ratio": 1}, {"id": "b", "label": "Arm B", "ratio": 1}],
         "factors": [], "method": "blocks"}
        """#

    /// The study `trial` (public, tyt, consent) with the screening questionnaire, the screening,
    /// the sites ulm and athens, and a trial design.
    static func study(_ fixture: ConsoleFixture) async throws -> StudyAdministration {
        let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
        try await administration.create("trial", StudySettings(title: LocalizedText(["en": "Trial"]), consent: LocalizedText(["en": "I agree to take part."]),
                                                               access: .public, modules: ["tyt"]))
        _ = try await administration.importQuestionnaire(Data(questionnaire.utf8), into: "trial", module: "tys")
        let sites = StudySites(administration: administration)
        _ = try await sites.save(StudySite(id: "ulm", name: "Ulm", country: "DE", language: "de"), studyId: "trial")
        _ = try await sites.save(StudySite(id: "athens", name: "Athens", country: "GR", language: "el"), studyId: "trial")
        _ = try await StudyScreening.save(Data(screening.utf8), studyId: "trial", administration: administration)
        _ = try await TrialService(administration: administration).setUp(studyId: "trial", design: Data(design.utf8))
        return administration
    }

    /// A whole screening sheet, started a minute before `now`.
    static func sheet(age: Double = 40, pulsatile: Double = 1, aid: Double = 1, aidYears: Double? = nil,
                      distress: [Double] = [1, 1, 1], now: Date, version: Int = 1) -> AnswerSheet {
        let zone = TimeZone(secondsFromGMT: 3600)!
        let started = OffsetTimestamp(now.addingTimeInterval(-60), in: zone), answered = OffsetTimestamp(now.addingTimeInterval(-30), in: zone)
        var answers: [String: Answer] = ["age": Answer(value: .number(age), answeredAt: answered),
                                         "pulsatile": Answer(value: .number(pulsatile), answeredAt: answered),
                                         "aid": Answer(value: .number(aid), answeredAt: answered)]
        if let aidYears { answers["aid_years"] = Answer(value: .number(aidYears), answeredAt: answered) }
        for (index, value) in distress.enumerated() { answers["d\(index + 1)"] = Answer(value: .number(value), answeredAt: answered) }
        return AnswerSheet(id: UUID(), questionnaireID: "screen", questionnaireVersion: version, answers: answers, startedAt: started,
                           endedAt: OffsetTimestamp(now, in: zone), clientVersion: "uniti-test 1")
    }

    static func join(_ client: any TestClientProtocol, _ token: String, _ sheet: AnswerSheet?, keep: Bool = false,
                     site: String? = nil, consent: Int? = 1) async throws -> TestResponse {
        try await client.json(.post, "/api/v1/studies/trial/join", token: token,
                              body: JoinStudyRequest(consentVersion: consent, site: site, screening: sheet.map { ScreeningAnswers(sheet: $0, keepIfIneligible: keep) }))
    }

    @Test("the rules decide on whole answers: eligible people join with their screening as their first sheet, ineligible ones are told the study's words and kept as a count (account and answers only when they agreed); incomplete answers decide nothing; a hidden question's rule does not apply", arguments: StoreKind.allCases)
    func joining(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                _ = try await Self.study(fixture)
                let store = fixture.store, now = fixture.clock.now()

                // A non-member reads the questions (every one required) and the keep question, not the rules.
                let ada = try await fixture.account(client, "adele")
                let info = try await client.get("/api/v1/studies/trial", token: ada).decode(StudyInfo.self)
                let screening = try #require(info.screening)
                #expect(screening.questionnaire.id == "screen" && screening.questionnaire.items.allSatisfy { $0.required })
                #expect(screening.keepAnswersQuestion?.text(in: "de") == "Dürfen wir Ihre Antworten behalten?")
                #expect(!(try await client.get("/api/v1/studies/trial", token: ada).text.contains("no-pulsatile")), "the rules stay on the server")

                // Without answers, with answers not whole, with an out-of-range one: nothing is decided or kept.
                let required = try await Self.join(client, ada, AnswerSheet?.none)
                #expect(required.status == .conflict && required.errorCode == "screening_required")
                var partial = Self.sheet(now: now)
                partial.answers["d3"] = nil
                let notWhole = try await Self.join(client, ada, partial)
                #expect(notWhole.status == .unprocessableContent && notWhole.errorCode == "screening_invalid" && notWhole.text.contains("d3"))
                let outOfRange = try await Self.join(client, ada, Self.sheet(age: 300, now: now))
                #expect(outOfRange.errorCode == "screening_invalid")
                let older = try await Self.join(client, ada, Self.sheet(now: now, version: 7))
                #expect(older.status == .conflict && older.errorCode == "screening_changed")
                #expect(try await store.screenings(studyId: "trial").isEmpty)

                // Eligible: joins at the site, the screening in the log and as the first sheet of the study.
                let eligible = try await Self.join(client, ada, Self.sheet(now: now), site: "ulm")
                #expect(eligible.status == .ok)
                #expect(try eligible.decode(MembershipResponse.self).screening == ScreeningOutcome(eligible: true))
                let adaId = try #require(try await store.user(login: "adele")).id
                #expect(try await store.membership(studyId: "trial", userId: adaId) == .member)
                let adaSheets = try await store.sheets(userId: adaId, offset: 0, limit: 10).sheets
                #expect(adaSheets.count == 1 && adaSheets[0].sheet.questionnaireID == "screen" && adaSheets[0].sheet.owner == ModuleID("tys"))
                let member = try await client.get("/api/v1/studies/trial", token: ada).decode(StudyInfo.self)
                #expect(member.screening == nil, "members are not screened again")

                // Not eligible and not kept: a count with the rules not met, nothing of the person.
                let bo = try await fixture.account(client, "boris")
                let refused = try await Self.join(client, bo, Self.sheet(age: 85, pulsatile: 0, now: now), site: "athens", consent: nil)
                #expect(refused.status == .ok, "no consent is needed to be told")
                let outcome = try refused.decode(MembershipResponse.self)
                #expect(outcome.membership == MembershipStatus.none && outcome.screening?.eligible == false)
                #expect(outcome.screening?.message?.text(in: "de") == "Danke. Diese Studie passt nicht zu Ihnen.")
                let boId = try #require(try await store.user(login: "boris")).id
                #expect(try await store.membership(studyId: "trial", userId: boId) == MembershipStatus.none)
                #expect(try await store.sheets(userId: boId, offset: 0, limit: 10).total == 0)

                // Not eligible, kept with their agreement; a hidden question's rule does not apply,
                // a shown one does.
                let cy = try await fixture.account(client, "cyril")
                _ = try await Self.join(client, cy, Self.sheet(aid: 0, aidYears: 10, distress: [0, 1, 0], now: now), keep: true)
                let cyId = try #require(try await store.user(login: "cyril")).id
                let dora = try await fixture.account(client, "dora")
                #expect(try await Self.join(client, dora, Self.sheet(aid: 1, now: now)).decode(MembershipResponse.self).membership == .member,
                        "aid_years is hidden without a hearing aid: its rule does not apply")

                let log = try await store.screenings(studyId: "trial")
                #expect(log.map(\.eligible) == [true, false, false, true])
                #expect(log[0].userId == adaId && log[0].site == "ulm" && log[0].answers == nil)
                #expect(log[1].userId == nil && log[1].answers == nil && log[1].site == "athens" && log[1].failed == ["age", "no-pulsatile"])
                #expect(log[2].userId == cyId && log[2].failed == ["new-aid", "distress"] && log[2].answers?.contains("\"aid_years\"") == true)
                let counts = ScreeningCounts(log, rules: ["age", "no-pulsatile", "new-aid", "distress"])
                #expect(counts.screened == 4 && counts.eligible == 2 && counts.ineligible == 2 && counts.answersKept == 1)
                #expect(counts.byRule.map(\.count) == [1, 1, 1, 1])

                // The kept answers are the person's: in their download, gone with their account,
                // while the count stays.
                let data = try #require(try await store.personalData(userId: cyId))
                #expect(data.screenings.count == 1 && data.screenings[0].rulesNotMet == ["new-aid", "distress"]
                        && data.screenings[0].answers?.answers["aid_years"]?.value == .number(10))
                #expect(try await store.deleteAccount(userId: cyId, now: now))
                let after = try await store.screenings(studyId: "trial")
                #expect(after.count == 4 && after[2].userId == nil && after[2].answers == nil && after[2].failed == ["new-aid", "distress"])

                // The CONSORT flow: the screened-out are assessed and excluded by rule, per site too.
                let trials = TrialService(administration: StudyAdministration(store: store, actor: .operator, now: now))
                let flows = try await trials.flows(studyId: "trial", blinded: false, sites: [nil, "athens"], now: now)
                #expect(flows[0].assessed == 4 && flows[0].excluded.ineligible == 2 && flows[0].excluded.total == 4)
                #expect(flows[0].excluded.ineligibleByRule.map(\.count) == [1, 1, 1, 1])
                #expect(flows[1].assessed == 1 && flows[1].excluded.ineligible == 1
                        && flows[1].excluded.ineligibleByRule.filter { $0.count > 0 }.map(\.rule) == ["age", "no-pulsatile"])
                let svg = ConsortDiagram.svg(flows[0], language: "en")
                #expect(svg.contains("Not eligible at screening (n = 2)") && svg.contains("rule no-pulsatile not met (n = 1)"))
                #expect(try flows[0].json().contains("\"ineligibleByRule\""))
            }
        }
    }

    @Test("a password study's screening counts nobody before the password is right; by request, the answers wait in the log for the team's decision", arguments: [StoreKind.sqlite])
    func passwordAndRequest(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let administration = try await Self.study(fixture)
                let store = fixture.store, now = fixture.clock.now()
                _ = try await administration.update("trial", StudySettings(access: .password, password: "a good long secret"))
                let ada = try await fixture.account(client, "adele")
                let wrong = try await client.json(.post, "/api/v1/studies/trial/join", token: ada, body: JoinStudyRequest(
                    password: "wrong password", screening: ScreeningAnswers(sheet: Self.sheet(age: 10, now: now))))
                #expect(wrong.errorCode == "wrong_study_password")
                #expect(try await store.screenings(studyId: "trial").isEmpty)
                let right = try await client.json(.post, "/api/v1/studies/trial/join", token: ada, body: JoinStudyRequest(
                    password: "a good long secret", screening: ScreeningAnswers(sheet: Self.sheet(age: 10, now: now))))
                #expect(try right.decode(MembershipResponse.self).screening?.eligible == false)
                #expect(try await store.screenings(studyId: "trial").count == 1)

                _ = try await administration.update("trial", StudySettings(access: .byRequest))
                let bo = try await fixture.account(client, "boris")
                let asked = try await Self.join(client, bo, Self.sheet(now: now))
                let standing = try asked.decode(MembershipResponse.self).membership
                #expect(asked.status == .accepted && standing == .pending)
                let boId = try #require(try await store.user(login: "boris")).id
                #expect(try await store.sheets(userId: boId, offset: 0, limit: 10).total == 0, "no sheet before the team decides")
                let waiting = try #require(try await store.screenings(studyId: "trial").last)
                #expect(waiting.eligible && waiting.userId == boId && waiting.answers?.contains("\"d1\"") == true)
                // Sending the join again while it waits screens nobody twice.
                let logged = try await store.screenings(studyId: "trial").count
                #expect(try await Self.join(client, bo, Self.sheet(now: now)).status == .accepted)
                #expect(try await store.screenings(studyId: "trial").count == logged)

                // The team reads them beside the request; approving makes them the member's first
                // sheet, declining drops them.
                let owner = try await fixture.enrolledStaff("olga")
                try await fixture.role(.owner, owner, "trial")
                let console = PortalBrowser(client)
                try await fixture.signIn(console, owner)
                let list = try await console.get(ConsolePage.participants.uri(study: "trial")).text
                let boPseudonym = try #require(try await store.user(id: boId)).pseudonym
                #expect(list.contains("id=\"screening-\(boPseudonym)\"") && list.contains("<dt>How old are you?</dt><dd>40</dd>")
                        && list.contains("<dt>Does your tinnitus beat with your pulse?</dt><dd>no</dd>"), "\(list)")
                try await administration.decideJoinRequest(studyId: "trial", userId: boId, status: .member)
                let first = try await store.sheets(userId: boId, offset: 0, limit: 10).sheets
                #expect(first.count == 1 && first[0].sheet.questionnaireID == "screen" && first[0].sheet.owner == ModuleID("tys"))
                #expect(try await store.screenings(studyId: "trial").last?.answers == nil)
                let cyToken = try await fixture.account(client, "cyril")
                _ = try await Self.join(client, cyToken, Self.sheet(now: now))
                let cyId = try #require(try await store.user(login: "cyril")).id
                try await administration.decideJoinRequest(studyId: "trial", userId: cyId, status: .denied)
                #expect(try await store.screenings(studyId: "trial").last.map { $0.answers == nil && $0.userId == cyId } == true)
                #expect(try await store.sheets(userId: cyId, offset: 0, limit: 10).total == 0)
                // A request withdrawn by the person takes its waiting answers with it.
                let doraToken = try await fixture.account(client, "dora")
                _ = try await Self.join(client, doraToken, Self.sheet(now: now))
                #expect(try await store.screenings(studyId: "trial").last?.answers != nil)
                #expect(try await client.post("/api/v1/studies/trial/leave", token: doraToken).status == .ok)
                #expect(try await store.screenings(studyId: "trial").last?.answers == nil)
            }
        }
    }

    @Test("a screening is checked against its questionnaire before it is stored, and removing it is audited", arguments: [StoreKind.sqlite])
    func setting(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { _ in
                let administration = try await Self.study(fixture)
                let store = fixture.store
                func problem(_ json: String) async -> String {
                    do {
                        let saved = try await StudyScreening.save(Data(json.utf8), studyId: "trial", administration: administration)
                        return "saved \(saved.questionnaire)"
                    } catch {
                        return "\(error)"
                    }
                }
                let message = #""ineligibleMessage": {"en": "No."}"#
                let refusal1 = await problem(#"{"questionnaire": "nope", "rules": [], \#(message)}"#)
                #expect(refusal1.contains("no questionnaire nope"), "\(refusal1)")
                let refusal2 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "height", "min": 1}], \#(message)}"#)
                #expect(refusal2.contains("screen has no item height"), "\(refusal2)")
                let refusal3 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "score": "sum", "min": 1}], \#(message)}"#)
                #expect(refusal3.contains("no score sum"), "\(refusal3)")
                let refusal4 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "age", "min": 9, "max": 1}], \#(message)}"#)
                #expect(refusal4.contains("min is above max"), "\(refusal4)")
                let refusal5 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "age"}], \#(message)}"#)
                #expect(refusal5.contains("needs min, max or in"), "\(refusal5)")
                let refusal6 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "age", "score": "total", "min": 1}], \#(message)}"#)
                #expect(refusal6.contains("one item or one score"), "\(refusal6)")
                let refusal7 = await problem(#"{"questionnaire": "screen", "rules": [{"id": "x", "item": "age", "min": 1}], "ineligibleMessage": {"en": " "}}"#)
                #expect(refusal7.contains("ineligibleMessage is empty"), "\(refusal7)")
                let refusal8 = await problem("{")
                #expect(refusal8.contains("not JSON"), "\(refusal8)")
                #expect(try await store.screening(studyId: "trial")?.rules.count == 4, "nothing stored by a refused screening")
                let set = try #require(try await store.auditTrail(studyId: "trial").last { $0.action == "screening.set" })
                #expect(set.detail["rules"] == .array([.string("age: age from 18 to 80"), .string("no-pulsatile: pulsatile one of 1"),
                                                       .string("new-aid: aid_years at most 5"), .string("distress: score total at least 3")]))
                #expect(try await store.setScreening(nil, studyId: "trial", actor: .operator, now: fixture.clock.now()))
                #expect(try await store.screening(studyId: "trial") == nil)
                #expect(try await store.auditTrail(studyId: "trial").last?.action == "screening.remove")
            }
        }
    }

    @Test("the portal: the studies page leads to the screening page, a missing answer comes back with everything typed, the study's words for someone not eligible, and an eligible person joins at the site of their link")
    func portal() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                _ = try await Self.study(fixture)
                let store = fixture.store
                for name in ["adele", "boris"] { _ = try await fixture.account(client, name) }
                func browser(_ name: String) async throws -> PortalBrowser {
                    let browser = PortalBrowser(client)
                    #expect(try await browser.submit("/login", to: "/login", ["login": name, "password": "correct horse"]).status == .seeOther)
                    return browser
                }
                let ada = try await browser("adele")
                let studies = try await ada.get("/studies?study=trial&site=ulm").text
                #expect(studies.contains("href=\"/studies/screening?study=trial&amp;site=ulm\"") && !studies.contains("id=\"join-trial\""), "\(studies)")
                // The join-by-id form sends a study that screens to its questions.
                let byId = try await ada.submit("/studies", to: "/studies/join", ["study": "trial", "form": "by-id", "site": "ulm"])
                #expect(byId.headers[.location] == "/studies/screening?study=trial&site=ulm")

                let page = try await ada.get("/studies/screening?study=trial&site=ulm").text
                #expect(page.contains("How old are you?") && page.contains("May we keep your answers") && page.contains("I agree to take part."))
                // Questions by position: age q0, pulsatile q1, aid q2, aid_years q3, d1..d3 q4..q6.
                var fields = ["study": "trial", "site": "ulm", "q0": "44", "q1": "1", "q2": "1", "q4": "1", "q5": "2", "consentVersion": "1"]
                let missing = try await ada.submit("/studies/screening?study=trial&site=ulm", to: "/studies/screening", fields)
                #expect(missing.status == .unprocessableContent && missing.text.contains("id=\"problem-q6\"") && missing.text.contains("value=\"44\""))
                #expect(try await store.screenings(studyId: "trial").isEmpty)
                fields["q6"] = "0"
                let joined = try await ada.submit("/studies/screening?study=trial&site=ulm", to: "/studies/screening", fields)
                #expect(joined.headers[.location] == "/studies?notice=studyJoined")
                let adaId = try #require(try await store.user(login: "adele")).id
                #expect(try await store.memberSites(studyId: "trial")[adaId] == "ulm")
                #expect(try await store.sheets(userId: adaId, offset: 0, limit: 5).sheets.first?.sheet.questionnaireID == "screen")
                // Her own download names her site and her screening.
                let download = try #require(try JSONSerialization.jsonObject(with: Data(try await ada.get("/data/export.json").text.utf8)) as? [String: Any])
                #expect((download["memberships"] as? [[String: Any]])?.first?["site"] as? String == "ulm")
                #expect((download["screenings"] as? [[String: Any]])?.first?["eligible"] as? Bool == true)

                let bo = try await browser("boris")
                let told = try await bo.submit("/studies/screening?study=trial", to: "/studies/screening",
                                               ["study": "trial", "q0": "15", "q1": "1", "q2": "1", "q4": "1", "q5": "1", "q6": "1", "keep": "no"])
                #expect(told.status == .ok && told.text.contains("<strong>This study</strong> does not suit you.")
                        && told.text.contains("Your answers have not been kept"), "\(told.text)")
                let boId = try #require(try await store.user(login: "boris")).id
                #expect(try await store.membership(studyId: "trial", userId: boId) == MembershipStatus.none)
                #expect(try await store.screenings(studyId: "trial").last?.userId == nil)

                // The team reads the screening and its counts on the trial tab, rules in words.
                let owner = try await fixture.enrolledStaff("olga")
                try await fixture.role(.owner, owner, "trial")
                let console = PortalBrowser(client)
                try await fixture.signIn(console, owner)
                let tab = try await console.get(ConsolePage.trial.uri(study: "trial")).text
                #expect(tab.contains("2 screened: 1 eligible, 1 not eligible (answers kept for 0 of them") , "\(tab)")
                #expect(tab.contains("<th scope=\"row\">age</th><td>age: from 18 to 80</td><td>1</td>"), "\(tab)")
                #expect(tab.contains("<td>score total: at least 3</td><td>0</td>"), "\(tab)")
                #expect(tab.contains("Not eligible at screening (n = 1; rules not met: age 1)<"), "\(tab)")
            }
        }
    }
}
