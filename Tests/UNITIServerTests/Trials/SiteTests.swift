import Foundation
import HTTPTypes
import Synchronization
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48, sites: a study's clinical centres, a participant's site (chosen by the site's
/// enrolment link or code, put there by staff, moved by an owner only), team members held to a
/// site, who reach their own site's participants and nothing of another's on every route, and
/// exports that carry the site and keep to one.
@Suite("Trials: sites and site-held staff", .timeLimit(.minutes(10)))
struct SiteTests {
    static let design = #"""
        {"arms": [{"id": "a", "label": "Arm A", "ratio": 1}, {"id": "b", "label": "Arm B", "ratio": 1}],
         "factors": [{"id": "centre", "levels": ["ulm", "athens"], "site": true}], "method": "blocks"}
        """#

    /// The code of the ``APIError`` `body` throws (nil: it threw none).
    static func refusal(_ body: () async throws -> Void) async -> String? {
        do { try await body() } catch let error as APIError { return error.code } catch { return "\(error)" }
        return nil
    }

    /// The study `alpha` (public, tyt, the daily questionnaire `alpha-daily`) with the sites ulm and athens.
    static func study(_ fixture: ConsoleFixture) async throws -> StudySites {
        let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
        try await administration.create("alpha", StudySettings(title: LocalizedText(["en": "Alpha"]), access: .public, modules: ["tyt"]))
        _ = try await administration.importQuestionnaire(Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), into: "alpha", module: "tyt")
        let sites = StudySites(administration: administration)
        #expect(try await sites.save(StudySite(id: "ulm", name: "Universitätsklinikum Ulm", country: "de", language: "DE"), studyId: "alpha"))
        #expect(try await sites.save(StudySite(id: "athens", name: "Athens", country: "GR", language: "el"), studyId: "alpha"))
        return sites
    }

    @Test("the rule book: sites are checked, a participant joins at the site of their link, a site's editor places only someone of no site and only at their own, an owner alone moves, owners are never held to a site; each change audited", arguments: StoreKind.allCases)
    func ruleBook(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let sites = try await Self.study(fixture)
                let store = fixture.store
                #expect(try await store.sites(studyId: "alpha") == [
                    StudySite(id: "ulm", name: "Universitätsklinikum Ulm", country: "DE", language: "de"),
                    StudySite(id: "athens", name: "Athens", country: "GR", language: "el"),
                ], "country upper-, language lower-case, in the order added")
                #expect(try await !sites.save(StudySite(id: "athens", name: "Athens", country: "GR", language: "el"), studyId: "alpha"), "unchanged")
                for (bad, code) in [(StudySite(id: "Ulm", name: "x", country: "DE", language: "de"), "invalid_site_id"),
                                    (StudySite(id: "x", name: " ", country: "DE", language: "de"), "invalid_site_name"),
                                    (StudySite(id: "x", name: "x", country: "Germany", language: "de"), "invalid_site_country"),
                                    (StudySite(id: "x", name: "x", country: "DE", language: "deu"), "invalid_site_language")] {
                    #expect(await Self.refusal { _ = try await sites.save(bad, studyId: "alpha") } == code, "\(bad)")
                }
                #expect(try await store.sites(studyId: "alpha").count == 2, "nothing stored by a refused site")

                // Joining with the site of the enrolment link, with an unknown one, with none.
                _ = try await fixture.participant(client, "adele", joining: "alpha", site: "ulm")
                let ada = try #require(try await store.user(login: "adele"))
                _ = try await fixture.participant(client, "boris", joining: "alpha", site: "nowhere")
                let bo = try #require(try await store.user(login: "boris"))
                #expect(try await store.membership(studyId: "alpha", userId: bo.id) == .none, "an unknown site is refused, nothing joined")
                _ = try await fixture.participant(client, "cyril", joining: "alpha", site: nil)
                let cy = try #require(try await store.user(login: "cyril"))
                #expect(try await store.memberSites(studyId: "alpha") == [ada.id: "ulm"])
                let joined = try #require(try await store.auditTrail(studyId: "alpha").first { $0.action == "site.assign" })
                #expect(joined.actor == .participant(ada.pseudonym) && joined.detail["participant"] == .string(ada.pseudonym))

                let ulmEditor = StudySites.Scope(role: .editor, site: "ulm"), athensEditor = StudySites.Scope(role: .editor, site: "athens")
                // Someone of no site: a site's editor puts them at their own site only.
                #expect(await Self.refusal { _ = try await sites.assign(pseudonym: cy.pseudonym, to: "athens", studyId: "alpha", by: ulmEditor) } == "site_other")
                #expect(await Self.refusal { _ = try await sites.assign(pseudonym: cy.pseudonym, to: "athens", studyId: "alpha", by: .init(role: .viewer, site: nil)) } == "site_role")
                #expect(try await sites.assign(pseudonym: cy.pseudonym, to: "athens", studyId: "alpha", by: athensEditor))
                // Of another site: answered as no such participant, whatever the step.
                #expect(await Self.refusal { _ = try await sites.assign(pseudonym: cy.pseudonym, to: "ulm", studyId: "alpha", by: ulmEditor) } == "no_participant")
                #expect(await Self.refusal { _ = try await sites.assign(pseudonym: "p-000000000000", to: "ulm", studyId: "alpha", by: ulmEditor) } == "no_participant",
                        "the same answer as for another site's participant")
                // Moving: owners only, study-wide.
                #expect(await Self.refusal { _ = try await sites.assign(pseudonym: cy.pseudonym, to: "ulm", studyId: "alpha", by: .init(role: .editor, site: nil)) }
                        == "site_move_owner")
                #expect(try await sites.assign(pseudonym: cy.pseudonym, to: "ulm", studyId: "alpha", by: .everything))
                let moved = try #require(try await store.auditTrail(studyId: "alpha").last)
                #expect(moved.action == "site.move" && moved.detail["changes"] == .object(["site": .object(["from": .string("athens"), "to": .string("ulm")])]))
                #expect(try await store.studyParticipants(studyId: "alpha", pseudonym: cy.pseudonym).first?.site == "ulm")
                #expect(try await store.participantHistory(studyId: "alpha", pseudonym: cy.pseudonym).map(\.action).suffix(2) == ["site.assign", "site.move"])

                // Holding team members: never an owner, never someone off the team, audited.
                let owner = try await fixture.enrolledStaff("olga"), editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.owner, owner, "alpha")
                try await fixture.role(.editor, editor, "alpha")
                #expect(await Self.refusal { _ = try await sites.hold(email: owner.email, at: "ulm", studyId: "alpha") } == "site_owner")
                #expect(await Self.refusal { _ = try await sites.hold(email: "nobody@team.example.org", at: "ulm", studyId: "alpha") } == "not_on_team")
                #expect(try await sites.hold(email: editor.email, at: "ulm", studyId: "alpha"))
                #expect(try await store.staffSite(staffId: editor.id, studyId: "alpha") == "ulm")
                #expect(try await store.auditTrail(studyId: "alpha").last?.action == "team.site")
                // The hold goes with the role.
                let member = try #require(try await store.staffMember(id: editor.id))
                _ = try await StudyAdministration(store: store, actor: .operator, now: fixture.clock.now()).removeRole(of: member, in: "alpha")
                #expect(try await store.staffSites(studyId: "alpha").isEmpty)

                // The participant's own download names their site.
                let data = try #require(try await store.personalData(userId: ada.id))
                #expect(data.memberships.first { $0.studyId == "alpha" }?.site == "ulm")
            }
        }
    }

    @Test("a site's editor reaches their site's participants and nothing of another site on every route: lists, pages, forms, alerts, exports; randomises their own by site; an owner sees both", arguments: StoreKind.allCases)
    func siteStaffReachTheirSiteOnly(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let sites = try await Self.study(fixture)
                let store = fixture.store
                _ = try await TrialService(administration: StudyAdministration(store: store, actor: .operator, now: fixture.clock.now()))
                    .setUp(studyId: "alpha", design: Data(Self.design.utf8))
                let adaToken = try await fixture.participant(client, "adele", joining: "alpha", site: "ulm")
                let boToken = try await fixture.participant(client, "boris", joining: "alpha", site: "athens")
                for token in [adaToken, boToken] {
                    #expect(try await client.json(.post, "/api/v1/sheets", token: token,
                                                  body: AnswerSheetBatch(sheets: [sheet(loudness: 90, questionnaire: "alpha-daily")])).status == .ok)
                }
                let ada = try #require(try await store.user(login: "adele")).pseudonym, bo = try #require(try await store.user(login: "boris")).pseudonym
                var loud = AlertRule(name: "Loud", kind: .safety, roles: [.owner, .editor], reviewed: false)
                (loud.questionnaireId, loud.item, loud.comparison, loud.threshold) = ("alpha-daily", "loudness", .atLeast, 80)
                _ = try await store.addAlertRule(studyId: "alpha", loud, actor: .operator, now: fixture.clock.now())
                let rule = try #require(try await store.alertRules(studyId: "alpha").first)
                var alerts: [String: Int64] = [:]
                for login in ["adele", "boris"] {
                    let user = try #require(try await store.user(login: login))
                    alerts[login] = try #require(try await store.raiseAlert(rule, userId: user.id, pseudonym: user.pseudonym, occurrence: login,
                                                                            now: fixture.clock.now()))
                }

                let owner = try await fixture.enrolledStaff("olga"), editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.owner, owner, "alpha")
                try await fixture.role(.editor, editor, "alpha")
                _ = try await sites.hold(email: editor.email, at: "ulm", studyId: "alpha")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, editor)
                let csrf = try #require(PortalBrowser.csrf(in: try await browser.get("/console").text))
                let studies = try await browser.get("/console").text
                #expect(studies.contains("href=\"/console/studies/alpha/participants\"") && studies.contains("editor at site ulm"), "\(studies)")

                for page in ConsolePage.studyPages {
                    let path = page.uri(study: "alpha", questionnaire: "alpha-daily", participant: bo)
                    if !page.forSiteStaff {
                        let response = page.method == .post ? try await browser.post(path, ["csrf": csrf, "participant": bo])
                                                            : try await browser.get(path)
                        #expect(response.status == .forbidden, "\(page.method) \(path)")
                        #expect(!response.text.contains(bo), "\(path) names another site's participant")
                        if page.allows(.editor) { #expect(response.text.contains("your role holds at one site"), "\(path)") }
                        continue
                    }
                    switch page {
                    case .participant:
                        #expect(try await browser.get(path).status == .notFound, "another site's participant")
                        #expect(try await browser.get(page.uri(study: "alpha", participant: ada)).status == .ok)
                    case .randomise:
                        #expect(try await browser.post(path, ["csrf": csrf]).status == .notFound)
                    case .decideRequest:
                        #expect(try await browser.post(path, ["csrf": csrf, "participant": bo, "decision": "deny"]).status == .unprocessableContent)
                    case .markAlertSeen:
                        let other = "/console/studies/alpha/alerts/\(alerts["boris"]!)/seen"
                        #expect(try await browser.post(other, ["csrf": csrf, "note": "seen"]).status == .notFound)
                        let own = try await browser.post("/console/studies/alpha/alerts/\(alerts["adele"]!)/seen", ["csrf": csrf, "note": "called her"])
                        #expect(own.status == .seeOther)
                    case .assignSite:
                        let moved = try await browser.post(path, ["csrf": csrf, "participant": bo, "site": "ulm"])
                        #expect(moved.headers[.location]?.hasSuffix("notice=siteNoParticipant") == true)
                    case .submitPreview:
                        continue
                    default:
                        #expect(page.method == .get, "\(page.name): a site's form without its own check here")
                        let query = page == .export ? "?format=csv" : (page == .adherenceReport || page == .promptTable || page == .archive ? "?site=athens" : "")
                        let response = try await browser.get(path + query)
                        #expect(response.status == .ok, "\(path)")
                        #expect(!response.text.contains(bo), "\(path) names another site's participant")
                        if [.participants, .export, .adherenceReport, .alerts].contains(page) {
                            #expect(response.text.contains(ada), "\(path) leaves out the member's own site")
                        }
                    }
                }
                #expect(try await store.studyAlerts(studyId: "alpha").first { $0.id == alerts["boris"] }?.seenAt == nil)
                // An export kept to a site holds its participants' rows, each with the site.
                let kept = try await StudyExports(administration: StudyAdministration(store: store, actor: .operator, now: fixture.clock.now()))
                    .answers(of: "alpha", format: .csv, filter: ExportFilter(site: "athens"),
                             into: FileManager.default.temporaryDirectory.appendingPathComponent("uniti-site-\(UUID().uuidString)"))
                let athens = try String(contentsOf: kept.files[0], encoding: .utf8).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(athens.joined().contains(bo) && !athens.joined().contains(ada) && athens[0].hasSuffix(",site,arm"))
                #expect(athens.count > 1 && athens.dropFirst().allSatisfy { $0.hasSuffix(",athens,") }, "the site, and no arm before randomising")

                // Randomised by the site's editor: the site is the stratum's level.
                let randomised = try await browser.post(ConsolePage.randomise.uri(study: "alpha", participant: ada), ["csrf": csrf])
                #expect(randomised.headers[.location]?.hasSuffix("notice=randomised") == true)
                #expect(try await store.allocations(studyId: "alpha").map(\.allocation.stratum) == ["centre=ulm"])

                // The owner sees both sites and keeps a download to one by choice.
                let owning = PortalBrowser(client)
                try await fixture.signIn(owning, owner)
                let list = try await owning.get(ConsolePage.participants.uri(study: "alpha")).text
                #expect(list.contains(ada) && list.contains(bo))
                let prompts = try await owning.get(ConsolePage.adherenceReport.uri(study: "alpha") + "?site=ulm")
                #expect(prompts.status == .ok && !prompts.text.contains(bo))
                #expect(try await owning.get(ConsolePage.export.uri(study: "alpha") + "?format=csv&site=nowhere").status == .unprocessableContent)
                let tab = try await owning.get(ConsolePage.trial.uri(study: "alpha")).text
                #expect(tab.contains("id=\"sites\"") && tab.contains("<th scope=\"row\">Athens (athens)</th>") && tab.contains("consort.svg?site=ulm"), "\(tab)")
                #expect(try await owning.get(ConsolePage.consortSVG.uri(study: "alpha") + "?site=ulm").text.contains("CONSORT flow of the study alpha, site ulm"))
            }
        }
    }

    @Test("the command line: sites add, assign, hold (the console's rules), export, prompt table and adherence kept to a site with its column, and the CONSORT flow counted per site")
    func commandLine() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            let database = ["--database", server.databasePath]
            try await runServerCommand(["study", "create", "alpha", "--title", "Alpha", "--access", "public", "--modules", "tyt"] + database)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("alpha-daily-\(UUID().uuidString).json")
            try Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await runServerCommand(["questionnaire", "import", file.path, "--study", "alpha", "--module", "tyt"] + database)
            try await runServerCommand(["sites", "add", "--study", "alpha", "--site", "ulm", "--name", "Ulm", "--country", "DE", "--language", "de"] + database)
            try await runServerCommand(["sites", "add", "--study", "alpha", "--site", "athens", "--name", "Athens", "--country", "GR", "--language", "el"] + database)
            await #expect(throws: (any Error).self, "a country that is no code") {
                try await runServerCommand(["sites", "add", "--study", "alpha", "--site", "x", "--name", "X", "--country", "Greece", "--language", "el"] + database)
            }
            let store = server.store
            #expect(try await store.sites(studyId: "alpha").map(\.id) == ["ulm", "athens"])
            let tokens = [try await fixture.participant(client, "adele", joining: "alpha", site: "ulm"),
                          try await fixture.participant(client, "boris", joining: "alpha", site: nil)]
            for token in tokens {
                #expect(try await client.json(.post, "/api/v1/sheets", token: token,
                                              body: AnswerSheetBatch(sheets: [sheet(questionnaire: "alpha-daily")])).status == .ok)
            }
            let ada = try #require(try await store.user(login: "adele")).pseudonym, bo = try #require(try await store.user(login: "boris")).pseudonym
            try await runServerCommand(["sites", "assign", "--study", "alpha", "--participant", bo, "--site", "athens"] + database)
            #expect(try await store.studyParticipants(studyId: "alpha", pseudonym: bo).first?.site == "athens")
            #expect(try await store.studyParticipants(studyId: "alpha", pseudonym: ada).first?.site == "ulm")
            await #expect(throws: (any Error).self, "--site or --none") {
                try await runServerCommand(["sites", "assign", "--study", "alpha", "--participant", bo] + database)
            }
            let editor = try await fixture.enrolledStaff("ed")
            try await fixture.role(.editor, editor, "alpha")
            try await runServerCommand(["sites", "hold", "--study", "alpha", "--email", editor.email, "--site", "athens"] + database)
            #expect(try await store.staffSite(staffId: editor.id, studyId: "alpha") == "athens")
            try await runServerCommand(["sites", "hold", "--study", "alpha", "--email", editor.email, "--none"] + database)
            #expect(try await store.staffSite(staffId: editor.id, studyId: "alpha") == nil)

            let out = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-sites-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: out) }
            try await runServerCommand(["export", "--study", "alpha", "--out", out.path, "--site", "ulm", "--prompts"] + database)
            let answers = try String(contentsOf: out.appendingPathComponent(ExportFileNames.answers(study: "alpha")), encoding: .utf8)
            let lines = answers.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines[0].hasSuffix(",initiated_by,language,site,arm") && lines.count > 1)
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(ada + ",") && $0.hasSuffix(",ulm,") }, "\(answers)")
            let prompts = try String(contentsOf: out.appendingPathComponent(ExportFileNames.prompts(study: "alpha")), encoding: .utf8)
            #expect(prompts.hasPrefix(PromptTable.header.joined(separator: ",")) && PromptTable.header.last == "site" && !prompts.contains(bo))
            let audit = try #require(try await store.auditTrail(studyId: "alpha").last { $0.action == "export" && $0.detail["format"] == .string("csv") })
            #expect(audit.detail["filters"] == .object(["site": .string("ulm")]))
            await #expect(throws: (any Error).self, "an unknown site") {
                try await runServerCommand(["export", "--study", "alpha", "--out", out.path, "--site", "nowhere"] + database)
            }
            let exports = StudyExports(administration: StudyAdministration(store: store, actor: .operator, now: fixture.clock.now()))
            let reported = Mutex<[AdherenceReport.Line]>([])
            try await exports.adherence(of: "alpha", from: nil, to: nil, site: "athens", flags: AdherenceReport.console, form: "csv") { line in
                reported.withLock { $0.append(line) }
            }
            #expect(reported.withLock { $0.map(\.participant) } == [bo] && reported.withLock { $0.first?.site } == "athens")
            #expect(AdherenceReport.header.last == "site")

            // The CONSORT flow per site: each counts its own participants, the study all of them.
            try await runServerCommand(["randomisation", "setup", "--study", "alpha", "--design", try Self.designFile().path] + database)
            let trials = TrialService(administration: StudyAdministration(store: store, actor: .operator, now: fixture.clock.now()))
            for pseudonym in [ada, bo] { _ = try await trials.randomise(studyId: "alpha", pseudonym: pseudonym, entered: [:]) }
            let strata = Set(try await store.allocations(studyId: "alpha").map(\.allocation.stratum))
            #expect(strata == ["centre=ulm", "centre=athens"])
            let whole = try await trials.flow(studyId: "alpha", blinded: false, now: fixture.clock.now())
            let ulm = try await trials.flow(studyId: "alpha", blinded: false, site: "ulm", now: fixture.clock.now())
            #expect(whole.assessed == 2 && whole.randomised == 2 && ulm.assessed == 1 && ulm.randomised == 1 && ulm.site == "ulm")
            #expect(ConsortDiagram.svg(ulm, language: "en").contains("CONSORT flow of the study alpha, site ulm"))
            // The allocation list and the visits report carry the site too.
            let list = try await trials.allocationList(studyId: "alpha", blinded: false).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(list[0].hasSuffix(",centre,site") && list.dropFirst().allSatisfy { $0.hasSuffix(",ulm,ulm") || $0.hasSuffix(",athens,athens") }, "\(list)")
        }
    }

    /// ``design`` in a temporary file, for `randomisation setup`.
    static func designFile() throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("site-design-\(UUID().uuidString).json")
        try Data(design.utf8).write(to: file)
        return file
    }

    @Test("an alert about a participant is mailed to the study-wide members the rule names and to those held to the participant's site, never to another site's")
    func alertMailsKeepToTheSite() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            let store = fixture.store, start = fixture.clock.now()
            let sites = try await Self.study(fixture)
            var loud = AlertRule(name: "Loud", kind: .safety, roles: [.owner, .editor], reviewed: false)
            (loud.questionnaireId, loud.item, loud.comparison, loud.threshold) = ("alpha-daily", "loudness", .atLeast, 80)
            _ = try await store.addAlertRule(studyId: "alpha", loud, actor: .operator, now: start)
            let owner = try await fixture.enrolledStaff("olga"), ulm = try await fixture.enrolledStaff("ulrike"), athens = try await fixture.enrolledStaff("eleni")
            let everywhere = try await fixture.enrolledStaff("wanda")
            try await fixture.role(.owner, owner, "alpha")
            for editor in [ulm, athens, everywhere] { try await fixture.role(.editor, editor, "alpha") }
            _ = try await sites.hold(email: ulm.email, at: "ulm", studyId: "alpha")
            _ = try await sites.hold(email: athens.email, at: "athens", studyId: "alpha")
            let person = try await store.createUser(username: "athina", email: "athina@example.org", passwordHash: "h", language: "en",
                                                    pseudonym: "p-athina-0001", now: start)
            try await store.setMembership(studyId: "alpha", userId: person, status: .member, now: start)
            _ = try await store.setMemberSite("athens", userId: person, pseudonym: "p-athina-0001", studyId: "alpha", actor: .operator, now: start)
            _ = try await store.storeSheets(userId: person, sheets: [ValidatedSheet(sheet: sheet(loudness: 90, questionnaire: "alpha-daily"), studyId: "alpha")],
                                            receivedAt: start)
            fixture.clock.advance(by: 10)
            try await AlertMonitor(environment: fixture.environment).check(conditions: false)
            let mailed = try #require(try await store.auditTrail(studyId: "alpha").last { $0.action == "alert.mail" })
            let to = Set((mailed.detail["to"]?.arrayItems ?? []).compactMap { item -> Int64? in
                if case .number(let id) = item { return Int64(id) } else { return nil }
            })
            #expect(to == [owner.id, athens.id, everywhere.id], "mailed to \(to)")
        }
    }

    @Test("in the console: an editor puts someone of no site at one from the participants page; moving them is refused to the editor on the participant's page and done by an owner there")
    func placingAndMovingInTheConsole() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                _ = try await Self.study(fixture)
                _ = try await fixture.participant(client, "petra", joining: "alpha", site: nil)
                let pseudonym = try #require(try await fixture.store.user(login: "petra")).pseudonym
                let owner = try await fixture.enrolledStaff("olga"), editor = try await fixture.enrolledStaff("ed")
                try await fixture.role(.owner, owner, "alpha")
                try await fixture.role(.editor, editor, "alpha")
                let editing = PortalBrowser(client), owning = PortalBrowser(client)
                try await fixture.signIn(editing, editor)
                try await fixture.signIn(owning, owner)
                let list = ConsolePage.participants.uri(study: "alpha"), page = ConsolePage.participant.uri(study: "alpha", participant: pseudonym)
                #expect(try await editing.get(list).text.contains("id=\"assign-submit\""))
                let placed = try await editing.submit(list, to: ConsolePage.assignSite.uri(study: "alpha"), ["participant": pseudonym, "site": "ulm"])
                #expect(placed.headers[.location] == list + "?notice=siteAssigned")
                #expect(try await editing.get(page).text.contains("<dd id=\"site\">ulm</dd>"))
                #expect(!(try await editing.get(page)).text.contains("id=\"move-site\""), "an editor is offered no move")
                let refused = try await editing.submit(list, to: ConsolePage.assignSite.uri(study: "alpha"),
                                                       ["participant": pseudonym, "site": "athens", "back": "participant"])
                #expect(refused.headers[.location] == page + "?notice=siteMoveOwner")
                #expect(try await owning.get(page).text.contains("id=\"move-site\""))
                let moved = try await owning.submit(page, to: ConsolePage.assignSite.uri(study: "alpha"),
                                                    ["participant": pseudonym, "site": "athens", "back": "participant"])
                #expect(moved.headers[.location] == page + "?notice=siteAssigned")
                #expect(try await owning.get(page + "?notice=siteAssigned").text.contains("The participant is at the site now."))
                #expect(try await fixture.store.studyParticipants(studyId: "alpha", pseudonym: pseudonym).first?.site == "athens")
                #expect(try await fixture.store.auditTrail(studyId: "alpha").suffix(2).map(\.action) == ["site.assign", "site.move"])

                // A site's editor: their form has no choice of site (their own); another site
                // posted is refused, not quietly replaced by theirs.
                _ = try await fixture.participant(client, "quentin", joining: "alpha", site: nil)
                let quentin = try #require(try await fixture.store.user(login: "quentin")).pseudonym
                let held = try await fixture.enrolledStaff("una")
                try await fixture.role(.editor, held, "alpha")
                #expect(try await Self.study(fixture: fixture).hold(email: held.email, at: "ulm", studyId: "alpha"))
                let holding = PortalBrowser(client)
                try await fixture.signIn(holding, held)
                let other = try await holding.submit(list, to: ConsolePage.assignSite.uri(study: "alpha"), ["participant": quentin, "site": "athens"])
                #expect(other.headers[.location] == list + "?notice=siteOther")
                let own = try await holding.submit(list, to: ConsolePage.assignSite.uri(study: "alpha"), ["participant": quentin])
                #expect(own.headers[.location] == list + "?notice=siteAssigned")
                #expect(try await fixture.store.studyParticipants(studyId: "alpha", pseudonym: quentin).first?.site == "ulm")
                // The visits report keeps to a site as every report does, refusing an unknown one.
                let trials = TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                #expect(await Self.refusal { _ = try await trials.visits(studyId: "alpha", site: "nowhere", now: fixture.clock.now()) } == "unknown_site")
            }
        }
    }

    /// The study's sites, without making the study again.
    static func study(fixture: ConsoleFixture) -> StudySites {
        StudySites(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
    }
}

