import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// A module part that only has a schema step: a table of its own with a row per person.
private struct NotesPart: ServerSchemaExtending {
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
            location = try await PostgresCluster.newDatabase()
        }
        let journal: SQL = kind == .sqlite ? "SELECT identifier FROM grdb_migrations" : "SELECT identifier FROM schema_migrations"
        for _ in 0..<2 {  // the second opening finds the step applied and leaves it
            let store = try await StoreLocation(parsing: location).open(now: Date(), modules: modules)
            let identifiers: [String] = try await store.rows(journal).map { try $0["identifier"] }
            #expect(identifiers.last == "son-v1-notes")
            #expect(identifiers.filter { $0 == "son-v1-notes" }.count == 1)
            let count: Int64 = try #require(try await store.rows("SELECT COUNT(*) AS n FROM test_part_notes").first)["n"]
            #expect(count == 0)
            await store.close()
        }
        // A server built without that module opens the database and leaves the part's table alone.
        let without = try await StoreLocation(parsing: location).open(now: Date(), modules: .none)
        #expect(try await without.rows("SELECT COUNT(*) AS n FROM test_part_notes").count == 1)
        await without.close()
    }

    @Test("without the parts the server has no module routes, pages, links or download members and the shell presents study questionnaires; with them, all are there")
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
                // The served API description documents the part's route exactly when the part is there.
                let document = try await client.get("/api/v1/openapi.yaml").text
                #expect(document.contains("\n  /rewards:\n") == installed)
                #expect(document.contains("\n    RewardStatus:\n") == installed)
                // The data download carries what the parts add, and nothing of a part not built in.
                let account = try #require(try await server.store.user(login: "ada"))
                let json = try #require(try await PersonalDataExport(environment: server.environment).json(userId: account.id))
                let members = try JSONDecoder().decode([String: JSONValue].self, from: json)
                #expect((members["rewards"] != nil) == installed)
                #expect(members["account"] != nil && members["sheets"] != nil)
                // The portal: the health record's pages, link and download come with its part only.
                let browser = PortalBrowser(client)
                #expect(try await server.portalLogin(browser, "ada").status == .seeOther)
                let start = try await browser.get("/")
                #expect(start.text.contains("id=\"nav-record\"") == installed)
                #expect(start.text.contains("id=\"nav-questionnaires\""))
                #expect(try await browser.get("/record").status == (installed ? .ok : .notFound))
                let data = try await browser.get("/data")
                #expect(data.text.contains("id=\"download-fhir\"") == installed)
                #expect(data.text.contains("id=\"download-json\""))
                #expect(try await browser.get("/data/record.fhir.json").status == (installed ? .ok : .notFound))
            }
        }
    }
}

/// The parts' contributions to what the server shows: the OpenAPI document and study switches.
@Suite("Server module parts' documents and switches", .timeLimit(.minutes(10)))
struct ServerModulePartDocumentTests {
    /// The top-level sections of a YAML document and the lines of each, by section name, and
    /// the entries of a two-level section (`components` → `schemas`).
    static func section(_ lines: [String], from header: String, indent: Int) -> [String] {
        guard let start = lines.firstIndex(of: header) else { return [] }
        let prefix = String(repeating: " ", count: indent + 1)
        let body = lines[(start + 1)...].prefix { $0.isEmpty || $0.hasPrefix(prefix) }
        let entry = String(repeating: " ", count: indent + 2)
        return body.filter { $0.hasPrefix(entry) && !$0.hasPrefix(entry + " ") && $0.hasSuffix(":") }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("a part's paths join the document's paths and its schemas the components' schemas, each after the server's own")
    func documentJoined() throws {
        let base = String(decoding: try OpenAPIDocument.data.get(), as: UTF8.self)
        let joined = String(decoding: try OpenAPIDocument.data(modules: serverModuleParts), as: UTF8.self)
        let baseLines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let lines = joined.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let paths = Self.section(lines, from: "paths:", indent: 0), schemas = Self.section(lines, from: "  schemas:", indent: 2)
        #expect(paths == Self.section(baseLines, from: "paths:", indent: 0) + ["/rewards:"])
        #expect(schemas == Self.section(baseLines, from: "  schemas:", indent: 2) + ["RewardBadge:", "RewardStatus:", "RewardList:"])
        // Every reference points at a schema, response, parameter or header the document has.
        let references = Set(joined.matches(of: /\$ref: "#\/components\/(\w+)\/(\w+)"/).map { "\($0.1)/\($0.2)" })
        #expect(references.count > 20)
        for reference in references.sorted() {
            let parts = reference.split(separator: "/").map(String.init)
            #expect(Self.section(lines, from: "  \(parts[0]):", indent: 2).contains("\(parts[1]):"), "no \(reference)")
        }
        #expect(String(decoding: try OpenAPIDocument.data(modules: .none), as: UTF8.self) == base)
    }

    @Test("the installed modules' study switches have unique names that are none of the study's own settings")
    func switchNames() {
        let names = serverModuleParts.studySwitches.map(\.name)
        #expect(names.contains("rewards"))
        #expect(Set(names).count == names.count)
        // The command line's options and the console form's fields of a study's own settings.
        let own: Set = ["title", "description", "consent", "access", "password", "participants-may-leave", "running", "starts", "ends",
                        "modules", "schedules", "database", "help"]
        #expect(own.isDisjoint(with: names))
        for name in names { #expect(name.wholeMatch(of: /[a-z][a-z-]*/) != nil, "\(name)") }
    }
}

/// The server's own code names no module: a module's behaviour reaches the server only through
/// its part, so removing a module's folder cannot break the server's build.
@Suite("The server names no module", .timeLimit(.minutes(10)))
struct ServerNamesNoModuleTests {
    static let serverSources = repositoryRoot.appendingPathComponent("Sources/UNITIServer")

    /// The lines of code (comments removed) that name a module: its id as `.id` or `"id"`, or an
    /// import of one of its targets.
    static func offending(in text: String) -> [String] {
        let ids = ModuleCatalog.all.map(\.id.rawValue)
        let names = ModuleCatalog.all.map(\.name)
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            let code = line.components(separatedBy: "//").first ?? ""
            let named = ids.contains { id in
                code.range(of: "\\.\(id)\\b", options: .regularExpression) != nil || code.contains("\"\(id)\"")
            } || names.contains { code.range(of: "^\\s*(@testable )?import \($0)", options: .regularExpression) != nil }
            return named ? String(line) : nil
        }
    }

    @Test("the check finds a module named in code and ignores one named in a comment")
    func checkFindsNames() {
        #expect(Self.offending(in: "let m: ModuleID = .tyh\nlet n = \"tn\"\nimport TinnitusNavigatorServer\n").count == 3)
        #expect(Self.offending(in: "// rewards of .tyh\nlet x = y.tynext").isEmpty)
    }

    @Test("no file of Sources/UNITIServer names a module or imports one")
    func noModuleNamed() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.serverSources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 50)
        for file in files {
            let found = Self.offending(in: try String(contentsOf: file, encoding: .utf8))
            #expect(found.isEmpty, "\(file.lastPathComponent) names a module: \(found)")
        }
    }
}
