import Foundation
import HTTPTypes
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Alerts (issue 47): a study's rules raise each alert once per participant and occurrence, mail
/// the roles they name without any answer, show on the overview and the participant's page until
/// a member marks them seen with a note, and every step is in the audit trail.
@Suite("Console: alert rules and alerts", .timeLimit(.minutes(10)))
struct ConsoleAlertTests {
    /// The mails in the fixture's spool to `address`, once the queue has sent what it holds.
    static func mails(_ fixture: ConsoleFixture, to address: String) async throws -> [String] {
        await fixture.environment.mail.idle()
        return try (fixture.environment.mailer as! SpoolMailer).messages().compactMap { message in
            let text = try String(contentsOf: message.url, encoding: .utf8)
            return text.contains("To: \(address)\r\n") && text.contains("UNITI alert") ? text : nil
        }
    }

    @Test("each kind of rule fires once, mails the roles it names (pseudonym and rule, no answer), and is marked seen with a note; all audited",
          arguments: StoreKind.allCases)
    func rulesFireOnceAndAreSeen(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let store = fixture.store, day = 86_400.0
            try await fixture.run { client in
                let (browser, editor) = try await fixture.alphaEditor(client)
                let owner = try await fixture.enrolledStaff("olga")
                try await fixture.role(.owner, owner, "alpha")
                let viewer = try await fixture.enrolledStaff("vic")
                try await fixture.role(.viewer, viewer, "alpha")
                let page = "/console/studies/alpha/alerts"

                // A rule the form refuses, each problem beside its field; nothing is stored.
                let refused = try await browser.submit(page, to: page + "/rules", [
                    "name": "", "kind": "safety", "target": "alpha-daily|item|nothing", "comparison": "atLeast", "threshold": "x"])
                #expect(refused.status == .unprocessableContent)
                #expect(refused.text.contains("Give the rule a name") && refused.text.contains("not numbers a threshold can compare")
                        && refused.text.contains("Choose at least one role"))
                #expect(try await store.alertRules(studyId: "alpha").isEmpty)

                // Safety on an item, mailed to editors, reviewed; silence, adherence and consent mailed to owners.
                for fields in [
                    ["name": "Loud tinnitus", "kind": "safety", "target": "alpha-daily|item|loudness", "comparison": "atLeast",
                     "threshold": "80", "role-editor": "yes", "reviewed": "yes"],
                    ["name": "Silent", "kind": "silence", "days": "2", "role-owner": "yes"],
                    ["name": "Few answers", "kind": "adherence", "percent": "50", "days": "7", "role-owner": "yes"],
                    ["name": "Consent waits", "kind": "consent", "days": "1", "role-owner": "yes"],
                ] {
                    #expect(try await browser.submit(page, to: page + "/rules", fields).status == .seeOther, "\(fields["name"]!)")
                }
                let rules = try await store.alertRules(studyId: "alpha")
                #expect(rules.map(\.rule.name) == ["Loud tinnitus", "Silent", "Few answers", "Consent waits"])

                // Ann answers loudly once and quietly once; Ben joined three days ago and sent nothing.
                let now = fixture.clock.now()
                let ann = try await store.createUser(username: "ann", email: "ann@example.org", passwordHash: "h", language: "en",
                                                     pseudonym: "p-ann-0000001", now: now)
                let ben = try await store.createUser(username: "ben", email: "ben@example.org", passwordHash: "h", language: "en",
                                                     pseudonym: "p-ben-0000001", now: now)
                try await store.setMembership(studyId: "alpha", userId: ann, status: .member, now: now)
                try await store.setMembership(studyId: "alpha", userId: ben, status: .member, now: now.addingTimeInterval(-3 * day))
                let loud = sheet(loudness: 93, questionnaire: "alpha-daily"), quiet = sheet(loudness: 20, questionnaire: "alpha-daily")
                _ = try await store.storeSheets(userId: ann, sheets: [ValidatedSheet(sheet: loud, studyId: "alpha"), ValidatedSheet(sheet: quiet, studyId: "alpha")],
                                                receivedAt: now)
                // Ann's prompts this week: one answered, two missed (a third answered in time: below 50 %).
                let utc = TimeZone(identifier: "UTC")!
                var events: [PromptEvent] = []
                for (index, kinds) in [[PromptEventKind.planned, .delivered, .completed], [.planned, .delivered, .expired], [.planned, .delivered, .expired]].enumerated() {
                    let due = OffsetTimestamp(now.addingTimeInterval(-Double(index + 1) * 7200), in: utc)
                    events += kinds.map { PromptEvent(promptId: "tyt/alpha-daily/\(index)", moduleId: "tyt", questionnaireId: "alpha-daily", kind: $0,
                                                      at: due, dueAt: due, expiresAt: $0 == .delivered ? OffsetTimestamp(due.date.addingTimeInterval(1800), in: utc) : nil,
                                                      channel: $0 == .delivered ? "daemon" : nil, sheetId: $0 == .completed ? UUID() : nil) }
                }
                _ = try await store.storePromptEvents(userId: ann, events: events, receivedAt: now)

                // A sheet is looked at once it has settled; then once, however often the rules are checked.
                let monitor = AlertMonitor(environment: fixture.environment)
                fixture.clock.advance(by: 10)
                try await monitor.check(conditions: true)
                try await monitor.check(conditions: true)
                var alerts = try await store.studyAlerts(studyId: "alpha")
                #expect(alerts.map { "\($0.rule.name) \($0.pseudonym)" }.sorted() == ["Few answers p-ann-0000001", "Loud tinnitus p-ann-0000001", "Silent p-ben-0000001"])

                // The consent rule waits its day after a new version; then it fires for both, once.
                let consent = "/console/studies/alpha/consent"
                #expect(try await browser.submit(consent, to: consent, ["consent-en": "New text.", "consent-de": "Neuer Text."]).status == .seeOther)
                try await monitor.check(conditions: true)
                #expect(try await store.studyAlerts(studyId: "alpha").count == 3)
                fixture.clock.advance(by: day + 60)
                try await monitor.check(conditions: true)
                try await monitor.check(conditions: true)
                alerts = try await store.studyAlerts(studyId: "alpha")
                #expect(alerts.filter { $0.rule.name == "Consent waits" }.map(\.pseudonym).sorted() == ["p-ann-0000001", "p-ben-0000001"])
                #expect(alerts.count == 5, "silence for Ben is one alert until he syncs again; Ann's adherence one per period")

                // The editor is mailed the safety alert, the owner the others; no answer value in any.
                let editorMails = try await Self.mails(fixture, to: editor.email)
                #expect(editorMails.count == 1)
                let mail = try #require(editorMails.first)
                #expect(mail.contains("Loud tinnitus") && mail.contains("p-ann-0000001") && mail.contains("/console/studies/alpha/participants/p-ann-0000001"))
                #expect(!mail.contains("93"), "no answer value in the mail")
                #expect(try await Self.mails(fixture, to: owner.email).count == 4)
                #expect(try await Self.mails(fixture, to: viewer.email).isEmpty)

                // Shown on the overview and the participant's page until seen (a day later: signed in again).
                try await fixture.signIn(browser, editor)
                let overview = try await browser.get("/console/studies/alpha")
                #expect(overview.text.contains(#"id="open-alerts""#) && overview.text.contains("Loud tinnitus"))
                let safety = try #require(alerts.first { $0.rule.name == "Loud tinnitus" })
                let annPage = "/console/studies/alpha/participants/p-ann-0000001"
                #expect(try await browser.get(annPage).text.contains(#"id="seen-\#(safety.id)""#))

                // A viewer reads the alerts but marks nothing seen.
                let viewerBrowser = PortalBrowser(client)
                try await fixture.signIn(viewerBrowser, viewer)
                let viewed = try await viewerBrowser.get(page)
                #expect(viewed.status == .ok && viewed.text.contains("Loud tinnitus") && !viewed.text.contains(#"id="seen-"#) && !viewed.text.contains("rule-form"))
                #expect(try await viewerBrowser.post(page + "/\(safety.id)/seen", ["csrf": try #require(PortalBrowser.csrf(in: viewed.text)), "note": "x"]).status == .forbidden)

                // Seen needs a note; then it is seen once, from the participant's page, and leaves the overview.
                let noNote = try await browser.submit(annPage, to: page + "/\(safety.id)/seen", ["note": " ", "participant": "p-ann-0000001", "back": "participant"])
                #expect(noNote.status == .seeOther && noNote.headers[.location]?.contains("alertNoteMissing") == true)
                let seen = try await browser.submit(annPage, to: page + "/\(safety.id)/seen",
                                                    ["note": "Called her; she is fine.", "participant": "p-ann-0000001", "back": "participant"])
                #expect(seen.status == .seeOther && seen.headers[.location] == annPage + "?notice=alertSeen")
                #expect(try await browser.submit(annPage, to: page + "/\(safety.id)/seen", ["note": "again"]).status == .notFound)
                let marked = try #require(try await store.studyAlerts(studyId: "alpha").first { $0.id == safety.id })
                #expect(marked.seenAt != nil && marked.note == "Called her; she is fine." && marked.seenByName == "ed")
                #expect(!(try await browser.get("/console/studies/alpha").text.contains(#"id="alert-\#(safety.id)""#)))

                // Every alert, mail and "seen" is in the trail; the server raised and mailed, the editor saw.
                let trail = try await store.auditTrail(studyId: "alpha")
                #expect(trail.filter { $0.action == "alert.raise" }.count == 5 && trail.filter { $0.action == "alert.raise" }.allSatisfy { $0.actor == .server })
                #expect(trail.filter { $0.action == "alert.mail" }.count == 5)
                #expect(trail.filter { $0.action == "alert.seen" }.map(\.actor) == [.staff(editor.id)])
                #expect(trail.filter { $0.action == "alertRule.add" }.count == 4)
                #expect(try await store.participantHistory(studyId: "alpha", pseudonym: "p-ann-0000001").contains { $0.action == "alert.seen" })

                // A removed rule raises nothing more; its alerts stay.
                let loudRule = try #require(rules.first)
                #expect(try await browser.submit(page, to: page + "/rules/\(loudRule.id)/remove", [:]).status == .seeOther)
                _ = try await store.storeSheets(userId: ann, sheets: [ValidatedSheet(sheet: sheet(loudness: 99, questionnaire: "alpha-daily"), studyId: "alpha")],
                                                receivedAt: fixture.clock.now())
                fixture.clock.advance(by: 10)
                try await monitor.check(conditions: false)
                #expect(try await store.studyAlerts(studyId: "alpha").count == 5)

                // Withdrawing with deletion takes the alerts about the person with the answers.
                try await store.leaveStudy(userId: ann, studyId: "alpha", deleteAnswers: true, now: fixture.clock.now())
                #expect(try await store.studyAlerts(studyId: "alpha", pseudonym: "p-ann-0000001").isEmpty)
            }
        }
    }

    @Test("a sheet is checked once it has settled, never skipped when one with a lower id commits later, and alerted once",
          arguments: StoreKind.allCases)
    func safetyCursor(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let store = fixture.store, start = fixture.clock.now()
            try await fixture.study("alpha")
            try await fixture.store.addQuestionnaire(
                try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), studyId: "alpha"), module: nil, now: start)
            var loud = AlertRule(name: "Loud", kind: .safety, roles: [.owner], reviewed: false)
            (loud.questionnaireId, loud.item, loud.comparison, loud.threshold) = ("alpha-daily", "loudness", .atLeast, 80)
            _ = try await store.addAlertRule(studyId: "alpha", loud, actor: .operator, now: start)
            let ann = try await store.createUser(username: "ann", email: "ann@example.org", passwordHash: "h", language: "en",
                                                 pseudonym: "p-ann-0000001", now: start)
            try await store.setMembership(studyId: "alpha", userId: ann, status: .member, now: start)
            func send(_ loudness: Double, receivedAfter seconds: TimeInterval) async throws -> UUID {
                let answered = sheet(loudness: loudness, questionnaire: "alpha-daily")
                _ = try await store.storeSheets(userId: ann, sheets: [ValidatedSheet(sheet: answered, studyId: "alpha")],
                                                receivedAt: start.addingTimeInterval(seconds))
                return answered.id
            }
            func alerted() async throws -> Int { try await store.studyAlerts(studyId: "alpha").count }
            let monitor = AlertMonitor(environment: fixture.environment)
            _ = try await send(90, receivedAfter: 0)
            _ = try await send(95, receivedAfter: 10)
            fixture.clock.advance(by: 8)
            try await monitor.check(conditions: false)
            #expect(try await alerted() == 1, "the second sheet has not settled yet")
            fixture.clock.advance(by: 12)
            try await monitor.check(conditions: false)
            #expect(try await alerted() == 2)
            // A sheet stored first but received later (its transaction was slower) is not passed over.
            _ = try await send(99, receivedAfter: 30)
            _ = try await send(98, receivedAfter: 25)
            fixture.clock.advance(by: 11)  // now start + 31: the one received at 25 has settled, the one at 30 not
            try await monitor.check(conditions: false)
            #expect(try await alerted() == 3)
            fixture.clock.advance(by: 9)
            try await monitor.check(conditions: false)
            try await monitor.check(conditions: false)
            #expect(try await alerted() == 4)
            #expect(try await store.auditTrail(studyId: "alpha").filter { $0.action == "alert.raise" }.count == 4)
        }
    }

    @Test("a score rule by grade and by threshold; an item has no grade; a period needs its days")
    func scoresAndThePortalsPromise() async throws {
        let definition = try JSONDecoder().decode(QuestionnaireDefinition.self, from: Data("""
            {"id": "phq", "version": 1, "title": {"en": "Mood"}, "items": [
              {"label": "a", "type": "scale", "min": 0, "max": 3},
              {"label": "b", "type": "scale", "min": 0, "max": 3}],
             "scoring": {"scores": [{"id": "total", "items": ["a", "b"],
               "bands": [{"min": 0, "max": 2, "grade": "mild"}, {"min": 3, "max": 4, "grade": "moderate"}, {"min": 5, "max": 6, "grade": "severe"}]}]}}
            """.utf8))
        let at = OffsetTimestamp(TestTime.now, in: TimeZone(identifier: "UTC")!)
        func answers(_ a: Double, _ b: Double?) -> AnswerSheet {
            var values: [String: Answer] = ["a": Answer(value: .number(a), answeredAt: at)]
            if let b { values["b"] = Answer(value: .number(b), answeredAt: at) }
            return AnswerSheet(id: UUID(), questionnaireID: "phq", questionnaireVersion: 1, answers: values, startedAt: at, endedAt: at,
                               clientVersion: "t", sensors: nil)
        }
        var grade = AlertRule(name: "Severe", kind: .safety, roles: [.owner], reviewed: true)
        grade.questionnaireId = "phq"; grade.score = "total"; grade.comparison = .grade; grade.grades = ["severe"]
        #expect(grade.problems(questionnaires: ["phq": definition]).isEmpty)
        #expect(grade.matches(answers(3, 3), definition: definition))
        #expect(!grade.matches(answers(3, 1), definition: definition))
        #expect(!grade.matches(answers(3, nil), definition: definition), "a score with an unanswered item has no grade")
        var threshold = grade
        threshold.comparison = .atMost; threshold.threshold = 1; threshold.grades = nil
        #expect(threshold.matches(answers(0, 1), definition: definition) && !threshold.matches(answers(1, 1), definition: definition))
        var unknown = grade
        unknown.grades = ["dreadful"]
        #expect(unknown.problems(questionnaires: ["phq": definition]) == ["grades": "console.alerts.error.grades"])
        var item = grade
        item.score = nil; item.item = "a"
        #expect(item.problems(questionnaires: ["phq": definition]) == ["grades": "console.alerts.error.gradeOfItem"])
        var days = AlertRule(name: "Quiet", kind: .silence, roles: [.editor], reviewed: false)
        days.days = 0
        #expect(days.problems(questionnaires: [:]) == ["days": "console.alerts.error.days"])
    }
}
