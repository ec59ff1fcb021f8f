import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48: the console's trial tab (design, allocations, CONSORT), and blinding a member to
/// allocation: an owner's act, unblinding after a confirmation, both audited; blinded, every
/// place the console shows or exports an arm shows its code.
@Suite("Console: the trial tab, and blinded members seeing codes", .timeLimit(.minutes(10)))
struct ConsoleTrialOverviewTests {
    @Test("the tab shows design, allocation counts and the CONSORT flow; an owner blinds an editor, who then sees only codes on every page and download, and unblinds them after confirming; a viewer never downloads the list", arguments: StoreKind.allCases)
    func blinding(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await fixture.trialStudy(design: TrialStoreTests.design)
                let token = try await fixture.participant(client, "ada", joining: "trial")
                #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: 80)])).status == .ok)
                let pseudonym = try #require(try await fixture.store.user(login: "ada")).pseudonym
                let owner = try await fixture.enrolledStaff("ow"), editor = try await fixture.enrolledStaff("ed"), viewer = try await fixture.enrolledStaff("vi")
                try await fixture.role(.owner, owner, "trial")
                try await fixture.role(.editor, editor, "trial")
                try await fixture.role(.viewer, viewer, "trial")
                _ = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                    .randomise(studyId: "trial", pseudonym: pseudonym, entered: ["hearing": "aid"])
                let arm = try #require(try await fixture.store.allocations(studyId: "trial").first).allocation.arm
                let label = arm == "sound" ? "Sound therapy" : "Counselling"
                let stored = try #require(try await fixture.store.trial(studyId: "trial"))
                let code = try #require(ArmNames(trial: stored, blinded: true).codes[arm])

                let editing = PortalBrowser(client)
                try await fixture.signIn(editing, editor)
                let trialPage = ConsolePage.trial.uri(study: "trial"), participantPage = ConsolePage.participant.uri(study: "trial", participant: pseudonym)
                let shown = try await editing.get(trialPage)
                #expect(shown.status == .ok && shown.text.contains("href=\"/console/studies/trial/trial\"") && shown.text.contains("Sound therapy (sound)")
                        && shown.text.contains("Permuted blocks of random size") && shown.text.contains("<th scope=\"row\">loudness=loud|hearing=aid</th>")
                        && shown.text.contains("Assessed for eligibility (n = 1)") && shown.text.contains("Randomised (n = 1)")
                        && shown.text.contains("id=\"allocation-list\"") && !shown.text.contains("id=\"blinded\""), "\(shown.text)")
                let list = try await editing.get(ConsolePage.allocationList.uri(study: "trial"))
                #expect(list.status == .ok && list.text.contains(",\(pseudonym),loudness=loud|hearing=aid,\(arm),") && list.text.hasPrefix("sequence,participant,stratum,arm,allocated_utc,loudness,hearing"))

                // A viewer reads the tab but never downloads the list.
                let viewing = PortalBrowser(client)
                try await fixture.signIn(viewing, viewer)
                #expect(try await viewing.get(trialPage).text.contains("Randomised (n = 1)"))
                #expect(!(try await viewing.get(trialPage)).text.contains("id=\"allocation-list\""))
                #expect(try await viewing.get(ConsolePage.allocationList.uri(study: "trial")).status == .forbidden)
                // Only an owner blinds.
                #expect(try await editing.submit(ConsolePage.team.uri(study: "trial"), to: "/console/studies/trial/team/blind", ["email": viewer.email]).status == .forbidden)

                // The owner blinds the editor.
                let owning = PortalBrowser(client)
                try await fixture.signIn(owning, owner)
                let team = ConsolePage.team.uri(study: "trial")
                let blinded = try await owning.submit(team, to: team + "/blind", ["email": editor.email])
                #expect(blinded.status == .seeOther && blinded.headers[.location]?.hasSuffix("?notice=memberBlinded") == true)
                #expect(try await owning.get(team).text.contains("id=\"unblind-\(editor.id)\""))
                #expect(try await fixture.store.isBlinded(staffId: editor.id, studyId: "trial"))

                // Blinded, the editor meets the code everywhere, the arm's name and label nowhere.
                let answers = ConsolePage.export.uri(study: "trial") + "?format=csv", wide = ConsolePage.export.uri(study: "trial") + "?format=wide&questionnaire=daily"
                let places = [trialPage, participantPage, ConsolePage.allocationList.uri(study: "trial"), ConsolePage.consortJSON.uri(study: "trial"),
                              ConsolePage.consortSVG.uri(study: "trial"), answers, wide]
                for place in places {
                    let text = try await editing.get(place).text
                    #expect(!text.contains(label) && !text.contains("(\(arm))") && !text.contains(",\(arm),") && !text.contains("\"\(arm)\""), "\(place): \(text)")
                }
                #expect(try await editing.get(trialPage).text.contains("id=\"blinded\""))
                #expect(try await editing.get(participantPage).text.contains("arm \(code)."))
                // The answers' exports carry the code in their last column (the arm's id to the unblinded).
                let blindRows = try await editing.get(answers).text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(blindRows[0].hasSuffix(",site,arm") && blindRows.count > 1 && blindRows.dropFirst().allSatisfy { $0.hasSuffix(",\(code)") })
                #expect(try await owning.get(answers).text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.dropFirst().allSatisfy { $0.hasSuffix(",\(arm)") })
                #expect(try await editing.get(ConsolePage.allocationList.uri(study: "trial")).text.contains(",\(pseudonym),loudness=loud|hearing=aid,\(code),"))
                let flow = try JSONDecoder().decode(TrialFlow.self, from: Data(try await editing.get(ConsolePage.consortJSON.uri(study: "trial")).text.utf8))
                #expect(flow.blinded && flow.arms.map(\.arm).sorted() == ["A", "B"] && flow.arms.first { $0.arm == code }?.allocated == 1)

                // Unblinding asks first, then is done and audited.
                let asked = try await owning.submit(team, to: team + "/unblind", ["email": editor.email])
                #expect(asked.status == .ok && asked.text.contains("Unblind ed?") && asked.text.contains("id=\"confirm\""))
                #expect(try await fixture.store.isBlinded(staffId: editor.id, studyId: "trial"))
                let unblinded = try await owning.submit(team, to: team + "/unblind", ["email": editor.email, "confirm": "yes"])
                #expect(unblinded.headers[.location]?.hasSuffix("?notice=memberUnblinded") == true)
                #expect(try await editing.get(trialPage).text.contains("\(label) (\(arm))"))
                let actions = try await fixture.store.auditTrail(studyId: "trial").map(\.action)
                #expect(actions.filter { $0 == "trial.blind" }.count == 1 && actions.filter { $0 == "trial.unblind" }.count == 1
                        && actions.filter { $0 == "export.allocations" }.count == 3)
            }
        }
    }

    @Test("the statistician alone downloads the design and seed (not an owner, editor or administrator), audited; the file verifies every allocation; they download the data, a viewer does not")
    func statisticianSeed() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await fixture.trialStudy(design: TrialStoreTests.design)
            let token = try await fixture.participant(client, "adele", joining: "trial")
            #expect(try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: 80)])).status == .ok)
            let pseudonym = try #require(try await fixture.store.user(login: "adele")).pseudonym
            _ = try await TrialService(administration: StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now()))
                .randomise(studyId: "trial", pseudonym: pseudonym, entered: ["hearing": "aid"])
            let statistician = try await fixture.enrolledStaff("stat"), owner = try await fixture.enrolledStaff("ow")
            let admin = try await fixture.enrolledStaff("root", admin: true), viewer = try await fixture.enrolledStaff("vi")
            try await fixture.role(.statistician, statistician, "trial")
            try await fixture.role(.owner, owner, "trial")
            try await fixture.role(.viewer, viewer, "trial")
            let seed = ConsolePage.seedFile.uri(study: "trial"), trialPage = ConsolePage.trial.uri(study: "trial")
            for login in [owner, admin, viewer] {
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, login)
                #expect(try await browser.get(seed).status == .forbidden, "\(login.email)")
                #expect(!(try await browser.get(trialPage)).text.contains("id=\"seed-file\""))
            }
            let viewing = PortalBrowser(client)
            try await fixture.signIn(viewing, viewer)
            #expect(try await viewing.get(ConsolePage.export.uri(study: "trial") + "?format=csv").status == .forbidden)

            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, statistician)
            #expect(try await browser.get(trialPage).text.contains("id=\"seed-file\""))
            #expect(try await browser.get(ConsolePage.export.uri(study: "trial") + "?format=csv").text.contains(pseudonym))
            #expect(try await browser.get(ConsolePage.allocationList.uri(study: "trial")).status == .ok)
            #expect(try await browser.get(ConsolePage.settings.uri(study: "trial")).status == .forbidden, "a statistician changes nothing")
            let downloaded = try await browser.get(seed)
            #expect(downloaded.status == .ok && downloaded.headers[.contentDisposition]?.contains("trial-seed.json") == true)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("trial-seed-\(UUID().uuidString).json")
            try Data(downloaded.text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await runServerCommand(["randomisation", "verify", "--study", "trial", "--seed-file", file.path, "--database", server.databasePath])
            let line = try #require(try await fixture.store.auditTrail(studyId: "trial").last { $0.action == "trial.seed" })
            #expect(line.actor == .staff(statistician.id))
        }
    }

    @Test("a study that is not randomised says how to set one up; its trial downloads are not found")
    func notRandomised() async throws {
        try await StoreKind.sqlite.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                try await fixture.study("plain")
                let member = try await fixture.enrolledStaff("ed")
                try await fixture.role(.editor, member, "plain")
                let browser = PortalBrowser(client)
                try await fixture.signIn(browser, member)
                let page = try await browser.get(ConsolePage.trial.uri(study: "plain"))
                #expect(page.status == .ok && page.text.contains("id=\"not-randomised\"") && page.text.contains("randomisation setup"))
                #expect(try await browser.get(ConsolePage.consortSVG.uri(study: "plain")).status == .notFound)
                #expect(try await browser.get(ConsolePage.allocationList.uri(study: "plain")).status == .notFound)
            }
        }
    }
}
