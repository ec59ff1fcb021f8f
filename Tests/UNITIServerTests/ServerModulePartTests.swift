import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// A module part that only has a schema step: a table of its own with a row per person.
private struct NotesPart: ServerModulePart {
    var id: ModuleID { .son }
    var migrations: [ServerMigration] {
        [ServerMigration("v1-notes",
                         sqlite: "CREATE TABLE test_part_notes (user_id INTEGER NOT NULL, note TEXT NOT NULL);\nCREATE INDEX test_part_notes_user ON test_part_notes(user_id);",
                         postgres: "CREATE TABLE test_part_notes (user_id bigint NOT NULL, note text NOT NULL);\nCREATE INDEX test_part_notes_user ON test_part_notes(user_id);")]
    }
}

/// What a module's server part (`Modules/<Name>/Server`) adds, and that the server without it
/// has none of it: the parts are the only way module behaviour reaches the server.
@Suite("Server module parts", .timeLimit(.minutes(10)))
struct ServerModulePartTests {
    @Test("a part's schema steps run after the server's, once, recorded as <module>-<step>, on both stores", arguments: StoreKind.allCases)
    func partMigrations(kind: StoreKind) async throws {
        let modules = ServerModules([NotesPart()])
        let location: String
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-part-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            location = directory.appendingPathComponent("server.sqlite").path
        case .postgres:
            location = try PostgresCluster.shared().createDatabase()
        }
        let journal: SQL = kind == .sqlite ? "SELECT identifier FROM grdb_migrations" : "SELECT identifier FROM schema_migrations"
        for _ in 0..<2 {  // the second opening finds the step applied and leaves it
            let store = try await StoreLocation(parsing: location).open(modules: modules)
            let identifiers: [String] = try await store.rows(journal).map { try $0["identifier"] }
            #expect(identifiers.last == "son-v1-notes")
            #expect(identifiers.filter { $0 == "son-v1-notes" }.count == 1)
            let count: Int64 = try #require(try await store.rows("SELECT COUNT(*) AS n FROM test_part_notes").first)["n"]
            #expect(count == 0)
            await store.close()
        }
        // A server built without that module opens the database and leaves the part's table alone.
        let without = try await StoreLocation(parsing: location).open(modules: .none)
        #expect(try await without.rows("SELECT COUNT(*) AS n FROM test_part_notes").count == 1)
        await without.close()
    }

    @Test("without the parts the server has no module routes and the shell presents study questionnaires; with them, rewards answer and tys presents them")
    func withoutParts() async throws {
        for modules in [ServerModules.none, serverModuleParts] {
            let installed = !modules.parts.isEmpty
            let server = try TestServer(modules: modules)
            try await server.createStudy("pilot")
            try await server.addQuestionnaire("stress-daily", study: "pilot")
            #expect(try await server.store.questionnaireLinks(studyId: "pilot").map(\.module) == [installed ? .tys : .shell])
            try await server.run { client in
                let token = try await client.signUp("ada", on: server)
                #expect(try await client.get("/api/v1/rewards", token: token).status == (installed ? .ok : .notFound))
                // The data download carries what the parts add, and nothing of a part not built in.
                let account = try #require(try await server.store.user(login: "ada"))
                let json = try #require(try await PersonalDataExport(environment: server.environment).json(userId: account.id))
                let members = try JSONDecoder().decode([String: JSONValue].self, from: json)
                #expect((members["rewards"] != nil) == installed)
                #expect(members["account"] != nil && members["sheets"] != nil)
            }
        }
    }
}
