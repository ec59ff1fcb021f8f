import Foundation
import GRDB
import Testing
@testable import UNITICore

@Suite("Storage", .timeLimit(.minutes(10)))
struct AppDatabaseTests {
    let moduleSet = MigrationSet(owner: "tyt", steps: [
        ModuleMigration("v1-results") { db in
            try db.create(table: "tyt_results") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("value", .integer)
            }
        },
    ])

    @Test("opening runs every step once, registered under its owner")
    func migrationsRunOnceUnderOwner() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let path = dir + "/uniti.sqlite"
        let sets = CoreMigrations.all + [moduleSet]
        let first = try AppDatabase(path: path, migrationSets: sets)
        try first.writer.write { try $0.execute(sql: "INSERT INTO tyt_results(value) VALUES (7)") }
        let second = try AppDatabase(path: path, migrationSets: sets)
        let steps = try second.appliedSteps()
        #expect(steps["tyt"] == ["v1-results"])
        #expect(steps["core"]?.contains("v1-settings") == true)
        let values = try second.writer.read { try Int.fetchAll($0, sql: "SELECT value FROM tyt_results") }
        #expect(values == [7])
    }

    @Test("the database is in WAL mode and readable by its owner only")
    func walModeAndPermissions() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let path = dir + "/uniti.sqlite"
        let database = try AppDatabase(path: path, migrationSets: CoreMigrations.all)
        let mode = try database.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("a database written by a newer version is refused and left unchanged")
    func newerDatabaseIsRefused() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let path = dir + "/uniti.sqlite"
        let newer = MigrationSet(owner: "tyt", steps: moduleSet.steps + [
            ModuleMigration("v2-from-the-future") { db in
                try db.create(table: "tyt_future") { t in t.column("x", .integer) }
            },
        ])
        _ = try AppDatabase(path: path, migrationSets: CoreMigrations.all + [newer])
        func snapshot() -> [Data] {
            ["", "-wal"].map { suffix in
                (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data()
            }
        }
        let before = snapshot()

        #expect {
            _ = try AppDatabase(path: path, migrationSets: CoreMigrations.all + [moduleSet])
        } throws: { error in
            let message = (error as? UNITIError)?.message ?? ""
            return message.contains("newer version") && message.contains("tyt.v2-from-the-future")
        }
        #expect(snapshot() == before, "the refused database and its WAL must be byte-for-byte unchanged")
        let reopened = try AppDatabase(path: path, migrationSets: CoreMigrations.all + [newer])
        #expect(try reopened.appliedSteps()["tyt"] == ["v1-results", "v2-from-the-future"])
    }

    @Test("a step may not create a table outside its owner's prefix")
    func foreignTableIsRejected() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let rogue = MigrationSet(owner: "son", steps: [
            ModuleMigration("v1-rogue") { db in
                try db.create(table: "tyt_stolen") { t in t.column("x", .integer) }
            },
        ])
        #expect {
            _ = try AppDatabase(path: dir + "/uniti.sqlite", migrationSets: CoreMigrations.all + [rogue])
        } throws: { error in
            "\(error)".contains("tyt_stolen") && "\(error)".contains("son_")
        }
    }

    @Test("a file that is not a database gets one clear error")
    func garbageFileIsRefused() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let path = dir + "/uniti.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try AppDatabase(path: path, migrationSets: CoreMigrations.all)
        } throws: { error in
            (error as? UNITIError)?.message.contains("cannot open the database") == true
        }
    }

    @Test("settings are stored, replaced and removed")
    func settingsRoundTrip() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let database = try AppDatabase(path: dir + "/uniti.sqlite", migrationSets: CoreMigrations.all)
        let settings = SettingsStore(database: database)
        try settings.set("language", to: "de")
        try settings.set("language", to: "en")
        #expect(try settings.string("language") == "en")
        try settings.set("language", to: nil)
        #expect(try settings.string("language") == nil)
    }
}
