import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Module records")
struct RecordTests {
    @Test("pull by cursor returns only later changes, tombstones included; the newest update time wins")
    func cursorAndTombstones() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("tom", on: server)
            func push(_ records: [ModuleRecordUpsert]) async throws -> [ModuleRecordBatchResult.Outcome] {
                try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: records))
                    .decode(ModuleRecordBatchResult.self).results.map(\.outcome)
            }
            #expect(try await push([
                ModuleRecordUpsert(moduleId: "tn", clientId: "a", updatedAt: "2027-01-01T10:00:00Z", payload: .number(1)),
                ModuleRecordUpsert(moduleId: "son", clientId: "b", updatedAt: "2027-01-01T10:00:00Z", payload: .number(2)),
            ]) == [.applied, .applied])
            let first = try await client.get("/api/v1/records", token: token).decode(ModuleRecordPage.self)
            #expect(first.records.map(\.clientId) == ["a", "b"])

            // Older update loses, newer wins, deletion is a tombstone.
            #expect(try await push([ModuleRecordUpsert(moduleId: "tn", clientId: "a", updatedAt: "2027-01-01T09:00:00Z", payload: .number(0))]) == [.stale])
            #expect(try await push([
                ModuleRecordUpsert(moduleId: "tn", clientId: "a", updatedAt: "2027-01-01T11:00:00+01:00", payload: .number(9)),
            ]) == [.stale])
            #expect(try await push([ModuleRecordUpsert(moduleId: "son", clientId: "b", updatedAt: "2027-01-02T10:00:00Z", deleted: true)]) == [.applied])

            let next = try await client.get("/api/v1/records?cursor=\(first.cursor)", token: token).decode(ModuleRecordPage.self)
            #expect(next.records.map(\.clientId) == ["b"])
            #expect(next.records.first?.deleted == true)
            #expect(next.records.first?.payload == nil)
            let none = try await client.get("/api/v1/records?cursor=\(next.cursor)", token: token).decode(ModuleRecordPage.self)
            #expect(none.records.isEmpty)
            #expect(none.cursor == next.cursor)

            let paged = try await client.get("/api/v1/records?limit=1", token: token).decode(ModuleRecordPage.self)
            #expect(paged.records.count == 1)
            #expect(paged.more)
            let onlyTN = try await client.get("/api/v1/records?module=tn", token: token).decode(ModuleRecordPage.self)
            #expect(onlyTN.records.map(\.payload) == [.number(1)])
            #expect(try await client.get("/api/v1/records?cursor=garbage", token: token).errorCode == "invalid_cursor")
        }
    }
}
