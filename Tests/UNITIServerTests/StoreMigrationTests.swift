import Foundation
import GRDB
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Store migrations")
struct StoreMigrationTests {
    @Test("the migration steps keep their identifiers and order, so existing server databases open unchanged")
    func identifiersAndOrder() {
        #expect(ServerMigrations.migrator.migrations == [
            "v1-accounts", "v1-studies", "v1-sheets", "v1-module-records", "v2-module-resources", "v3-answer-sheets-by-user",
            "v4-memberships-joined-at", "v4-questionnaire-links",
        ])
    }

    @Test("v4 gives questionnaires stored before it their default module in first-import order, and members the time they last became one")
    func v4FillsLinksAndJoinTimes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-server-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try ServerMigrations.migrator.migrate(queue, upTo: "v3-answer-sheets-by-user")
            try await queue.write { db in
                try db.execute(sql: """
                    INSERT INTO users (id, username, email, password_hash, activated, pseudonym, created_at)
                        VALUES (1, 'old', 'old@example.org', 'x', 1, 'p-old', 0);
                    INSERT INTO studies (id, title, running, access, participants_may_leave, modules, created_at, updated_at)
                        VALUES ('pilot', '{"en":"Pilot"}', 1, 'public', 1, '[]', 0, 0),
                               ('later', '{"en":"Later"}', 1, 'byRequest', 1, '[]', 0, 0);
                    INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at)
                        VALUES ('pilot', 1, 'member', 50, 100), ('later', 1, 'pending', 60, 60);
                    """)
                // First imports: tyt-momentary (10), stress-daily (20), uniti-case-history (30); the ids sort otherwise.
                for (id, version, importedAt) in [("stress-daily", 1, 20.0), ("tyt-momentary", 2, 40.0), ("tyt-momentary", 1, 10.0),
                                                  ("uniti-case-history", 1, 30.0)] {
                    try db.execute(sql: "INSERT INTO questionnaires (id, version, study_id, definition, imported_at) VALUES (?, ?, 'pilot', ?, ?)",
                                   arguments: [id, version, dailyQuestionnaireJSON(id: id, version: version), importedAt])
                }
            }
        }
        let store = try SQLiteServerStore(path: path)
        let links = try await store.questionnaireLinks(studyId: "pilot")
        #expect(links.map(\.questionnaireId) == ["tyt-momentary", "stress-daily", "uniti-case-history"])
        #expect(links.map(\.module) == [.tyt, .tys, .shell])
        #expect(links.allSatisfy { $0.isActive })
        let listed = try await store.memberQuestionnaires(userId: 1)
        #expect(listed.map(\.link.questionnaireId) == ["tyt-momentary", "stress-daily", "uniti-case-history"])
        #expect(listed.map(\.version) == [2, 1, 1])
        #expect(Set(listed.map(\.joinedAt)) == [Date(timeIntervalSince1970: 100)])
    }
}
