import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

/// Issue 44: the audit trail says what changed, from what to what; participants' study events are
/// lines too; the staff accounts' own lines reach an administrator.
@Suite("Audit trail: old and new values, participants' events, the account-wide trail (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct AuditTrailTests {
    @Test("a settings change names each field with its old and new value, a consent by its version, a password only as changed; a questionnaire's settings likewise",
          arguments: StoreKind.allCases)
    func oldAndNewValues(_ kind: StoreKind) async throws {
        try await kind.withDoors { doors, _, owner, editor in
            let settings = "/console/studies/alpha/settings"
            let saved = try await owner.submit(settings, to: settings, ["titleEn": "Alpha", "access": "password", "password": "a long secret",
                                                                        "module-tyt": "on", "module-son": "on", "running": "on"])
            #expect(saved.status == .seeOther)
            let line = try #require(try await doors.fixture.store.auditTrail(studyId: "alpha").last)
            #expect(line.action == "study.update")
            let changes = try #require(line.detail["changes"])
            #expect(changes["title"] == .object(["from": .object(["en": .string("Study alpha")]), "to": .object(["en": .string("Alpha")])]))
            #expect(changes["access"] == .object(["from": .string("byRequest"), "to": .string("password")]))
            #expect(changes["modules"] == .object(["from": .array([.string("tyt")]), "to": .array([.string("son"), .string("tyt")])]))
            #expect(changes["password"] == .object(["changed": .bool(true)]))
            let text = try JSONCoding.string(line.detail)
            #expect(!text.contains("a long secret") && !text.contains("$2"), "neither the password nor its hash")

            #expect(await doors.command(["study", "update", "alpha", "--consent", "You agree."]) == nil)
            #expect(await doors.command(["study", "update", "alpha", "--consent", "You agree, again."]) == nil)
            let consents = try await doors.fixture.store.auditTrail(studyId: "alpha").suffix(2).map { $0.detail["changes"]?["consent"] }
            #expect(consents == [.object(["from": .null, "to": .number(1)]), .object(["from": .number(1), "to": .number(2)])], "versions, not texts")

            _ = try await StudyAdministration(store: doors.fixture.store, actor: .operator, now: doors.fixture.clock.now())
                .importQuestionnaire(Data(dailyQuestionnaireJSON(id: "alpha-daily").utf8), into: "alpha", module: nil)
            let path = "/console/studies/alpha/questionnaires/alpha-daily/settings"
            #expect(try await editor.submit(path, to: path, ["frequency": "daily", "timing": "between", "start": "2027-01-01", "end": "2027-02-01",
                                                            "every": "1", "amount": "2", "completionWindow": "30", "message-en": "Thanks."]).status == .seeOther)
            let updated = try #require(try await doors.fixture.store.auditTrail(studyId: "alpha").last)
            #expect(updated.action == "questionnaire.update")
            #expect(updated.detail["changes"]?["completionWindowMinutes"] == .object(["from": .null, "to": .number(30)]))
            #expect(updated.detail["changes"]?["schedule"]?["from"] == .null && updated.detail["changes"]?["schedule"]?["to"]?["amount"] == .number(2))
            let role = try await doors.fixture.store.auditTrail(studyId: "alpha").first { $0.action == "team.set" }
            #expect(role?.detail["changes"] == .object(["role": .object(["from": .null, "to": .string("owner")])]))
        }
    }

    @Test("a participant's study events are lines of the study's trail by pseudonym only: joined with the consent version, agreed to a new one, left with or without the answers, deleted the account",
          arguments: StoreKind.allCases)
    func participantEvents(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let fixture = ConsoleFixture(store: opened.store)
            try await fixture.run { client in
                let administration = StudyAdministration(store: fixture.store, actor: .operator, now: fixture.clock.now())
                for id in ["open", "other"] {
                    try await administration.create(id, StudySettings(title: LocalizedText(["en": id]), consent: LocalizedText(["en": "Agree?"]),
                                                                      access: .public, modules: ["tyt"]))
                }
                let token = try await fixture.participant(client, "pat", joining: "open")
                let pat = try #require(try await fixture.store.user(login: "pat"))
                try await administration.update("open", StudySettings(consent: LocalizedText(["en": "Agree again?"])))
                #expect(try await client.json(.post, "/api/v1/studies/open/consent", token: token, body: ConsentRequest(version: 2)).status == .ok)
                #expect(try await client.json(.post, "/api/v1/studies/open/leave", token: token, body: LeaveStudyRequest(deleteAnswers: true)).status == .ok)
                _ = try await fixture.participant(client, "quin", joining: "other")
                let quinToken = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "quin", password: "correct horse"))
                    .decode(SessionTokens.self).accessToken
                #expect(try await client.json(.post, "/api/v1/studies/other/leave", token: quinToken, body: LeaveStudyRequest(deleteAnswers: false)).status == .ok)
                let quin = try #require(try await fixture.store.user(login: "quin"))
                let deleted = try await client.json(.post, "/api/v1/account/delete", token: quinToken, body: AccountDeletionRequest(password: "correct horse"))
                #expect(deleted.status == .noContent || deleted.status == .ok, "\(deleted.text)")

                let open = try await fixture.store.auditTrail(studyId: "open").filter { $0.action.hasPrefix("participant.") }
                #expect(open.map(\.action) == ["participant.join", "participant.consent", "participant.leave"])
                #expect(open.allSatisfy { $0.actor == .participant(pat.pseudonym) && $0.actorText == "participant \(pat.pseudonym)" })
                #expect(open[0].detail["consentVersion"] == .number(1))
                #expect(open[1].detail["changes"] == .object(["consentVersion": .object(["from": .number(1), "to": .number(2)])]))
                #expect(open[2].detail["answers"] == .string("deleted"))
                let other = try await fixture.store.auditTrail(studyId: "other").filter { $0.action.hasPrefix("participant.") }
                #expect(other.map(\.action) == ["participant.join", "participant.leave", "participant.deleteAccount"])
                #expect(other[1].detail["answers"] == .string("kept"))
                #expect(other[2].actor == .participant(quin.pseudonym) && other[2].detail == .object([:]), "the pseudonym only")
                let all = try JSONCoding.string(try await fixture.store.auditTrail())
                #expect(!all.contains("quin@example.org") && !all.contains("\"quin\""), "never a name or an address")
            }
        }
    }

    @Test("staff accounts' own lines (added, enrolled, a recovery code used) are on the account-wide trail an administrator reads in the console and with `audit`; others are refused")
    func accountWideTrail() async throws {
        let server = try TestServer()
        let fixture = ConsoleFixture(server: server)
        try await fixture.run { client in
            try await fixture.study("alpha")
            let admin = try await fixture.enrolledStaff("ada", admin: true)
            let owner = try await fixture.enrolledStaff("olga")
            try await fixture.role(.owner, owner, "alpha")
            let browser = PortalBrowser(client)
            try await fixture.signIn(browser, admin)
            let page = try await browser.get("/console/audit")
            #expect(page.status == .ok)
            for action in ["staff.add", "staff.enrol", "study.create", "team.set"] { #expect(page.text.contains("<td>\(action)</td>"), "\(action)") }
            #expect(page.text.contains(#"id="nav-audit""#))
            let owning = PortalBrowser(client)
            try await fixture.signIn(owning, owner)
            #expect(try await owning.get("/console/audit").status == .forbidden)
            #expect(!(try await owning.get("/console").text.contains(#"id="nav-audit""#)))
            try await runServerCommand(["audit", "--database", server.databasePath])
            let (status, output) = try ServerBinaryTests.runCommand(["audit", "--database", server.databasePath])
            #expect(status == 0 && output.contains("staff.enrol") && output.contains("STUDY"), "\(output)")
        }
    }
}
