import Foundation
import Testing
import UNITIProtocol
@testable import UNITICore

@Suite("Studies decide the enabled modules", .timeLimit(.minutes(10)))
struct StudyCatalogTests {
    @Test("before any study is joined, the bundled default study enables all five modules")
    func defaultStudyEnablesAll() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let catalog = StudyCatalog(database: try AppDatabase(path: dir + "/db.sqlite", migrationSets: CoreMigrations.all))
        #expect(try catalog.enabledModuleIDs() == Set(ModuleCatalog.ids))
        #expect(StudyCatalog.defaultStudy.id == "uniti-default")
    }

    @Test("joined studies replace the default; their union is enabled; leaving restores the default")
    func joinedStudiesDecide() throws {
        let dir = makeTemporaryDirectory()
        defer { removeDirectory(dir) }
        let catalog = StudyCatalog(database: try AppDatabase(path: dir + "/db.sqlite", migrationSets: CoreMigrations.all))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try catalog.recordJoined(StudyDescriptor(id: "noise", title: "Noise", modules: ["son"]), at: now)
        try catalog.recordJoined(StudyDescriptor(id: "ema", title: "EMA", modules: ["tyt", "son"]), at: now)
        #expect(try catalog.enabledModuleIDs() == ["tyt", "son"])
        #expect(try catalog.studyEnabling("tn")?.id == "uniti-default")
        try catalog.recordLeft("noise")
        try catalog.recordLeft("ema")
        #expect(try catalog.enabledModuleIDs() == Set(ModuleCatalog.ids))
    }
}
