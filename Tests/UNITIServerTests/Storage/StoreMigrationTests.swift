import Foundation
import GRDB
import Testing
import UNITIProtocol
@testable import TrackYourHearingServer
@testable import UNITIServer

@Suite("Store migrations", .timeLimit(.minutes(10)))
struct StoreMigrationTests {
    @Test("the migration steps keep their identifiers and order, so existing server databases open unchanged")
    func identifiersAndOrder() {
        #expect(SQLiteMigrations.migrator(modules: .none).migrations == [
            "v1-accounts", "v1-studies", "v1-sheets", "v1-module-records", "v2-module-resources", "v3-answer-sheets-by-user",
            "v4-memberships-joined-at", "v4-questionnaire-links", "v5-study-rewards", "v5-sheet-reward-times", "v6-server-secrets",
            "v6-study-password-failures", "v7-login-failures", "v8-comparison-sums", "v9-comparison-running",
            "v10-comparison-snapshots", "v11-session-refresh-grace", "v12-throttle-counts", "v12-mail-tokens-cancelled",
            "v12-study-password-minimum", "v13-comparison-in-proportion", "v14-consent-versions", "v15-prompt-events",
            "v16-staff-console", "v17-erasure-marks", "v18-audit-participants", "v18-study-invitations",
            "v19-study-module-switches", "v20-alerts", "v21-tallies", "v22-trials", "v23-trial-blinding", "v24-sites", "v25-screening", "v26-languages",
        ])
    }

    /// A database migrated up to `step` and filled by `fill` as a server of that time left it, then
    /// opened by the store (which runs the later steps), in a temporary directory removed afterwards.
    private func upgraded(from step: String, fill: @escaping @Sendable (Database) throws -> Void,
                          check: (ServerStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-server-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteMigrations.migrator(modules: serverModuleParts).migrate(queue, upTo: step)
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, username, email, password_hash, activated, pseudonym, created_at)
                        VALUES (1, 'old', 'old@example.org', 'x', 1, 'p-old', 0);
                    INSERT INTO studies (id, title, running, access, participants_may_leave, modules, created_at, updated_at)
                        VALUES ('pilot', '{"en":"Pilot"}', 1, 'public', 1, '[]', 0, 0);
                    """)
                try fill(db)
            }
        }
        try await check(try ServerStore(sqlitePath: path, modules: serverModuleParts))
    }

    @Test("v4 gives questionnaires stored before it their default module in first-import order, and members the time they last became one")
    func v4FillsLinksAndJoinTimes() async throws {
        try await upgraded(from: "v3-answer-sheets-by-user", fill: { db in
            try db.execute(sql: """
                INSERT INTO studies (id, title, running, access, participants_may_leave, modules, created_at, updated_at)
                    VALUES ('later', '{"en":"Later"}', 1, 'byRequest', 1, '[]', 0, 0);
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at)
                    VALUES ('pilot', 1, 'member', 50, 100), ('later', 1, 'pending', 60, 60);
                """)
            // First imports: tyt-momentary (10), stress-daily (20), uniti-case-history (30); the ids sort otherwise.
            for (id, version, importedAt) in [("stress-daily", 1, 20.0), ("tyt-momentary", 2, 40.0), ("tyt-momentary", 1, 10.0),
                                              ("uniti-case-history", 1, 30.0)] {
                try db.execute(sql: "INSERT INTO questionnaires (id, version, study_id, definition, imported_at) VALUES (?, ?, 'pilot', ?, ?)",
                               arguments: [id, version, dailyQuestionnaireJSON(id: id, version: version), importedAt])
            }
        }, check: { store in
            let links = try await store.questionnaireLinks(studyId: "pilot")
            #expect(links.map(\.questionnaireId) == ["tyt-momentary", "stress-daily", "uniti-case-history"])
            #expect(links.map(\.module) == [.tyt, .tys, .shell])
            #expect(links.allSatisfy { $0.isActive })
            let listed = try await store.memberQuestionnaires(userId: 1)
            #expect(listed.map(\.link.questionnaireId) == ["tyt-momentary", "stress-daily", "uniti-case-history"])
            #expect(listed.map(\.version) == [2, 1, 1])
            #expect(Set(listed.map(\.joinedAt)) == [Date(timeIntervalSince1970: 100)])
        })
    }

    @Test("v14 makes a study's consent from before its version 1, agreed by nobody, so its members are asked at their next upload")
    func v14ConsentFromBefore() async throws {
        try await upgraded(from: "v13-comparison-in-proportion", fill: { db in
            try db.execute(sql: """
                UPDATE studies SET consent = '{"en":"Old consent."}', updated_at = 77 WHERE id = 'pilot';
                INSERT INTO studies (id, title, running, access, participants_may_leave, modules, created_at, updated_at)
                    VALUES ('plain', '{"en":"Plain"}', 1, 'public', 1, '[]', 0, 0);
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at)
                    VALUES ('pilot', 1, 'member', 50, 100, 100), ('plain', 1, 'member', 50, 100, 100);
                """)
        }, check: { store in
            let pilot = try await store.study(id: "pilot"), plain = try await store.study(id: "plain")
            #expect(pilot?.consentVersion == 1 && plain?.consentVersion == nil)
            let before = try await store.consentAgreements(userId: 1)
            #expect(before.isEmpty)
            let pilotAccess = try await store.sheetAccess(questionnaireId: "x", studyId: "pilot", userId: 1)
            let plainAccess = try await store.sheetAccess(questionnaireId: "x", studyId: "plain", userId: 1)
            #expect(pilotAccess.consentMissing == 1 && plainAccess.consentMissing == nil)
            let recorded = try await store.recordConsent(userId: 1, studyId: "pilot", version: 1, now: Date(timeIntervalSince1970: 200))
            let after = try await store.consentAgreements(userId: 1)
            #expect(recorded && after.first?.text == LocalizedText(["en": "Old consent."]))
        })
    }

    @Test("v5 gives existing sheets their finishing time and partial flag; rewards are off for existing studies and read the sheets' reminders as v5 did")
    func v5FillsRewardColumns() async throws {
        var ended = sheet(startedAt: "2027-01-15T09:00:00+01:00")
        ended.remindedAt = OffsetTimestamp(parsing: "2027-01-15T08:30:00+01:00")
        var partial = sheet(startedAt: "2027-01-16T09:00:00-05:00")
        partial.endedAt = nil
        partial.isPartial = true
        partial.remindedAt = OffsetTimestamp(parsing: "2027-01-16T10:00:00-05:00") // an hour after the start: impossible
        let sheets = [ended, partial]
        try await upgraded(from: "v4-questionnaire-links", fill: { db in
            for (index, sheet) in sheets.enumerated() {
                try db.execute(sql: """
                    INSERT INTO answer_sheets (id, user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                        started_at, received_at, sheet) VALUES (?, 1, ?, 'pilot', 'daily', 1, ?, 0, ?)
                    """, arguments: [index + 1, sheet.id.uuidString.lowercased(), sheet.startedAt.date.timeIntervalSince1970,
                                     try JSONCoding.string(sheet)])
            }
        }, check: { store in
            #expect(try await store.studySwitches(studyId: "pilot").isEmpty)
            let rows = try store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT finished_at, is_partial, sheet FROM answer_sheets ORDER BY id")
            }
            #expect(rows.map { $0["finished_at"] as String } == ["2027-01-15T09:05:00+01:00", "2027-01-16T09:00:00-05:00"])
            #expect(rows.map { $0["is_partial"] as Bool } == [false, true])
            // v5 kept a reminder only when possible; the rewards read the sheets by the same rule.
            let reminders = try rows.map { RewardRules.plausibleReminder(try JSONCoding.decode(AnswerSheet.self, from: $0["sheet"] as String)) }
            #expect(reminders == [ended.remindedAt?.date, nil])
        })
    }

    @Test("v12 marks passwords of existing studies as checked against 4 characters, keeps open codes usable and replaces the login counts",
          .timeLimit(.minutes(10)))
    func v12SecurityColumns() async throws {
        try await upgraded(from: "v11-session-refresh-grace", fill: { db in
            try db.execute(sql: """
                INSERT INTO studies (id, title, running, access, password_hash, participants_may_leave, modules, created_at, updated_at)
                    VALUES ('secret', '{"en":"Secret"}', 1, 'password', 'old-hash', 1, '[]', 0, 0);
                INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at) VALUES ('open-code', 1, 'passwordReset', 9999999999);
                INSERT INTO login_failures (login, failures, first_failure, last_failure) VALUES ('old', 3, 0, 0);
                """)
        }, check: { store in
            let secret = try #require(try await store.study(id: "secret"))
            #expect(secret.passwordMinimumLength == 4)
            #expect(StudyCommand.passwordWarning(secret)?.contains("when 4 characters were enough") == true)
            #expect(try await store.study(id: "pilot")?.passwordMinimumLength == nil)
            #expect(try await store.consumeMailToken(purpose: .passwordReset, tokenHash: "open-code", now: Date(timeIntervalSince1970: 1)) == 1)
            let tables = try await store.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            #expect(tables.contains("throttle_counts") && !tables.contains("login_failures"))
        })
    }

    @Test("v21 counts the sheets and prompts already stored into the tallies the console reads, as counting them does")
    func v21FillsTallies() async throws {
        try await upgraded(from: "v20-alerts", fill: { db in
            try db.execute(sql: """
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at) VALUES ('pilot', 1, 'member', 0, 0, 0);
                INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version, started_at, ended_at,
                    received_at, sheet) VALUES (1, 'a', 'pilot', 'daily', 1, 86400, 86500, 0, '{}'), (1, 'b', 'pilot', 'daily', 1, 90000, NULL, 0, '{}'),
                    (1, 'c', 'pilot', 'daily', 1, 3 * 86400, 3 * 86400 + 60, 0, '{}');
                INSERT INTO prompts (user_id, prompt_id, questionnaire_id, due_at, kinds, received_at)
                    VALUES (1, 'p1', 'daily', 86400, 3, 10), (1, 'p2', 'daily', 86500, 9, 20), (1, 'p3', 'daily', 2 * 86400, 3, 30);
                """)
        }, check: { store in
            let people = try await store.studyParticipants(studyId: "pilot")
            #expect(people.map(\.sheets) == [3])
            #expect(people.first?.lastAnswerAt == Date(timeIntervalSince1970: 3 * 86400 + 60))
            #expect(try await store.sheetsPerDay(studyId: "pilot").map { [$0.day, $0.sheets] } == [[1, 2], [3, 1]])
            let tallies = try await store.rows("SELECT kinds, prompts, last_received_at FROM prompt_tallies ORDER BY kinds").map {
                [Double(try $0["kinds"] as Int64), Double(try $0["prompts"] as Int64), try $0["last_received_at"] as Double]
            }
            #expect(tallies == [[3, 2, 30], [9, 1, 20]])
            #expect(try await store.dayTallies("prompts", subjects: ["daily"]).map { [$0.day, $0.kinds, $0.count] } == [[1, 3, 1], [1, 9, 1], [2, 3, 1]])
        })
    }
}
