import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Module records", .timeLimit(.minutes(10)))
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

    @Test("updated_since returns only records updated at or after that time, pages with the cursor, and a bad time is a 400 naming the parameter")
    func updatedSince() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("uma", on: server)
            let pushed = try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "tn", clientId: "old", updatedAt: "2027-01-01T08:00:00Z", payload: .number(1)),
                ModuleRecordUpsert(moduleId: "tn", clientId: "edge", updatedAt: "2027-01-01T10:00:00+01:00", payload: .number(2)),
                ModuleRecordUpsert(moduleId: "son", clientId: "new", updatedAt: "2027-01-02T08:00:00Z", payload: .number(3)),
                ModuleRecordUpsert(moduleId: "tn", clientId: "gone", updatedAt: "2027-01-03T08:00:00Z", deleted: true),
            ]))
            #expect(pushed.status == .ok)
            func pull(_ query: String) async throws -> ModuleRecordPage {
                let response = try await client.get("/api/v1/records?\(query)", token: token)
                #expect(response.status == .ok, "\(response.text)")
                return try response.decode(ModuleRecordPage.self)
            }
            // 10:00+01:00 is 09:00Z: the boundary is included, earlier records are not.
            let since = try await pull("updated_since=2027-01-01T09:00:00Z")
            #expect(since.records.map(\.clientId) == ["edge", "new", "gone"])
            #expect(since.records.last?.deleted == true)
            #expect(try await pull("updated_since=2027-01-01T09:00:01Z").records.map(\.clientId) == ["new", "gone"])
            #expect(try await pull("updated_since=2027-01-01T09:00:00Z&module=tn").records.map(\.clientId) == ["edge", "gone"])
            #expect(try await pull("updated_since=2027-02-01T00:00:00.5%2B02:00").records.isEmpty)

            let first = try await pull("updated_since=2027-01-01T09:00:00Z&limit=2")
            #expect(first.records.map(\.clientId) == ["edge", "new"])
            #expect(first.more)
            let rest = try await pull("updated_since=2027-01-01T09:00:00Z&limit=2&cursor=\(first.cursor)")
            #expect(rest.records.map(\.clientId) == ["gone"])
            #expect(!rest.more)

            for bad in ["yesterday", "2027-01-01", "2027-01-01T09:00:00", "2027-13-01T09:00:00Z", ""] {
                let response = try await client.get("/api/v1/records?updated_since=\(bad)", token: token)
                #expect(response.status == .badRequest, "\(bad)")
                let body = try response.decode(APIErrorBody.self)
                #expect(body.error.code == "invalid_updated_since")
                #expect(body.error.message.contains("updated_since"))
            }
        }
    }

    @Test("a record of the shell (uniti) or of a module this server does not know yet is kept; an id breaking the module id rule is refused")
    func moduleIds() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("vera", on: server)
            let accepted = try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: ModuleID.shell.rawValue, clientId: "draft-1", updatedAt: "2027-01-01T10:00:00Z", payload: .number(1)),
                ModuleRecordUpsert(moduleId: "zz9future", clientId: "x", updatedAt: "2027-01-01T10:00:00Z", payload: .number(2)),
            ]))
            #expect(try accepted.decode(ModuleRecordBatchResult.self).results.map(\.outcome) == [.applied, .applied])
            let all = try await client.get("/api/v1/records", token: token).decode(ModuleRecordPage.self)
            #expect(all.records.map(\.moduleId) == ["uniti", "zz9future"])
            let shell = try await client.get("/api/v1/records?module=uniti", token: token).decode(ModuleRecordPage.self)
            #expect(shell.records.map(\.clientId) == ["draft-1"])

            for bad in ["t", "Tn", "my-mod", "9tn", "tn_x", "abcdefghijklmnopq", ""] {
                let refused = try await client.json(.post, "/api/v1/records", token: token, body: ModuleRecordBatch(records: [
                    ModuleRecordUpsert(moduleId: "tn", clientId: "ok", updatedAt: "2027-01-01T10:00:00Z", payload: .number(3)),
                    ModuleRecordUpsert(moduleId: bad, clientId: "bad", updatedAt: "2027-01-01T10:00:00Z", payload: .number(4)),
                ]))
                #expect(refused.status == .unprocessableContent, "\(bad)")
                #expect(refused.errorCode == "invalid_module_id", "\(bad)")
                #expect(try refused.decode(APIErrorBody.self).error.message.contains(ModuleID.ruleDescription))
            }
            // A refused batch stores nothing, not even its valid records.
            #expect(try await client.get("/api/v1/records", token: token).decode(ModuleRecordPage.self).records.count == 2)
            #expect(try await client.get("/api/v1/records?module=my-mod", token: token).errorCode == "invalid_query")
        }
    }
}

