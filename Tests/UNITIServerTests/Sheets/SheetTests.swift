import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Answer sheets", .timeLimit(.minutes(10)))
struct SheetTests {
    /// A server with the public study "open" and its daily questionnaire, and `name` signed up
    /// and joined: `body` gets the client and their access token.
    func withJoinedParticipant(_ name: String, _ body: @Sendable (any TestClientProtocol, String) async throws -> Void) async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp(name, on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            try await body(client, token)
        }
    }

    @Test("a repeated upload is acknowledged as duplicate and stored once")
    func idempotentUpload() async throws {
        try await withJoinedParticipant("jan") { client, token in
            let one = sheet()
            let first = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [one]))
            #expect(try first.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            let second = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [one, sheet()]))
            #expect(try second.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.duplicate, .stored])
            let page = try await client.get("/api/v1/sheets?perPage=10", token: token).decode(AnswerSheetPage.self)
            #expect(page.total == 2)
            let stored = try #require(page.sheets.first { $0.sheet.id == one.id })
            #expect(stored.sheet == one)
            #expect(stored.sheet.endedAt?.text == "2027-01-15T09:05:00+01:00")
            #expect(stored.sheet.sensors?.microphone?.dbfs == -42.5)
            #expect(stored.studyId == "open")
        }
    }

    @Test("an unknown label or a value out of range gets 422 naming the item, and nothing of the batch is stored")
    func invalidSheetRejected() async throws {
        try await withJoinedParticipant("kai") { client, token in
            var unknown = sheet()
            unknown.answers["colour"] = Answer(value: .text("blue"), answeredAt: unknown.startedAt)
            let first = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(), unknown]))
            #expect(first.status == .unprocessableContent)
            #expect(first.errorCode == "unknown_item")
            #expect(try first.decode(APIErrorBody.self).error.message.contains("'colour'"))

            let outOfRange = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: 140)]))
            #expect(outOfRange.status == .unprocessableContent)
            #expect(try outOfRange.decode(APIErrorBody.self).error.message.contains("'loudness'"))
            let noOption = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(mood: 7)]))
            #expect(noOption.errorCode == "invalid_answer")
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 0)
        }
    }

    @Test("a sheet for a questionnaire of a study not joined, or unknown, is 409 questionnaire_unavailable and is stored once joined")
    func unavailableQuestionnaireWaits() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("lea", on: server)
            let early = sheet()
            for batch in [[early], [sheet(questionnaire: "nowhere")], [early, sheet(version: 2)]] {
                let response = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: batch))
                #expect(response.status == .conflict)
                #expect(response.errorCode == AnswerSheetBatchResult.questionnaireUnavailableCode)
                #expect(try response.decode(APIErrorBody.self).error.message.contains("join the study"))
            }
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            let later = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [early]))
            #expect(try later.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            // An invalid answer is still a validation failure, not a wait.
            let invalid = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [sheet(loudness: 140)]))
            #expect(invalid.status == .unprocessableContent)
        }
    }

    @Test("concurrent uploads (sharing transactions) each get their own outcomes, and every sheet is stored once")
    func concurrentUploads() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("max", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            let shared = sheet()
            // 40 uploads at once: each has a sheet of its own, and all carry the same shared sheet.
            let outcomes = try await withThrowingTaskGroup(of: [AnswerSheetBatchResult.Outcome].self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let response = try await client.json(.post, "/api/v1/sheets", token: token,
                                                             body: AnswerSheetBatch(sheets: [sheet(loudness: Double(index)), shared]))
                        return try response.decode(AnswerSheetBatchResult.self).results.map(\.outcome)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.count == 40)
            #expect(outcomes.allSatisfy { $0.first == .stored })
            #expect(outcomes.filter { $0.last == .stored }.count == 1)
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 41)
        }
    }

    @Test("a second user reads none of the first user's sheets or records")
    func isolation() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let first = try await client.signUp("lena", on: server)
            let second = try await client.signUp("mira", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: first, body: JoinStudyRequest())
            let shared = sheet()
            _ = try await client.json(.post, "/api/v1/sheets", token: first, body: AnswerSheetBatch(sheets: [shared]))
            _ = try await client.json(.post, "/api/v1/records", token: first, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "tn", clientId: "event-1", updatedAt: "2027-01-15T10:00:00Z", payload: .string("private"))]))

            #expect(try await client.get("/api/v1/sheets", token: second).decode(AnswerSheetPage.self).total == 0)
            #expect(try await client.get("/api/v1/records", token: second).decode(ModuleRecordPage.self).records.isEmpty)
            // The same client ids from another user do not touch the first user's data.
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: second, body: JoinStudyRequest())
            let mine = try await client.json(.post, "/api/v1/sheets", token: second, body: AnswerSheetBatch(sheets: [shared]))
            #expect(try mine.decode(AnswerSheetBatchResult.self).results.map(\.outcome) == [.stored])
            _ = try await client.json(.post, "/api/v1/records", token: second, body: ModuleRecordBatch(records: [
                ModuleRecordUpsert(moduleId: "tn", clientId: "event-1", updatedAt: "2027-01-16T10:00:00Z", deleted: true)]))
            let firstRecords = try await client.get("/api/v1/records", token: first).decode(ModuleRecordPage.self)
            #expect(firstRecords.records.map(\.deleted) == [false])
            #expect(firstRecords.records.first?.payload == .string("private"))
            #expect(try await client.get("/api/v1/sheets").status == .unauthorized)
        }
    }

    @Test("comparison with all users is given only from 5 participants on")
    func comparisonNeedsFiveParticipants() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            var tokens: [String] = []
            for (index, name) in ["nora", "otto", "paul", "rita", "sara"].enumerated() {
                let token = try await client.signUp(name, on: server)
                tokens.append(token)
                _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
                // Participant i answers loudness 10*(i+1) twice: means 10, 20, 30, 40, 50.
                let value = Double(10 * (index + 1))
                _ = try await client.json(.post, "/api/v1/sheets", token: token,
                                          body: AnswerSheetBatch(sheets: [sheet(loudness: value - 5), sheet(loudness: value + 5)]))
                let result = try await client.get("/api/v1/comparison?questionnaire=daily&label=loudness", token: tokens[0]).decode(ComparisonReport.self)
                if index < 4 {
                    #expect(result.available == false)
                    #expect(result.reason == "not_enough_participants")
                    #expect(result.ownMean == nil)
                }
            }
            let result = try await client.get("/api/v1/comparison?questionnaire=daily&label=loudness", token: tokens[1]).decode(ComparisonReport.self)
            #expect(result.available)
            #expect(result.participants == 5)
            #expect(result.ownMean == 20)
            #expect(result.allParticipantsMean == 30)
            #expect(result.percentile == 30)
            let outside = try await client.get("/api/v1/comparison?questionnaire=daily&label=loudness&from=2028-01-01T00:00:00Z", token: tokens[1])
            #expect(try outside.decode(ComparisonReport.self).participants == 0)
        }
    }

    @Test("sheets/changes gives only the caller's own sheets, oldest stored first, its cursor continues exactly where a page stopped, and its body is the payload's encoding")
    func changesByCursor() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let anna = try await client.signUp("anna", on: server)
            let ben = try await client.signUp("ben", on: server)
            for token in [anna, ben] {
                _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            }
            func upload(_ token: String, _ sheets: [AnswerSheet]) async throws {
                let response = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: sheets))
                #expect(try response.decode(AnswerSheetBatchResult.self).results.allSatisfy { $0.outcome == .stored })
            }
            func changes(_ token: String, _ query: String = "") async throws -> AnswerSheetChanges {
                let response = try await client.get("/api/v1/sheets/changes?\(query)", token: token)
                #expect(response.status == .ok, "\(response.text)")
                let page = try response.decode(AnswerSheetChanges.self)
                // The body, spliced from the sheets as stored, is byte for byte the payload's encoding.
                #expect(response.text == (try JSONCoding.string(page)))
                return page
            }
            // Started in the reverse order of upload: the changes follow the upload, not the start.
            let annas = (0..<5).map { sheet(loudness: Double($0), startedAt: "2027-01-\(20 - $0)T09:00:00+01:00") }
            let bens = [sheet(loudness: 70), sheet(loudness: 80)]
            try await upload(anna, Array(annas[0..<3]))
            try await upload(ben, [bens[0]])
            try await upload(anna, Array(annas[3...]))
            try await upload(ben, [bens[1]])

            var pages: [[UUID]] = []
            var cursor = ""
            var more = true
            while more {
                let page = try await changes(anna, "limit=2" + (cursor.isEmpty ? "" : "&cursor=\(cursor)"))
                pages.append(page.sheets.map(\.sheet.id))
                #expect(page.sheets.allSatisfy { $0.studyId == "open" })
                cursor = page.cursor
                more = page.more
            }
            #expect(pages.map(\.count) == [2, 2, 1])
            #expect(pages.flatMap { $0 } == annas.map(\.id))

            let idle = try await changes(anna, "cursor=\(cursor)")
            #expect(idle.sheets.isEmpty)
            #expect(idle.cursor == cursor)
            #expect(!idle.more)
            let late = sheet(loudness: 99)
            try await upload(anna, [late])
            try await upload(ben, [sheet(loudness: 90)])
            #expect(try await changes(anna, "cursor=\(cursor)").sheets.map(\.sheet.id) == [late.id])

            let all = try await changes(anna)
            #expect(all.sheets.map(\.sheet.id) == annas.map(\.id) + [late.id])
            #expect(!all.more)
            #expect(try await changes(ben, "limit=2").sheets.map(\.sheet.id) == bens.map(\.id))
            #expect(try await client.get("/api/v1/sheets/changes").status == .unauthorized)
        }
    }

    @Test("an upload with the device's changes cursor is answered with the cursor past its sheets unless another device's sheet lies after it; without one the answer has no cursor; a bad one stores nothing")
    func uploadAnswersChangesCursor() async throws {
        try await withJoinedParticipant("dora") { client, token in
            func upload(_ sheets: [AnswerSheet], cursor: String?) async throws -> AnswerSheetBatchResult {
                let response = try await client.json(.post, "/api/v1/sheets" + (cursor.map { "?cursor=\($0)" } ?? ""), token: token,
                                                     body: AnswerSheetBatch(sheets: sheets))
                #expect(response.status == .ok, "\(response.text)")
                // The field is absent, not null, when there is no cursor: the answer stays as before.
                #expect(response.text.contains("\"cursor\"") == (try response.decode(AnswerSheetBatchResult.self).cursor != nil))
                return try response.decode(AnswerSheetBatchResult.self)
            }
            func changes(_ cursor: String) async throws -> AnswerSheetChanges {
                try await client.get("/api/v1/sheets/changes?cursor=\(cursor)", token: token).decode(AnswerSheetChanges.self)
            }
            let start = try await client.get("/api/v1/sheets/changes", token: token).decode(AnswerSheetChanges.self).cursor
            #expect(try await upload([sheet(), sheet()], cursor: nil).cursor == nil)
            let pulled = try await changes(start)
            #expect(pulled.sheets.count == 2)

            // The phone's own batch is all there is after its cursor: it need not fetch it back.
            let own = try #require(try await upload([sheet(), sheet(), sheet()], cursor: pulled.cursor).cursor)
            #expect(try await changes(own).sheets.isEmpty)
            #expect(try await changes(pulled.cursor).cursor == own)

            // The laptop uploads meanwhile: the phone's next answer has no cursor and its pull finds both.
            let laptop = sheet()
            _ = try await upload([laptop], cursor: nil)
            let phone = sheet()
            #expect(try await upload([phone], cursor: own).cursor == nil)
            #expect(try await changes(own).sheets.map(\.sheet.id) == [laptop.id, phone.id])

            for bad in ["garbage", "c-1"] {
                let refused = try await client.json(.post, "/api/v1/sheets?cursor=\(bad)", token: token, body: AnswerSheetBatch(sheets: [sheet()]))
                #expect(refused.status == .badRequest && refused.errorCode == "invalid_cursor", "\(bad)")
            }
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 7)
        }
    }

    @Test("sheets/changes refuses a malformed cursor and a limit outside 1 to 200 with 400 and the usual error body")
    func changesRefusesBadQueries() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("carl", on: server)
            for cursor in ["garbage", "c", "c-1", "x12", "c!", "c" + String(repeating: "z", count: 16)] {
                let response = try await client.get("/api/v1/sheets/changes?cursor=\(cursor)", token: token)
                #expect(response.status == .badRequest, "\(cursor)")
                let body = try response.decode(APIErrorBody.self)
                #expect(body.error.code == "invalid_cursor", "\(cursor)")
                #expect(body.error.message.contains("cursor"))
            }
            for limit in ["0", "201", "many"] {
                let response = try await client.get("/api/v1/sheets/changes?limit=\(limit)", token: token)
                #expect(response.status == .badRequest, "\(limit)")
                #expect(response.errorCode == "invalid_query", "\(limit)")
            }
            #expect(try await client.get("/api/v1/sheets/changes?limit=200", token: token).status == .ok)
        }
    }

    @Test("a sheet's owner is stored and comes back unchanged in both listings; a sheet sent without one comes back without; an invalid owner is refused")
    func ownerRoundTrip() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("dora", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
            var byModule = sheet(startedAt: "2027-01-17T09:00:00+01:00")
            byModule.owner = .tyt
            var byShell = sheet(startedAt: "2027-01-16T09:00:00+01:00")
            byShell.owner = .shell
            let unowned = sheet(startedAt: "2027-01-15T09:00:00+01:00")
            _ = try await client.json(.post, "/api/v1/sheets", token: token, body: AnswerSheetBatch(sheets: [byModule, byShell, unowned]))

            let changes = try await client.get("/api/v1/sheets/changes", token: token)
            #expect(try changes.decode(AnswerSheetChanges.self).sheets.map(\.sheet) == [byModule, byShell, unowned])
            // On the wire: the id as text, and no key at all for a sheet without owner.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(changes.body.readableBytesView)) as? [String: Any])
            let sheets = try #require(json["sheets"] as? [[String: Any]]).compactMap { $0["sheet"] as? [String: Any] }
            #expect(sheets.map { $0["owner"] as? String } == ["tyt", "uniti", nil])
            #expect(sheets.last?.keys.contains("owner") == false)

            let page = try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self)
            #expect(page.sheets.map(\.sheet) == [byModule, byShell, unowned])

            var body = try JSONSerialization.jsonObject(with: JSONEncoder().encode(AnswerSheetBatch(sheets: [sheet()]))) as! [String: Any]
            var sent = (body["sheets"] as! [[String: Any]])[0]
            sent["owner"] = "Not-A-Module"
            body["sheets"] = [sent]
            let refused = try await client.execute(uri: "/api/v1/sheets", method: .post,
                                                   headers: [.contentType: "application/json", .authorization: "Bearer \(token)"],
                                                   body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))) { $0 }
            #expect(refused.status == .badRequest)
            #expect(refused.errorCode == "invalid_body")
            #expect(try await client.get("/api/v1/sheets", token: token).decode(AnswerSheetPage.self).total == 3)
        }
    }
}

