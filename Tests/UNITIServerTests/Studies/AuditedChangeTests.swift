import Foundation
import Testing
import UNITITesting
import UNITIProtocol
@testable import UNITIServer

/// Issue 31: "Nothing changes a study's set-up or data without leaving a line there." Every change
/// of ``StudyAdministration`` and its audit line commit in one transaction, on both stores.
@Suite("Audited changes: a change and its audit line commit together (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct AuditedChangeTests {
    let now = TestTime.now

    /// Makes every insert into `audit_log` fail, as a full disk or a broken connection between
    /// the change and its line would: a trigger written in each engine's own language.
    func refuseAuditLines(_ store: ServerStore) async throws {
        if store.database.dialect == .sqlite {
            try await store.database.execute("""
                CREATE TRIGGER audit_refused BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit line refused by the test'); END
                """)
        } else {
            try await store.database.execute("""
                CREATE FUNCTION audit_refused() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'audit line refused by the test'; END $$
                """)
            try await store.database.execute("""
                CREATE TRIGGER audit_refused BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_refused()
                """)
        }
    }

    func acceptAuditLines(_ store: ServerStore) async throws {
        try await store.database.execute(store.database.dialect == .sqlite ? "DROP TRIGGER audit_refused"
                                                                          : "DROP TRIGGER audit_refused ON audit_log")
    }

    func auditLineCount(_ store: ServerStore) async throws -> Int {
        try await store.database.row("SELECT COUNT(*) AS n FROM audit_log")?["n"] ?? -1
    }

    @Test("an audit line that cannot be written undoes its change (every change StudyAdministration makes), and each change writes exactly one line",
          arguments: StoreKind.allCases)
    func changeAndLineAreOneTransaction(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            let admin = StudyAdministration(store: store, actor: .operator, now: now)
            // The state the changes start from, written without lines.
            let study = StudyRecord(id: "s2", title: LocalizedText(["en": "Before"]), access: .byRequest, modules: [.tys])
            try await store.createStudy(study, now: now)
            let daily = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "daily").utf8), studyId: "s2")
            let weekly = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "weekly").utf8), studyId: "s2")
            _ = try await store.addQuestionnaire(weekly, module: nil, now: now)
            let user = try await store.createUser(username: "pat", email: "pat@example.org", passwordHash: "h", language: "en",
                                                  pseudonym: "p-pat", now: now)
            try await store.setMembership(studyId: "s2", userId: user, status: .pending, now: now)
            let staffId = try await store.createStaff(name: "Ann", email: "ann@team.example.org", admin: false, now: now)
            let ann = try #require(try await store.staffMember(id: staffId))
            try await store.setStudyRole(staffId: staffId, studyId: "s2", role: .editor)
            // Another owner of s2, so that Ann may step down and be disabled (the last owner stays).
            try await store.setStudyRole(staffId: try await store.createStaff(name: "Bea", email: "bea@team.example.org", admin: false, now: now),
                                         studyId: "s2", role: .owner)
            _ = try await store.createStaffSession(staffId: staffId, tokenHash: "ann-session", now: now)
            let renamed = StudySettings(title: LocalizedText(["en": "After"]))
            var windowed = weekly.nextVersion()
            windowed.definition.completionWindowMinutes = 30
            let spool = FileManager.default.temporaryDirectory.appendingPathComponent("audited-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: spool) }
            let staff = StaffService(environment: ServerEnvironment(store: store, mailer: SpoolMailer(directory: spool),
                                                                    clock: ManualServerClock(now), passwords: PasswordHasher(cost: 4)))

            try await refuseAuditLines(store)
            await #expect(throws: (any Error).self) { try await admin.create("s1", StudySettings(title: LocalizedText(["en": "S1"]))) }
            #expect(try await store.study(id: "s1") == nil, "study.create")
            await #expect(throws: (any Error).self) { try await admin.update("s2", renamed) }
            #expect(try await store.study(id: "s2")?.title == study.title, "study.update")
            await #expect(throws: (any Error).self) { _ = try await admin.addQuestionnaire(daily, module: nil) }
            #expect(try await store.questionnaire(id: "daily", version: 1) == nil, "questionnaire.add")
            #expect(try await store.questionnaireLink(id: "daily") == nil, "questionnaire.add: the link too")
            await #expect(throws: (any Error).self) { _ = try await admin.setQuestionnaireActive(id: "weekly", studyId: "s2", active: false) }
            #expect(try await store.questionnaireLink(id: "weekly")?.deactivatedAt == nil, "questionnaire.deactivate")
            await #expect(throws: (any Error).self) { _ = try await admin.updateQuestionnaire(windowed, from: weekly) }
            #expect(try await store.questionnaire(id: "weekly", version: 2) == nil, "questionnaire.update")
            await #expect(throws: (any Error).self) { try await admin.decideJoinRequest(studyId: "s2", userId: user, status: .member) }
            #expect(try await store.membership(studyId: "s2", userId: user) == .pending, "joinRequest.approve")
            await #expect(throws: (any Error).self) { try await admin.setRole(.viewer, of: ann, in: "s2") }
            #expect(try await store.studyRole(staffId: staffId, studyId: "s2") == .editor, "team.set")
            await #expect(throws: (any Error).self) { _ = try await admin.removeRole(of: ann, in: "s2") }
            #expect(try await store.studyRole(staffId: staffId, studyId: "s2") == .editor, "team.remove")
            await #expect(throws: (any Error).self) { _ = try await admin.disable(ann) }
            #expect(try await store.studyRole(staffId: staffId, studyId: "s2") == .editor, "team.disable: the role")
            #expect(try await store.staffSession(tokenHash: "ann-session", idle: 1800, now: now) != nil, "team.disable: the session")
            // The staff accounts' own changes (StaffService), audited without a study.
            await #expect(throws: (any Error).self) { _ = try await staff.add(name: "Bo", email: "bo@team.example.org", admin: false, by: .operator) }
            #expect(try await store.staffMember(email: "bo@team.example.org") == nil, "staff.add")
            await #expect(throws: (any Error).self) { _ = try await staff.newEnrolmentLink(for: ann, by: .operator) }
            #expect(try await auditLineCount(store) == 0)

            try await acceptAuditLines(store)
            try await admin.create("s1", StudySettings(title: LocalizedText(["en": "S1"])))
            try await admin.update("s2", renamed)
            _ = try await admin.addQuestionnaire(daily, module: nil)
            _ = try await admin.addQuestionnaire(daily, module: nil)  // the same version again: no change, no line
            _ = try await admin.setQuestionnaireActive(id: "weekly", studyId: "s2", active: false)
            _ = try await admin.setQuestionnaireActive(id: "weekly", studyId: "s2", active: false)  // already deactivated: no line
            try await admin.decideJoinRequest(studyId: "s2", userId: user, status: .member)
            try await admin.setRole(.viewer, of: ann, in: "s2")
            #expect(try await admin.removeRole(of: ann, in: "s2"))
            #expect(try await admin.removeRole(of: ann, in: "s2") == false)  // had none: no line
            try await admin.setRole(.owner, of: ann, in: "s2")
            try await admin.setRole(.viewer, of: ann, in: "s1")
            #expect(try await admin.disable(ann) == ["s1", "s2"])
            #expect(try await admin.updateQuestionnaire(windowed, from: weekly)?.versionAdded == true)
            #expect(try await admin.updateQuestionnaire(windowed, from: windowed) == nil)  // nothing changed: no version, no line
            let bo = try await staff.add(name: "Bo", email: "bo@team.example.org", admin: false, by: .operator)
            _ = try await staff.newEnrolmentLink(for: try #require(try await store.staffMember(id: bo.id)), by: .operator)

            #expect(try await store.auditTrail(studyId: "s1").map(\.action) == ["study.create", "team.set", "team.disable"])
            #expect(try await store.auditTrail(studyId: "s2").map(\.action) == [
                "study.update", "questionnaire.add", "questionnaire.deactivate", "joinRequest.approve",
                "team.set", "team.remove", "team.set", "team.disable", "questionnaire.update",
            ])
            #expect(try await auditLineCount(store) == 15, "the two studies' trails and the three staff lines (added, link, disabled), no other")
            #expect(try await store.study(id: "s2")?.title == LocalizedText(["en": "After"]))
            #expect(try await store.staffSession(tokenHash: "ann-session", idle: 1800, now: now) == nil)
        }
    }
}
