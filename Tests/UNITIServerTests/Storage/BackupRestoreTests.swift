import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// `uniti-server backup` and `restore` on the real binary, on both stores: a backup taken while
/// clients upload holds every sheet acknowledged before it began, and the store restored from it
/// serves the participant's `sheets/changes` exactly as the original did.
@Suite("Backup and restore while serving", .timeLimit(.minutes(10)))
struct BackupRestoreTests {
    @Test("SQLite: a backup taken during uploads holds every sheet acknowledged before it, and the restored store answers sheets/changes as before")
    func sqliteBackupWhileServing() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.backupWhileUploading(database: directory + "/server.sqlite", restoreInto: directory + "/restored/server.sqlite",
                                            directory: directory)
    }

    @Test("PostgreSQL: a backup taken during uploads holds every sheet acknowledged before it, and the restored store answers sheets/changes as before")
    func postgresBackupWhileServing() async throws {
        let cluster = try await PostgresCluster.started()
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.backupWhileUploading(database: try cluster.createDatabase(), restoreInto: try cluster.createDatabase(),
                                            directory: directory)
    }

    @Test("restore refuses a store that holds data and names what it holds; the store keeps its data")
    func restoreRefusesAStoreWithData() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/server.sqlite"
        let created = try Program.run("uniti-server", ["study", "create", "kept", "--title", "Kept", "--modules", "tyt", "--database", database])
        #expect(created.status == 0, "\(created.err)")
        let backedUp = try Program.run("uniti-server", ["backup", "--database", database, "--out", directory + "/copy.sqlite"])
        #expect(backedUp.status == 0, "\(backedUp.err)")
        #expect(backedUp.out == "Backed up 0 accounts, 1 study, 0 sheets, 0 records to \(directory)/copy.sqlite (PRAGMA integrity_check: ok).\n")

        let refused = try Program.run("uniti-server", ["restore", directory + "/copy.sqlite", "--database", database])
        #expect(refused.status != 0)
        #expect(refused.err.contains("already holds data (0 accounts, 1 study, 0 sheets, 0 records)"), "\(refused.err)")
        #expect(refused.err.split(separator: "\n").count == 1, "one line: \(refused.err)")
        #expect(try SQLiteShell.query(database, "SELECT id FROM studies") == ["kept"])

        // A file that is no backup: one line, and the empty target stays empty.
        let notABackup = directory + "/notes.txt"
        try "not a database".write(toFile: notABackup, atomically: true, encoding: .utf8)
        let garbage = try Program.run("uniti-server", ["restore", notABackup, "--database", directory + "/empty.sqlite"])
        #expect(garbage.status != 0)
        #expect(garbage.err.contains("is not a SQLite backup of uniti-server"), "\(garbage.err)")
        #expect(garbage.err.split(separator: "\n").count == 1, "one line: \(garbage.err)")
    }

    @Test("backup writes a private file (0600) and leaves no temporary file; a missing pg_dump, or one of another major version, is one line naming what to do")
    func backupFileIsPrivateAndPgDumpMissingIsOneLine() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/server.sqlite"
        #expect(try Program.run("uniti-server", ["study", "create", "s", "--title", "S", "--modules", "tyt", "--database", database]).status == 0)
        let out = directory + "/nightly.sqlite"
        // Under a permissive umask the copy is private all the same.
        let backedUp = try Program.run("/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", Program.path("uniti-server"),
                                                   "backup", "--database", database, "--out", out])
        #expect(backedUp.status == 0, "\(backedUp.err)")
        let attributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy { !$0.contains("partial") })

        let cluster = try await PostgresCluster.started()
        let url = try cluster.createDatabase()
        let empty = directory + "/no-programs"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let missing = try Program.run("uniti-server", ["backup", "--database", url, "--out", directory + "/pg.dump", "--pg-bin", empty])
        #expect(missing.status != 0)
        #expect(missing.err.contains("pg_dump not found: install PostgreSQL's client programs of version"), "\(missing.err)")
        #expect(missing.err.split(separator: "\n").count == 1, "one line: \(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/pg.dump"))

        // A pg_dump of another major version than the server: one line naming both and the remedy.
        let other = directory + "/postgresql-9"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        for name in ["pg_dump", "pg_restore"] {
            try "#!/bin/sh\necho \"\(name) (PostgreSQL) 9.6.24\"\n".write(toFile: other + "/" + name, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: other + "/" + name)
        }
        let mismatched = try Program.run("uniti-server", ["backup", "--database", url, "--out", directory + "/pg.dump", "--pg-bin", other])
        #expect(mismatched.status != 0)
        #expect(mismatched.err.contains("pg_dump is PostgreSQL 9 but the server runs 1"), "\(mismatched.err)")
        #expect(mismatched.err.split(separator: "\n").count == 1, "one line: \(mismatched.err)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/pg.dump"))
    }

    // MARK: The journey

    static func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "uniti-backup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Sheets the server acknowledged (200 with `stored`), and whether the clients are to stop.
    final class Acknowledged: Sendable {
        private let ids = Mutex<Set<String>>([])
        private let stop = Mutex(false)
        func add(_ new: [String]) { ids.withLock { $0.formUnion(new.map { $0.lowercased() }) } }
        var all: Set<String> { ids.withLock { $0 } }
        var stopped: Bool {
            get { stop.withLock { $0 } }
            set { stop.withLock { $0 = newValue } }
        }
    }

    static func backupWhileUploading(database: String, restoreInto restored: String, directory: String) async throws {
        let questionnaire = directory + "/daily.json"
        try dailyQuestionnaireJSON().write(toFile: questionnaire, atomically: true, encoding: .utf8)
        for command in [["study", "create", "open", "--title", "Open", "--modules", "tyt", "--running"],
                        ["questionnaire", "import", questionnaire, "--study", "open"]] {
            let result = try Program.run("uniti-server", command + ["--database", database])
            #expect(result.status == 0, "\(result.err)")
        }
        let server = try StudyServer(database: database)
        let token = try await Self.participant(on: server)

        // Four clients upload batches of five sheets until told to stop.
        let acknowledged = Acknowledged()
        let uploads = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var batches = 0
                        while !acknowledged.stopped, batches < 200 {
                            batches += 1
                            let sheets = (0..<5).map { _ in sheet() }
                            let answer = try await ScaleOutBinaryTests.exchange("POST", server.url + "/api/v1/sheets",
                                                                                body: try ScaleOutBinaryTests.json(AnswerSheetBatch(sheets: sheets)), token: token)
                            guard answer.status == 200 else { throw TestFailure("upload answered \(answer.status)") }
                            let results = try JSONDecoder().decode(AnswerSheetBatchResult.self, from: answer.body).results
                            acknowledged.add(results.filter { $0.outcome == .stored }.map(\.id))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        // Bounded: clients that fail stop acknowledging, and the wait ends with the failure below.
        for _ in 0..<3000 where acknowledged.all.count < 40 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(acknowledged.all.count >= 40, "the clients' uploads were not acknowledged")
        let beforeBackup = acknowledged.all
        let backupFile = directory + "/backup.file"
        let backup = try Program.start("uniti-server", ["backup", "--database", database, "--out", backupFile])
        while backup.process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let backedUp = backup.finish()
        let duringBackup = acknowledged.all.count - beforeBackup.count
        acknowledged.stopped = true
        try await uploads.value
        #expect(backedUp.status == 0, "\(backedUp.err)")
        #expect(backedUp.out.hasPrefix("Backed up 1 account, 1 study, "), "\(backedUp.out)")

        // What the original serves now: every sheet, the backup's a part of them.
        let original = try await Self.allChanges(server.url, token: token)
        #expect(Set(original.map(\.id)) == acknowledged.all)
        server.stop()

        let restoredResult = try Program.run("uniti-server", ["restore", backupFile, "--database", restored])
        #expect(restoredResult.status == 0, "\(restoredResult.err)")
        let restoredServer = try StudyServer(database: restored)
        let login = try await ScaleOutBinaryTests.exchange("POST", restoredServer.url + "/api/v1/account/login",
                                                           body: try ScaleOutBinaryTests.json(LoginRequest(login: "vera", password: "verapassword")))
        #expect(login.status == 200)
        let restoredToken = try JSONDecoder().decode(SessionTokens.self, from: login.body).accessToken
        let fromBackup = try await Self.allChanges(restoredServer.url, token: restoredToken)
        let backupIDs = Set(fromBackup.map(\.id))
        #expect(beforeBackup.isSubset(of: backupIDs), "\(beforeBackup.subtracting(backupIDs).count) acknowledged sheets missing from the backup")
        // The same pages, entry for entry and cursor for cursor, up to where the backup was taken.
        #expect(fromBackup.count >= beforeBackup.count)
        #expect(fromBackup == Array(original.prefix(fromBackup.count)))
        #expect(restoredResult.out == "Restored 1 account, 1 study, \(fromBackup.count) sheets, 0 records from \(backupFile).\n")
        #expect(backedUp.out.contains("\(fromBackup.count) sheets"))
        // Restoring again is refused: the store now holds data, and what it holds is named.
        restoredServer.stop()
        let again = try Program.run("uniti-server", ["restore", backupFile, "--database", restored])
        #expect(again.status != 0)
        #expect(again.err.contains("already holds data (1 account, 1 study, \(fromBackup.count) sheets, 0 records)"), "\(again.err)")
        print("backup during uploads: \(beforeBackup.count) sheets acknowledged before it began, \(duringBackup) while it ran, \(fromBackup.count) in it")
    }

    /// Registers, activates and logs in `vera` and joins the study `open`; returns her token.
    static func participant(on server: StudyServer) async throws -> String {
        let register = try ScaleOutBinaryTests.json(RegisterRequest(username: "vera", email: "vera@example.org", password: "verapassword"))
        #expect(try await ScaleOutBinaryTests.exchange("POST", server.url + "/api/v1/account/register", body: register).status == 201)
        let code = try #require(try server.mailedCode(to: "vera@example.org"))
        #expect(try await ScaleOutBinaryTests.exchange("POST", server.url + "/api/v1/account/activate",
                                                       body: try ScaleOutBinaryTests.json(TokenRequest(token: code))).status == 200)
        let login = try await ScaleOutBinaryTests.exchange("POST", server.url + "/api/v1/account/login",
                                                           body: try ScaleOutBinaryTests.json(LoginRequest(login: "vera", password: "verapassword")))
        let token = try JSONDecoder().decode(SessionTokens.self, from: login.body).accessToken
        #expect(try await ScaleOutBinaryTests.exchange("POST", server.url + "/api/v1/studies/open/join", body: Data("{}".utf8), token: token).status == 200)
        return token
    }

    /// Every entry of `sheets/changes`, page by page from the start (as an app pulls): each
    /// sheet as served (stored sheet, time received, study), so two servers' answers compare
    /// entry for entry.
    static func allChanges(_ base: String, token: String) async throws -> [Entry] {
        var entries: [Entry] = []
        var cursor: String?
        while true {
            let query = cursor.map { "?limit=50&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)" } ?? "?limit=50"
            let page = try await ScaleOutBinaryTests.exchange("GET", base + "/api/v1/sheets/changes" + query, token: token)
            guard page.status == 200 else { throw TestFailure("sheets/changes answered \(page.status)") }
            let object = try #require(try JSONSerialization.jsonObject(with: page.body) as? [String: Any])
            let sheets = try #require(object["sheets"] as? [[String: Any]])
            for entry in sheets {
                let data = try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys])
                let id = try #require((entry["sheet"] as? [String: Any])?["id"] as? String)
                entries.append(Entry(id: id.lowercased(), json: String(decoding: data, as: UTF8.self)))
            }
            guard object["more"] as? Bool == true else { return entries }
            cursor = object["cursor"] as? String
        }
    }

    /// One sheet as `sheets/changes` served it.
    struct Entry: Equatable {
        let id: String
        let json: String
    }
}
