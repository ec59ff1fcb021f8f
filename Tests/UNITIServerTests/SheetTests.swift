import Foundation
import HummingbirdTesting
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Answer sheets")
struct SheetTests {
    @Test("a repeated upload is acknowledged as duplicate and stored once")
    func idempotentUpload() async throws {
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("jan", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
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
        let server = try TestServer()
        try await server.createStudy("open")
        try await server.addQuestionnaire(study: "open")
        try await server.run { client in
            let token = try await client.signUp("kai", on: server)
            _ = try await client.json(.post, "/api/v1/studies/open/join", token: token, body: JoinStudyRequest())
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
}
