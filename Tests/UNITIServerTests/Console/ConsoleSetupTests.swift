import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

/// The console pages that close the gaps to the `uniti-server` subcommands (issue 31): the
/// consent text, a questionnaire's settings, and taking a member's role away or disabling an
/// account. Every route's role check and CSRF check is also walked by ``ConsoleRoleTests`` and
/// ``ConsolePipelineTests``, which list the routes themselves.
@Suite("Console: consent, questionnaire settings, team changes", .timeLimit(.minutes(10)))
struct ConsoleSetupTests {
    @Test("consent: every language of the study needs its text (the missing one named beside its field, nothing stored); a changed text is the next version, listed with its agreements and audited; the same text again is no version",
          arguments: StoreKind.allCases)
    func consentVersions(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                    .create("alpha", StudySettings(title: LocalizedText(["en": "Alpha", "de": "Alpha (de)"]), access: .public))
                let owner = try await fixture.enrolledStaff("olga"), viewer = try await fixture.enrolledStaff("vic")
                try await fixture.role(.owner, owner, "alpha")
                try await fixture.role(.viewer, viewer, "alpha")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, owner)
                let base = "/console/studies/alpha/consent"
                #expect(try await browser.get(base).text.contains(#"id="no-consent""#))

                let refused = try await browser.submit(base, to: base, ["consent-en": "You agree.", "consent-de": "  "])
                #expect(refused.status == .unprocessableContent)
                #expect(refused.text.contains(#"id="error-consent-de""#) && !refused.text.contains(#"id="error-consent-en""#))
                #expect(refused.text.contains("You agree."), "what was typed stays in the form")
                #expect(try await fixture.store.consentVersions(studyId: "alpha").isEmpty)

                let first = try await browser.submit(base, to: base, ["consent-en": "You agree.", "consent-de": "Sie stimmen zu."])
                #expect(first.headers[.location] == "\(base)?notice=consentPublished")
                let same = try await browser.submit(base, to: base, ["consent-en": "You agree.", "consent-de": "Sie stimmen zu."])
                #expect(same.headers[.location] == "\(base)?notice=consentUnchanged")
                let second = try await browser.submit(base, to: base, ["consent-en": "You agree, <b>again</b>.", "consent-de": "Sie stimmen erneut zu."])
                #expect(second.status == .seeOther)

                let versions = try await fixture.store.consentVersions(studyId: "alpha")
                #expect(versions.map(\.version) == [2, 1])
                #expect(versions.first?.text == LocalizedText(["en": "You agree, <b>again</b>.", "de": "Sie stimmen erneut zu."]))
                #expect(versions.map(\.agreements) == [0, 0])
                #expect(try await fixture.store.study(id: "alpha")?.consentVersion == 2)
                let listed = try await browser.get(base)
                #expect(listed.text.contains(#"id="consent-version-2""#) && listed.text.contains(#"id="consent-version-1""#))
                #expect(listed.text.contains("&lt;b&gt;again&lt;/b&gt;"), "markup in a consent shows as text")
                let trail = try await fixture.store.auditTrail(studyId: "alpha").filter { $0.action == "study.update" }
                #expect(trail.count == 2)
                #expect(trail.map { $0.detail } == [.object(["changes": .object(["consent": .object(["from": .null, "to": .number(1)])])]),
                                                     .object(["changes": .object(["consent": .object(["from": .number(1), "to": .number(2)])])])],
                        "a consent change names the versions")
                #expect(trail.allSatisfy { $0.actor == .staff(owner.id) })

                // A participant who agrees is counted beside the version.
                let member = try await fixture.store.createUser(username: "pat", email: "pat@example.org", passwordHash: "x", language: "en",
                                                                pseudonym: "p-000000000001", now: fixture.clock.now())
                #expect(try await fixture.store.recordConsent(userId: member, studyId: "alpha", version: 2, now: fixture.clock.now()))
                #expect(try await fixture.store.consentVersions(studyId: "alpha").map(\.agreements) == [1, 0])

                let viewing = PortalBrowser(client)
                try await fixture.signIn(viewing, viewer)
                // A viewer reads every version, and has no form to publish one.
                let read = try await viewing.get(base)
                #expect(read.status == .ok && read.text.contains(#"id="consent-version-2""#) && !read.text.contains(#"id="publish-consent""#))
                let token = try #require(PortalBrowser.csrf(in: try await viewing.get("/console/studies/alpha").text))
                #expect(try await viewing.post(base, ["csrf": token, "consent-en": "Changed", "consent-de": "Geändert"]).status == .forbidden)
                #expect(try await fixture.store.consentVersions(studyId: "alpha").count == 2)
            }
        }
    }

    @Test("questionnaire settings: each unreadable or invalid field has its own line (in German for a German browser) and nothing is stored; valid settings are the next version with an audit line naming what changed; unchanged ones store nothing")
    func questionnaireSettings() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let (browser, editor) = try await fixture.alphaEditor(client)
            let path = "/console/studies/alpha/questionnaires/alpha-daily/settings"
            #expect(try await browser.get("/console/studies/alpha/questionnaires").text.contains(#"id="settings-alpha-daily""#))

            let wrong = ["frequency": "daily", "timing": "between", "start": "2027-02-01", "end": "2027-01-01", "every": "two",
                         "amount": "0", "completionWindow": "2000", "message-en": "", "message-de": "Danke"]
            let refused = try await browser.submit(path, to: path, wrong)
            #expect(refused.status == .unprocessableContent)
            for field in ["end", "every", "amount", "completionWindow", "message-en"] {
                #expect(refused.text.contains(#"id="error-\#(field)""#), "\(field)")
            }
            for field in ["frequency", "timing", "at", "start", "startOnDay", "message-de"] {
                #expect(!refused.text.contains(#"id="error-\#(field)""#), "\(field)")
            }
            #expect(refused.text.contains("The last day must not be before the first."))
            #expect(refused.text.contains(#"value="two""#), "the wrong value is shown back")
            var fixedEvery = wrong
            fixedEvery["every"] = "2"
            let second = try await browser.submit(path, to: path, fixedEvery)
            #expect(second.text.contains(#"id="error-amount""#) && second.text.contains(#"id="error-completionWindow""#))
            #expect(!second.text.contains(#"id="error-every""#))
            browser.extraHeaders[.acceptLanguage] = "de"
            let german = try await browser.submit(path, to: path, fixedEvery)
            #expect(german.text.contains("Geben Sie 1 bis 1440 Minuten an"))
            browser.extraHeaders[.acceptLanguage] = nil
            #expect(try await fixture.store.latestQuestionnaires(studyId: "alpha").first?.version == 1)

            let valid = ["frequency": "daily", "timing": "between", "start": "2027-01-01", "end": "2027-02-01", "every": "1", "amount": "2",
                         "scheduleChangeable": "on", "completionWindow": "30", "message-en": "Thank you.", "message-de": "Danke."]
            #expect(try await browser.submit(path, to: path, valid).headers[.location] == "\(path)?notice=questionnaireUpdated")
            let stored = try #require(try await fixture.store.latestQuestionnaires(studyId: "alpha").first)
            #expect(stored.version == 2 && stored.definition.version == 2)
            #expect(stored.definition.schedule == QuestionnaireSchedule(frequency: .daily, timing: .between, start: "2027-01-01", end: "2027-02-01",
                                                                        every: 1, amount: 2))
            #expect(stored.definition.scheduleChangeable && stored.definition.completionWindowMinutes == 30)
            #expect(stored.definition.afterSaving?.message == LocalizedText(["en": "Thank you.", "de": "Danke."]))
            #expect(stored.definition.items.count == 2, "the items are the previous version's")
            #expect(try await browser.submit(path, to: path, valid).headers[.location] == "\(path)?notice=settingsUnchanged")
            #expect(try await fixture.store.latestQuestionnaires(studyId: "alpha").first?.version == 2)
            let shown = try await browser.get(path)
            #expect(shown.text.contains(#"value="30""#) && shown.text.contains("Thank you."))

            let line = try #require(try await fixture.store.auditTrail(studyId: "alpha").last)
            #expect(line.action == "questionnaire.update" && line.actor == .staff(editor.id))
            #expect(line.detail["questionnaire"] == .string("alpha-daily") && line.detail["version"] == .number(2))
            #expect(line.detail["changes"]?.objectKeys == ["afterSaving", "completionWindowMinutes", "schedule", "scheduleChangeable"])
            #expect(line.detail["changes"]?["scheduleChangeable"] == .object(["from": .bool(false), "to": .bool(true)]))
            #expect(try await browser.get("/console/studies/alpha/questionnaires/no-such/settings").status == .notFound)
        }
    }

    @Test("questionnaire settings: windows per weekday, the gap, the shift and the last day are fields; a gap shorter than the completion window and an unreadable window each have their line; the page previews a participant's week as the devices plan it")
    func promptWindowSettings() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let (browser, _) = try await fixture.alphaEditor(client)
            let path = "/console/studies/alpha/questionnaires/alpha-daily/settings"
            let before = try await browser.get(path)
            // A one-time questionnaire: the standard window is shown, and no preview.
            #expect(before.text.contains(#"id="from-sun" name="from-sun" type="text" inputmode="numeric" size="5" placeholder="HH:MM" value="08:00""#))
            #expect(!before.text.contains("<td>0</td>"))

            var form = ["frequency": "daily", "timing": "between", "amount": "4", "completionWindow": "30", "gap": "20", "shift": "120",
                        "endOnDay": "27", "message-en": "", "windowsNamed": ""]
            for day in ["mon", "tue", "wed", "thu", "fri"] { (form["from-\(day)"], form["to-\(day)"]) = ("08:00", "22:00") }
            (form["from-sat"], form["to-sat"]) = ("10:00", "22:00")
            (form["from-sun"], form["to-sun"]) = ("", "")
            let overlapping = try await browser.submit(path, to: path, form)
            #expect(overlapping.status == .unprocessableContent)
            #expect(overlapping.text.contains(#"id="error-gap""#) && overlapping.text.contains("at least the completion window"))
            var unreadable = form
            (unreadable["gap"], unreadable["from-sat"]) = ("45", "25:00")
            let refused = try await browser.submit(path, to: path, unreadable)
            #expect(refused.status == .unprocessableContent && refused.text.contains(#"id="error-windows""#) && refused.text.contains(#"value="25:00""#))
            #expect(try await fixture.store.latestQuestionnaires(studyId: "alpha").first?.version == 1)

            form["gap"] = "45"
            #expect(try await browser.submit(path, to: path, form).headers[.location] == "\(path)?notice=questionnaireUpdated")
            let schedule = try #require(try await fixture.store.latestQuestionnaires(studyId: "alpha").first?.definition.schedule)
            #expect(schedule.windows == [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "22:00"),
                                         PromptWindow(days: ["sat"], from: "10:00", to: "22:00")])
            #expect(schedule.minimumGapMinutes == 45 && schedule.windowShiftMinutes == 120 && schedule.endOnDay == 27 && schedule.amount == 4)

            // The preview: seven days from joining, four prompts on weekdays and Saturdays (at 10:00
            // or later), none on Sunday, each 45 minutes or more apart, as the planner draws them.
            let shown = try await browser.get(path)
            let section = try #require(shown.text.components(separatedBy: #"<section id="preview""#).last)
            let rows = section.components(separatedBy: "<tr><td>").dropFirst().map { $0.components(separatedBy: "</td><td>") }
            #expect(rows.count == 7)
            for row in rows {
                let times = row[2].components(separatedBy: "</td>")[0]
                if row[1] == "Sunday" {
                    #expect(times == "no prompts")
                    continue
                }
                let minutes = times.components(separatedBy: ", ").compactMap(PromptWindow.minutes)
                #expect(minutes.count == 4, "\(row)")
                #expect(minutes.allSatisfy { $0 >= (row[1] == "Saturday" ? 600 : 480) && $0 <= 1320 }, "\(row)")
                #expect(zip(minutes, minutes.dropFirst()).allSatisfy { $1 - $0 >= 45 }, "\(row)")
            }
            // A form from before these fields (none of them sent) keeps the windows and the gap.
            let older = ["frequency": "daily", "timing": "between", "amount": "4", "completionWindow": "30", "message-en": "Thanks."]
            #expect(try await browser.submit(path, to: path, older).headers[.location] == "\(path)?notice=questionnaireUpdated")
            let kept = try #require(try await fixture.store.latestQuestionnaires(studyId: "alpha").first?.definition.schedule)
            #expect(kept.windows == schedule.windows && kept.minimumGapMinutes == 45 && kept.endOnDay == 27)
        }
    }

    @Test("team: an owner invites someone new by name and address (an account with an invitation only, the link by mail); removing a member and disabling an account each ask first, then act and leave their line; the last owner stays; an owner may not disable a member of another team's study, an admin, or themselves; an address outside the team is refused")
    func teamChanges() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await fixture.study("alpha")
            try await fixture.study("beta")
            let owner = try await fixture.enrolledStaff("olga"), editor = try await fixture.enrolledStaff("ed")
            let viewer = try await fixture.enrolledStaff("vic"), stranger = try await fixture.enrolledStaff("sam")
            let admin = try await fixture.enrolledStaff("ada", admin: true)
            try await fixture.role(.owner, owner, "alpha")
            try await fixture.role(.editor, editor, "alpha")
            try await fixture.role(.viewer, viewer, "alpha")
            try await fixture.role(.viewer, viewer, "beta")
            try await fixture.role(.owner, stranger, "beta")
            try await fixture.role(.viewer, admin, "alpha")
            let browser = PortalBrowser(client), edited = PortalBrowser(client)
            try await fixture.signIn(browser, owner)
            try await fixture.signIn(edited, editor)
            let team = "/console/studies/alpha/team"
            func roles(_ login: StaffLogin) async throws -> [String: StudyRole] { try await fixture.store.studyRoles(staffId: login.id) }

            let asked = try await browser.submit(team, to: "\(team)/remove", ["email": editor.email])
            #expect(asked.status == .ok && asked.text.contains(#"name="confirm" value="yes""#))
            #expect(try await roles(editor)["alpha"] == .editor, "nothing before the confirmation")
            let removed = try await browser.submit(team, to: "\(team)/remove", ["email": editor.email, "confirm": "yes"])
            #expect(removed.headers[.location] == "\(team)?notice=memberRemoved")
            #expect(try await roles(editor)["alpha"] == nil)
            #expect(try await edited.get("/console/studies/alpha").status == .notFound)

            let lastOwner = try await browser.submit(team, to: "\(team)/remove", ["email": owner.email, "confirm": "yes"])
            #expect(lastOwner.status == .unprocessableContent && lastOwner.text.contains("at least one owner"))
            #expect(try await browser.submit(team, to: "\(team)/disable", ["email": viewer.email, "confirm": "yes"]).status == .unprocessableContent,
                    "vic also views beta, which olga does not own")
            #expect(try await browser.submit(team, to: "\(team)/disable", ["email": admin.email, "confirm": "yes"]).status == .unprocessableContent)
            #expect(try await browser.submit(team, to: "\(team)/disable", ["email": owner.email, "confirm": "yes"]).status == .unprocessableContent)
            #expect(try await browser.submit(team, to: "\(team)/disable", ["email": stranger.email, "confirm": "yes"]).status == .unprocessableContent,
                    "sam is not in alpha's team")
            #expect(try await roles(viewer).count == 2)
            #expect(try await roles(stranger)["beta"] == .owner)

            try await fixture.role(.editor, editor, "alpha")
            #expect(try await browser.submit(team, to: "\(team)/disable", ["email": editor.email]).text.contains(#"id="confirm""#))
            let disabled = try await browser.submit(team, to: "\(team)/disable", ["email": editor.email, "confirm": "yes"])
            #expect(disabled.headers[.location] == "\(team)?notice=memberDisabled")
            #expect(try await roles(editor).isEmpty)
            #expect(try await edited.get("/console").headers[.location] == "/console/signin", "the session ended")
            #expect(try await fixture.signIn(PortalBrowser(client), editor).status == .unauthorized)

            // An administrator disables the member of two studies.
            let administering = PortalBrowser(client)
            try await fixture.signIn(administering, admin)
            #expect(try await administering.submit(team, to: "\(team)/disable", ["email": viewer.email, "confirm": "yes"]).status == .seeOther)
            #expect(try await roles(viewer).isEmpty)

            // An owner invites someone new to the console: without a name, refused and nothing made;
            // with one, an account with only this role, and the enrolment link by mail.
            let unnamed = try await browser.submit(team, to: team, ["email": "nia@team.example.org", "role": "viewer"])
            #expect(unnamed.status == .unprocessableContent && unnamed.text.contains("Give the name of the person you invite"))
            #expect(try await fixture.store.staffMember(email: "nia@team.example.org") == nil)
            let invited = try await browser.submit(team, to: team, ["email": "Nia@Team.example.org", "role": "viewer", "name": "Nia"])
            #expect(invited.headers[.location] == "\(team)?notice=invited")
            let nia = try #require(try await fixture.store.staffMember(email: "nia@team.example.org"))
            #expect(try await fixture.store.studyRoles(staffId: nia.id).isEmpty, "a role only once the invitation is accepted")
            #expect(try await fixture.store.invitations(staffId: nia.id).map { [$0.studyId, $0.role.rawValue] } == [["alpha", "viewer"]])
            #expect(nia.admin == false)
            await fixture.environment.mail.idle()
            let mail = try String(contentsOf: try #require(try server.spool.messages().last).url, encoding: .utf8)
                .replacingOccurrences(of: "\r\n", with: "\n")
            #expect(mail.contains("nia@team.example.org"))
            let code = try #require(ConsoleFixture.code(in: mail))
            #expect(try await StaffService(environment: fixture.environment).enrolling(code: code).id == nia.id)
            let addedBy: Int64? = try await fixture.store.database.row("""
                SELECT staff_id FROM audit_log WHERE action = 'staff.add' AND study_id IS NULL AND detail LIKE '%nia@team.example.org%'
                """)?["staff_id"]
            #expect(addedBy == owner.id, "staff.add names the owner who invited")

            let actions = try await fixture.store.auditTrail(studyId: "alpha").map(\.action)
            #expect(actions.filter { $0 == "team.remove" }.count == 1 && actions.filter { $0 == "team.disable" }.count == 2)
            #expect(try await fixture.store.auditTrail(studyId: "beta").map(\.action).last == "team.disable")
        }
    }

    @Test("overview: participants over time (joined per day, and the running total counting those who joined before the window) and adherence per day of the prompts' due times, counted as `adherence` counts them, as SVG beside the sheets",
          arguments: StoreKind.allCases)
    func overviewCharts(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let store = fixture.store, now = fixture.clock.now(), day = 86_400.0
            try await fixture.run { client in
                try await fixture.study("alpha")
                _ = try await store.addQuestionnaire(
                    try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), studyId: "alpha"), module: .tys, now: now)
                var users: [Int64] = []
                for (index, joined) in [-40.0, -2, -2].enumerated() {
                    let id = try await store.createUser(username: "u\(index)", email: "u\(index)@example.org", passwordHash: "h", language: "en",
                                                        pseudonym: "p-00000000000\(index)", now: now)
                    try await store.setMembership(studyId: "alpha", userId: id, status: .member, now: now.addingTimeInterval(joined * day))
                    users.append(id)
                }
                let utc = TimeZone(identifier: "UTC")!
                func prompt(_ id: String, due: TimeInterval, _ kinds: [PromptEventKind]) -> [PromptEvent] {
                    let at = OffsetTimestamp(now.addingTimeInterval(due), in: utc)
                    return kinds.map { kind in
                        PromptEvent(promptId: id, moduleId: "tys", questionnaireId: "alpha-daily", kind: kind, at: at, dueAt: at,
                                    expiresAt: kind == .delivered ? OffsetTimestamp(now.addingTimeInterval(due + 3600), in: utc) : nil,
                                    channel: kind == .delivered ? "daemon" : nil, sheetId: kind == .completed ? UUID() : nil)
                    }
                }
                let events = prompt("tys/alpha-daily/1", due: -day, [.planned, .delivered, .completed])
                    + prompt("tys/alpha-daily/2", due: -day + 60, [.planned, .delivered, .expired])
                    + prompt("tys/alpha-daily/3", due: 0, [.planned, .delivered, .completed])
                    + prompt("tys/alpha-daily/4", due: -40 * day, [.planned, .delivered, .expired])
                _ = try await store.storePromptEvents(userId: users[0], events: events, receivedAt: now)

                // The store's days agree with the per-participant count for the same period.
                let yesterday = DayChart.day(now) - 1
                let start = Date(timeIntervalSince1970: Double(yesterday) * day)
                let perDay = try await store.adherencePerDay(studyId: "alpha", days: yesterday...yesterday)
                let counted = Mutex(AdherenceCounts())
                try await store.adherence(studyId: "alpha", from: start, to: start.addingTimeInterval(day)) { line in counted.withLock { $0.add(line.counts) } }
                #expect(perDay == [yesterday: counted.withLock { $0 }])
                #expect(perDay[yesterday]?.answeredInTime == 1 && perDay[yesterday]?.missed == 1)

                let owner = try await fixture.enrolledStaff("olga")
                try await fixture.role(.viewer, owner, "alpha")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, owner)
                let page = try await browser.get("/console/studies/alpha")
                #expect(page.status == .ok)
                let html = page.text
                /// The chart's figure: its SVG and its caption.
                func chart(_ id: String) throws -> String {
                    let start = try #require(html.range(of: #"<svg id="\#(id)""#))
                    let end = try #require(html.range(of: "</figure>", range: start.upperBound..<html.endIndex))
                    return String(html[start.lowerBound..<end.upperBound])
                }
                let joinedDay = DayChart.label(DayChart.day(now.addingTimeInterval(-2 * day)))
                let participants = try chart("participants-chart")
                #expect(participants.contains("<title>\(joinedDay): 2</title>"), "two joined that day")
                #expect(participants.contains("<polyline"), "the running total")
                #expect(participants.contains("Top of the scale: 3"), "the total counts the one who joined before the window")
                let adherence = try chart("adherence-chart")
                #expect(adherence.contains("<title>\(DayChart.label(yesterday)): 50 %</title>"))
                #expect(adherence.contains("<title>\(DayChart.label(DayChart.day(now))): 100 %</title>"))
                #expect(adherence.matches(of: #/<rect /#).count == 2, "the prompt of 40 days ago is outside the chart")
                #expect(html.contains(#"<svg id="sheets-chart""#))
                #expect(!html.contains("<script"), "no inline script")

                // The adherence download (an editor's): `uniti-server adherence --format csv`'s lines.
                let report = "/console/studies/alpha/data/adherence.csv"
                #expect(try await browser.get(report).status == .forbidden, "a viewer downloads nothing")
                try await fixture.role(.editor, owner, "alpha")
                func rows(_ path: String) async throws -> [[String]] {
                    let response = try await browser.get(path)
                    #expect(response.status == .ok && response.headers[.contentType] == "text/csv; charset=utf-8")
                    return response.text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
                }
                let all = try await rows(report)
                #expect(all.first == AdherenceReport.header)
                let first = try #require(all.first { $0.first == "p-000000000000" })
                #expect(Array(first[1...8]) == ["alpha-daily", "4", "2", "0", "2", "0", "0", "0.5000"], "two answered in time, two missed")
                #expect(first[9] == Timestamps.format(now) && first[10] == "")
                #expect(all.filter { $0[0] != "p-000000000000" && $0[0] != "participant" }.map { [$0[0], $0[1], $0[10]] }.sorted { $0[0] < $1[0] }
                        == [["p-000000000001", "", "silent"], ["p-000000000002", "", "silent"]], "members never heard of: a line each, silent")
                let dayText = String(Timestamps.format(start).prefix(10))
                let yesterdays = try await rows(report + "?from=\(dayText)&to=\(dayText)")
                #expect(yesterdays.first { $0.first == "p-000000000000" }.map { Array($0[2...5]) } == ["2", "1", "0", "1"], "the days filter the prompts")
                #expect(try await browser.get(report + "?from=2027-13-40").status == .unprocessableContent)
                let line = try #require(try await store.auditTrail(studyId: "alpha").last)
                #expect(line.action == "export" && line.detail["format"] == .string("adherence-csv") && line.detail["rows"] == .number(3))
            }
        }
    }

    @Test("SPSS syntax: GNU PSPP reads the console's SPSS data export with it into one case per sheet, numbers as numbers, text as text, the items' texts and value labels; the download is in the audit trail")
    func spssSyntaxRunsInPSPP() async throws {
        #expect(SPSSSyntax.columns.map(\.name) == StudyExport.header, "the syntax reads every CSV column, in order")
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                .create("alpha", StudySettings(title: LocalizedText(["en": "Alpha"]), access: .public, modules: ["tys"]))
            let definition = dailyQuestionnaireJSON().replacingOccurrences(of: #"{"en": "Mood?"}"#, with: #"{"en": "Mood, it's?"}"#)
                .replacingOccurrences(of: #""step": 1}"#, with: #""step": 0.5}"#)
                .replacingOccurrences(of: #"{"en": "so-so"}"#, with: #"{"en": "so-so 'ok'"}"#)
                .replacingOccurrences(of: #"{"en": "good"}}]}"#, with: #"{"en": "good"}}]}, {"type": "freeText", "label": "note", "text": {"en": "Anything else?"}}"#)
            _ = try await StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                .addQuestionnaire(try QuestionnaireImport.document(from: Data(definition.utf8), studyId: "alpha"), module: nil)
            let token = try await client.signUp("pat", on: server)
            #expect(try await client.json(.post, "/api/v1/studies/alpha/join", token: token, body: JoinStudyRequest()).status == .ok)
            var answered = sheet(loudness: 40.5, mood: 2)
            answered.answers["note"] = Answer(value: .text("=1+2, \"quoted\""), answeredAt: answered.startedAt)
            let sent = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [answered, sheet(loudness: 7, mood: 3)]))
            #expect(sent.status == .ok, "\(sent.text)")

            let editor = try await fixture.enrolledStaff("ed")
            try await fixture.role(.editor, editor, "alpha")
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, editor)
            #expect(try await browser.get("/console/studies/alpha/data").text.contains(#"href="data/answers.sps""#))
            let csv = try await browser.get("/console/studies/alpha/data/export?format=spss")
            let syntax = try await browser.get("/console/studies/alpha/data/answers.sps")
            #expect(syntax.status == .ok && syntax.headers[.contentDisposition] == #"attachment; filename="alpha-answers.sps""#)
            #expect(try await fixture.store.auditTrail(studyId: "alpha").last?.detail
                    == .object(["format": .string("spss-syntax"), "filters": .object([:]), "rows": .number(3)]))

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-spss-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data(csv.text.utf8).write(to: directory.appendingPathComponent("alpha-answers-spss.csv"))
            try Data((syntax.text + "LIST /VARIABLES=sheet daily_loudness daily_mood daily_note.\nDISPLAY DICTIONARY.\n").utf8)
                .write(to: directory.appendingPathComponent("alpha-answers.sps"))
            let pspp = Process()
            pspp.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            pspp.arguments = ["pspp", "-O", "format=csv", "alpha-answers.sps"]
            pspp.currentDirectoryURL = directory
            let output = Pipe()
            pspp.standardOutput = output
            pspp.standardError = output
            try pspp.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            pspp.waitUntilExit()
            #expect(pspp.terminationStatus == 0, "pspp (Scripts/bootstrap --tests installs it): \(text)")
            #expect(!text.contains("error") && !text.contains("warning"), "\(text)")
            #expect(text.contains(#"\#(answered.id.uuidString.lowercased()),40.5000,2,"'=1+2, ""quoted""""#)
                    || text.contains(#"\#(answered.id.uuidString),40.5000,2,"'=1+2, ""quoted""""#), "\(text)")
            #expect(text.contains(",7.0000,3,"), "the second sheet is a case of its own: \(text)")
            #expect(text.contains("Mood, it's?") && text.contains("so-so 'ok'") && text.contains("Anything else?"), "\(text)")
        }
    }

    @Test("the enrolment mail is in English and German (a staff account has no language yet), both with the same one-time code and link")
    func enrolmentMailInBothLanguages() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        let added = try await StaffService(environment: fixture.environment).add(name: "Ann", email: "ann@team.example.org", admin: false, by: .operator)
        let mail = added.mail
        #expect(mail.subject == "UNITI console: set up your account / UNITI-Konsole: Konto einrichten")
        let english = try #require(mail.body.range(of: "Hello Ann,")), german = try #require(mail.body.range(of: "Hallo Ann,"))
        #expect(english.lowerBound < german.lowerBound, "English first")
        let code = try #require(ConsoleFixture.code(in: mail.body))
        #expect(mail.body.components(separatedBy: "    \(code)\n").count == 3, "the code in each language")
        #expect(mail.body.components(separatedBy: "/console/enrol?code=\(code)").count == 3)
        #expect(try await StaffService(environment: fixture.environment).enrolling(code: code).id == added.id)
    }

    @Test("the preview posts to itself: answers checked as the portal checks a participant's (a value out of range and a missing required answer named beside their items), valid ones shown as a sheet would hold them, nothing stored")
    func previewSubmission() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let (browser, _) = try await fixture.alphaEditor(client)
            let path = "/console/studies/alpha/questionnaires/alpha-daily/preview"
            let shown = try await browser.get(path)
            #expect(shown.text.contains(#"action="\#(path)""#))
            let trailBefore = try await fixture.store.auditTrail(studyId: "alpha").count

            let refused = try await browser.submit(path, to: path, ["q0": "500", "q1": "2", "action": "finish"])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(#"id="problem-q0""#) && refused.text.contains("Enter a value from 0 to 100."))
            #expect(refused.text.contains(#"value="500""#), "what was typed stays in the form")
            let missing = try await browser.submit(path, to: path, ["q1": "2", "action": "finish"])
            #expect(missing.status == .unprocessableContent && missing.text.contains("Please answer this question."))

            let accepted = try await browser.submit(path, to: path, ["q0": "40", "q1": "2", "action": "finish"])
            #expect(accepted.status == .ok)
            #expect(accepted.text.contains("loudness = 40; mood = 2"))
            #expect(try await fixture.store.auditTrail(studyId: "alpha").count == trailBefore, "a preview changes nothing")
            let sheets = try await fixture.store.sheetsPerDay(studyId: "alpha")
            #expect(sheets.isEmpty, "nothing stored")
        }
    }

    @Test("settings take the study's schedules as `study update --schedules` does: JSON stored and audited, anything else refused with one line and nothing changed")
    func studySchedules() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let (browser, _) = try await fixture.alphaEditor(client, questionnaire: false)
            let path = "/console/studies/alpha/settings"
            let fields = ["titleEn": "Study alpha", "access": "byRequest", "module-tyt": "on"]
            // The other fields as this form leaves them, first, so the schedules are the only change below.
            #expect(try await browser.submit(path, to: path, fields).status == .seeOther)
            let refused = try await browser.submit(path, to: path, fields.merging(["schedules": "{daily: 1"]) { $1 })
            #expect(refused.status == .unprocessableContent && refused.text.contains("The schedules are not JSON"))
            #expect(try await fixture.store.study(id: "alpha")?.schedules == nil)
            let saved = try await browser.submit(path, to: path, fields.merging(["schedules": #"{"daily": {"times": ["09:00"]}}"#]) { $1 })
            #expect(saved.headers[.location] == "\(path)?notice=saved")
            #expect(try await fixture.store.study(id: "alpha")?.schedules == .object(["daily": .object(["times": .array([.string("09:00")])])]))
            #expect(try await browser.get(path).text.contains("09:00"), "shown again for the next change")
            #expect(try await fixture.store.auditTrail(studyId: "alpha").last?.detail
                    == .object(["changes": .object(["schedules": .object(["from": .null, "to": .object(["daily": .object(["times": .array([.string("09:00")])])])])])]))
        }
    }
}

/// The console's consent page the other way round: `study consent` lists the versions for a script.
@Suite("study consent lists the consent's versions", .timeLimit(.minutes(5)))
struct StudyConsentCommandTests {
    @Test("study consent --json: every version newest first with its time, agreements and text; a study that does not exist is one line")
    func listsVersions() throws {
        let server = try TestServer()
        let database = ["--database", server.databasePath]
        #expect(try ServerBinaryTests.runCommand(["study", "create", "s", "--title", "S", "--consent", "First text."] + database).0 == 0)
        #expect(try ServerBinaryTests.runCommand(["study", "update", "s", "--consent", "Second text."] + database).0 == 0)
        let (status, output) = try ServerBinaryTests.runCommand(["study", "consent", "s", "--json"] + database)
        #expect(status == 0, "\(output)")
        let listed = try JSONDecoder().decode([JSONValue].self, from: Data(output.utf8))
        #expect(listed.map { $0["version"] } == [.number(2), .number(1)])
        #expect(listed.first?["text"] == .object(["en": .string("Second text.")]))
        #expect(listed.allSatisfy { $0["agreements"] == .number(0) })
        let (missing, line) = try ServerBinaryTests.runCommand(["study", "consent", "nope"] + database)
        #expect(missing != 0 && line.contains("No study 'nope'"))
    }
}

extension ConsoleFixture {
    /// Study `alpha` (``study(_:)``), with the daily questionnaire `alpha-daily` unless told
    /// otherwise, and a browser signed in as its editor `ed`.
    func alphaEditor(_ client: any TestClientProtocol, questionnaire: Bool = true) async throws -> (PortalBrowser, StaffLogin) {
        try await study("alpha")
        let editor = try await enrolledStaff("ed")
        try await role(.editor, editor, "alpha")
        if questionnaire {
            _ = try await StudyAdministration(store: store, actor: .operator, now: clock.now()).addQuestionnaire(
                try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), studyId: "alpha"), module: nil)
        }
        let browser = PortalBrowser(client)
        try await signIn(browser, editor)
        return (browser, editor)
    }
}
