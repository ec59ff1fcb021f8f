import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// A module that declares a record kind the way the issue promises tn will: a GRDB record, its
/// kind, its id, and one line in the module. Everything else (queueing, merging, tombstones,
/// routing) is the core's.
struct NotebookModule: UNITIModule, RecordSyncing {
    struct Note: Codable, Equatable, SyncedTableRecord {
        static let databaseTableName = "nb_notes"
        static let recordKind = "note"
        var id: String
        var text: String
        var updatedAt: Date
        var recordID: String { id }
    }

    let descriptor = ModuleDescriptor(id: "nb", name: "Notebook", programName: "notebook", version: "1")
    func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
    var migrations: [ModuleMigration] {
        [ModuleMigration("v1-notes") { db in
            try db.create(table: "nb_notes") { t in
                t.column("id", .text).primaryKey()
                t.column("text", .text).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
        }]
    }
    var syncedRecordTypes: [any SyncedRecord.Type] { [Note.self] }
}

@Suite("Synced records: a kind declared in a few lines", .timeLimit(.minutes(10)))
struct SyncedRecordTests {
    typealias Note = NotebookModule.Note

    func notes(_ harness: ModuleHarness) throws -> [Note] {
        try harness.database.writer.read { db in try Note.order(Column("id")).fetchAll(db) }
    }

    @Test("saving keeps the row and queues it under <kind>:<id>, in one transaction, with the update time to the millisecond")
    func saveQueues() throws {
        let harness = try ModuleHarness(NotebookModule())
        let at = Date(timeIntervalSince1970: 1_790_000_000.1234)
        try harness.context().records.save(Note(id: "n1", text: "louder today", updatedAt: at), at: at)
        #expect(try notes(harness).map(\.text) == ["louder today"])
        let upsert = try #require(try harness.queuedRecords()["nb/note:n1"])
        #expect(upsert.updatedAt == "2026-09-21T14:13:20.123Z")
        #expect(upsert.payload?["text"] == .string("louder today"))
        #expect(upsert.deleted == nil)
        // A failing write after the save rolls both back: nothing kept, nothing queued.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try harness.database.writer.write { db in
                try harness.context().records.save(Note(id: "n2", text: "lost", updatedAt: at), in: db)
                throw Abort()
            }
        }
        #expect(try notes(harness).map(\.id) == ["n1"])
        #expect(try harness.queuedRecords()["nb/note:n2"] == nil)
    }

    @Test("a pulled version replaces an older local one, not a newer one; a tombstone deletes what is not newer")
    func newestWins() throws {
        let harness = try ModuleHarness(NotebookModule())
        let t0 = harness.clock.now
        try harness.context().records.save(Note(id: "n1", text: "mine", updatedAt: t0), at: t0)
        #expect(try harness.pull(records: [try ModuleHarness.record(Note(id: "n1", text: "older", updatedAt: t0), owner: "nb",
                                                                     at: t0.addingTimeInterval(-1))]) == [.applied])
        #expect(try notes(harness).map(\.text) == ["mine"])
        try harness.pull(records: [try ModuleHarness.record(Note(id: "n1", text: "newer", updatedAt: t0), owner: "nb",
                                                             at: t0.addingTimeInterval(0.001))])
        let merged = try notes(harness)
        #expect(merged.map(\.text) == ["newer"])
        // The stored update time is the server's, not the one inside the payload.
        #expect(RecordTime.truncated(merged[0].updatedAt) == RecordTime.truncated(t0.addingTimeInterval(0.001)))
        try harness.pull(records: [ModuleHarness.tombstone(Note.self, id: "n1", owner: "nb", at: t0)])
        #expect(try notes(harness).count == 1, "a tombstone older than the local version deletes nothing")
        try harness.pull(records: [ModuleHarness.tombstone(Note.self, id: "n1", owner: "nb", at: t0.addingTimeInterval(5))])
        #expect(try notes(harness).isEmpty)
    }

    @Test("deleting removes the row and queues a tombstone that replaces the queued version")
    func deleteQueuesTombstone() throws {
        let harness = try ModuleHarness(NotebookModule())
        let records = harness.context().records
        try records.save(Note(id: "n1", text: "x", updatedAt: harness.clock.now))
        harness.clock.advance(by: 2)
        try records.delete(Note.self, id: "n1")
        #expect(try notes(harness).isEmpty)
        let queued = try harness.queuedRecords()
        #expect(queued.count == 1)
        #expect(queued["nb/note:n1"]?.deleted == true && queued["nb/note:n1"]?.payload == nil)
    }

    @Test("a record of an unknown kind, of a module this program lacks, or with a payload it cannot read is parked, not dropped")
    func unknownIsParked() throws {
        let harness = try ModuleHarness(NotebookModule())
        let at = harness.clock.now
        let outcomes = try harness.pull(records: [
            ModuleRecord(moduleId: "nb", clientId: "sketch:s1", updatedAt: OffsetTimestamp.utcMilliseconds(at), deleted: false, payload: .object([:])),
            ModuleRecord(moduleId: "zz", clientId: "thing:1", updatedAt: OffsetTimestamp.utcMilliseconds(at), deleted: false, payload: .string("x")),
            ModuleRecord(moduleId: "nb", clientId: "note:n9", updatedAt: OffsetTimestamp.utcMilliseconds(at), deleted: false,
                         payload: .object(["id": .string("n9")])),
        ])
        #expect(outcomes.allSatisfy { if case .parked = $0 { return true } else { return false } })
        #expect(try harness.database.writer.read(ParkedRecords.count) == 3)
        #expect(try notes(harness).isEmpty)
    }

    @Test("a module's record kind that is one of the core's, or declared twice, is refused naming the module")
    func kindClashes() {
        struct Draftish: UNITIModule, RecordSyncing {
            var types: [any SyncedRecord.Type]
            let descriptor = ModuleDescriptor(id: "dd", name: "Draftish", programName: "draftish", version: "1")
            func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
            var migrations: [ModuleMigration] { [] }
            var syncedRecordTypes: [any SyncedRecord.Type] { types }
        }
        #expect {
            _ = try RecordRouter(modules: [Draftish(types: [QuestionnaireDraft.self])])
        } throws: { ($0 as? UNITIError)?.message == "module Draftish declares the record kind 'draft', which is one of the core's" }
        #expect {
            _ = try RecordRouter(modules: [Draftish(types: [Note.self, Note.self])])
        } throws: { ($0 as? UNITIError)?.message == "module Draftish declares the record kind 'note' twice" }
        // The shared harness builds the router, so a module's own tests fail on such a declaration.
        #expect(throws: UNITIError.self) { _ = try ModuleHarness(Draftish(types: [Note.self, Note.self])) }
    }
}
