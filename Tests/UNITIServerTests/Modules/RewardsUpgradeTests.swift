import Foundation
import GRDB
import Testing
import UNITIProtocol
import UNITITesting
@testable import TrackYourHearingServer
@testable import UNITIServer

/// Track Your Hearing's rewards moved out of the server's tables (`studies.rewards`,
/// `answer_sheets.reminded_at`) into the module's study switch and the sheets as sent: a store
/// written by the server before the move keeps every study's switch and every point.
@Suite("Rewards kept across the move into Track Your Hearing's part", .timeLimit(.minutes(10)))
struct RewardsUpgradeTests {
    /// The sheets of the old store: in `hearing` (rewards on) one on time, one without a
    /// reminder, one with an impossible reminder (an hour after its start, so the old server
    /// stored NULL) and a partial one; one in `plain` (rewards off).
    struct OldSheet {
        var sheet: AnswerSheet
        var study: String
        var questionnaire: String
        /// `reminded_at` as the old server wrote it.
        var remindedColumn: Date?
    }

    static func oldSheets() -> [OldSheet] {
        func hearing(_ start: String, reminderOffset: TimeInterval?, partial: Bool = false, questionnaire: String = "hear") -> AnswerSheet {
            var result = sheet(questionnaire: questionnaire, startedAt: start)
            if let reminderOffset {
                result.remindedAt = OffsetTimestamp(result.startedAt.date.addingTimeInterval(reminderOffset), in: TimeZone(secondsFromGMT: 3600)!)
            }
            if partial {
                result.isPartial = true
                result.endedAt = nil
            }
            return result
        }
        let onTime = hearing("2027-01-15T09:00:00+01:00", reminderOffset: -600)
        let unprompted = hearing("2027-01-16T09:00:00+01:00", reminderOffset: nil)
        let impossible = hearing("2027-01-17T09:00:00+01:00", reminderOffset: 3600)
        let partial = hearing("2027-01-18T09:00:00+01:00", reminderOffset: -60, partial: true)
        let plain = hearing("2027-01-15T10:00:00+01:00", reminderOffset: -60, questionnaire: "plain-q")
        return [
            OldSheet(sheet: onTime, study: "hearing", questionnaire: "hear", remindedColumn: onTime.remindedAt?.date),
            OldSheet(sheet: unprompted, study: "hearing", questionnaire: "hear", remindedColumn: nil),
            OldSheet(sheet: impossible, study: "hearing", questionnaire: "hear", remindedColumn: nil),
            OldSheet(sheet: partial, study: "hearing", questionnaire: "hear", remindedColumn: partial.remindedAt?.date),
            OldSheet(sheet: plain, study: "plain", questionnaire: "plain-q", remindedColumn: plain.remindedAt?.date),
        ]
    }

    /// What the old server's reads gave: its completed `hear` sheets with the reminder column.
    static func expectedStatus() -> RewardStatus {
        let counted = oldSheets().filter { $0.study == "hearing" && !$0.sheet.isPartial }.map {
            RewardRules.Sheet(id: $0.sheet.id, finishedAt: $0.sheet.endedAt ?? $0.sheet.startedAt, startedAt: $0.sheet.startedAt.date,
                              remindedAt: $0.remindedColumn)
        }
        return RewardRules.status(studyId: "hearing", sheets: counted)
    }

    /// The old store's rows, as SQL for either engine (`yes`/`no`: how it writes a boolean).
    static func fill(yes: String, no: String) throws -> String {
        var sql = """
            INSERT INTO users (id, username, email, password_hash, activated, pseudonym, created_at)
                VALUES (1, 'ada', 'ada@example.org', 'x', \(yes), 'p-ada', 0);
            INSERT INTO studies (id, title, running, access, participants_may_leave, modules, rewards, created_at, updated_at)
                VALUES ('hearing', '{"en":"Hearing"}', \(yes), 'public', \(yes), '["tyh"]', \(yes), 0, 0),
                       ('plain', '{"en":"Plain"}', \(yes), 'public', \(yes), '["tyh"]', \(no), 0, 0);
            INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at, joined_at)
                VALUES ('hearing', 1, 'member', 0, 0, 0), ('plain', 1, 'member', 0, 0, 0);
            INSERT INTO questionnaires (id, version, study_id, definition, imported_at)
                VALUES ('hear', 1, 'hearing', '{}', 0), ('plain-q', 1, 'plain', '{}', 0);
            INSERT INTO questionnaire_links (questionnaire_id, study_id, module) VALUES ('hear', 'hearing', 'tyh'), ('plain-q', 'plain', 'tyh');

            """
        for (index, old) in oldSheets().enumerated() {
            let sheet = old.sheet
            let json = try JSONCoding.string(sheet).replacingOccurrences(of: "'", with: "''")
            sql += """
                INSERT INTO answer_sheets (id, user_id, client_id, study_id, questionnaire_id, questionnaire_version, started_at,
                    ended_at, received_at, sheet, finished_at, is_partial, reminded_at)
                VALUES (\(index + 1), 1, '\(sheet.id.uuidString.lowercased())', '\(old.study)', '\(old.questionnaire)', 1,
                    \(sheet.startedAt.date.timeIntervalSince1970), \(sheet.endedAt.map { "\($0.date.timeIntervalSince1970)" } ?? "NULL"), 0,
                    '\(json)', '\((sheet.endedAt ?? sheet.startedAt).text)', \(sheet.isPartial ? yes : no),
                    \(old.remindedColumn.map { "\($0.timeIntervalSince1970)" } ?? "NULL"));

                """
        }
        return sql
    }

    /// What must hold once the store opened the old data with Track Your Hearing installed.
    static func check(_ store: ServerStore, columns: (String) async throws -> [String]) async throws {
        #expect(try await store.studySwitches(studyId: "hearing") == [TrackYourHearingServerPart.rewardsSwitch.key])
        #expect(try await store.studySwitches(studyId: "plain").isEmpty)
        let rewards = try await store.rewardSheets(userId: 1)
        #expect(rewards.map(\.studyId) == ["hearing"])
        let status = try #require(rewards.first.map { RewardRules.status(studyId: $0.studyId, sheets: $0.sheets) })
        #expect(status == expectedStatus())
        #expect(status.points == 35 && status.onTime == 1 && status.completed == 3)
        #expect(try await !columns("studies").contains("rewards"))
        #expect(try await !columns("answer_sheets").contains("reminded_at"))
        #expect(try await columns("answer_sheets").contains("finished_at"))
    }

    @Test("SQLite: a store from before the move keeps each study's switch and every point")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-rewards-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteMigrations.migrator(modules: serverModuleParts).migrate(queue, upTo: "v18-study-invitations")
            let sql = try Self.fill(yes: "1", no: "0")
            try await queue.write { db in try db.execute(sql: sql) }
        }
        let store = try ServerStore(sqlitePath: path, modules: serverModuleParts)
        try await Self.check(store) { table in
            try await store.rows("SELECT name FROM pragma_table_info(\(table))").map { try $0["name"] }
        }
        await store.close()
    }

    @Test("PostgreSQL: a store from before the move keeps each study's switch and every point")
    func postgres() async throws {
        let cluster = try await PostgresCluster.started()
        let url = try cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        // The server's schema as it was before the move (its steps up to pg16), recorded as applied.
        let old = PostgreSQLMigrations.steps.prefix { $0.identifier != "pg17-study-module-switches" }
        #expect(old.last?.identifier == "pg16-study-invitations")
        _ = try cluster.query(old.map(\.sql).joined(separator: ";\n") + """
            ;
            CREATE TABLE schema_migrations (identifier text PRIMARY KEY, applied_at double precision NOT NULL);
            INSERT INTO schema_migrations VALUES \(old.map { "('\($0.identifier)', 0)" }.joined(separator: ", "));
            """, database: database)
        _ = try cluster.query(try Self.fill(yes: "true", no: "false"), database: database)
        let store = try await StoreLocation(parsing: url).open(now: TestTime.now, modules: serverModuleParts)
        try await Self.check(store) { table in
            try await store.rows("""
                SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(table)
                """).map { try $0["column_name"] }
        }
        await store.close()
    }
}
