import Foundation
import Synchronization
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Prompt events on the server (issue 30): stored once per event, on both stores; adherence
/// counted from them by the shared definition; in the person's download; the route's limits.
@Suite("Prompt events and adherence on the server (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct PromptEventTests {
    let now = TestTime.now

    func with(_ kind: StoreKind, _ body: (ServerStore) async throws -> Void) async throws {
        try await StoreContractTests().with(kind, body)
    }

    /// The events of one prompt with these kinds, due at `due` (UTC seconds offset from `now`).
    func events(_ prompt: String, questionnaire: String, _ kinds: [PromptEventKind], due: TimeInterval = 0) -> [PromptEvent] {
        let utc = TimeZone(identifier: "UTC")!
        let dueAt = OffsetTimestamp(now.addingTimeInterval(due), in: utc)
        return kinds.map { kind in
            PromptEvent(promptId: prompt, moduleId: "tys", questionnaireId: questionnaire, kind: kind, at: dueAt, dueAt: dueAt,
                        expiresAt: kind == .delivered ? OffsetTimestamp(now.addingTimeInterval(due + 3600), in: utc) : nil,
                        channel: kind == .delivered ? "daemon" : nil, sheetId: kind == .completed || kind == .late ? UUID() : nil)
        }
    }

    func count(_ store: ServerStore, _ sql: SQL) async throws -> Int {
        let rows = try await store.rows(sql)
        return Int(try rows[0]["n"] as Int64)
    }

    func adherence(_ store: ServerStore, study: String, from: Date? = nil, to: Date? = nil) async throws -> [String: AdherenceCounts] {
        let lines = Mutex<[String: AdherenceCounts]>([:])
        try await store.adherence(studyId: study, from: from, to: to) { line in
            lines.withLock { $0["\(line.participant) \(line.questionnaireId)"] = line.counts }
        }
        return lines.withLock { $0 }
    }

    @Test("events are stored once however often sent; adherence per participant and questionnaire counts as the device does",
          arguments: StoreKind.allCases)
    func storedOnceAndCounted(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let ada = try await store.createUser(username: "ada", email: "ada@example.org", passwordHash: "h", language: "en",
                                                 pseudonym: "p-ada", now: now)
            let bo = try await store.createUser(username: "bo", email: "bo@example.org", passwordHash: "h", language: "en",
                                                pseudonym: "p-bo", now: now)
            for id in ["s1", "s2"] {
                try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": id]), access: .public, modules: [.tys]), now: now)
            }
            for (questionnaire, study) in [("daily", "s1"), ("evening", "s1"), ("other", "s2")] {
                let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: questionnaire).utf8), studyId: study)
                _ = try await store.addQuestionnaire(document, module: .tys, now: now)
            }
            let prompts: [(String, [PromptEventKind])] = [
                ("tys/daily/1", [.planned, .delivered, .opened, .completed]),
                ("tys/daily/2", [.planned, .delivered, .snoozed, .completed]),
                ("tys/daily/3", [.planned, .delivered, .expired, .late]),
                ("tys/daily/4", [.planned, .delivered, .expired]),
                ("tys/daily/5", [.planned, .delivered]),
                ("tys/daily/6", [.planned, .withdrawn]),
                ("tys/daily/7", [.planned]),
            ]
            var adaEvents = prompts.enumerated().flatMap { index, prompt in
                events(prompt.0, questionnaire: "daily", prompt.1, due: TimeInterval(index) * 86_400)
            }
            adaEvents += events("tys/evening/1", questionnaire: "evening", [.planned, .delivered, .expired])
            adaEvents += events("tys/other/1", questionnaire: "other", [.planned, .delivered, .completed])
            // Sent twice, the second time in another order and split: nothing changes.
            #expect(try await store.storePromptEvents(userId: ada, events: adaEvents, receivedAt: now) == adaEvents.map(\.id))
            _ = try await store.storePromptEvents(userId: ada, events: Array(adaEvents.reversed().prefix(10)), receivedAt: now)
            _ = try await store.storePromptEvents(userId: ada, events: adaEvents, receivedAt: now.addingTimeInterval(60))
            _ = try await store.storePromptEvents(userId: bo, events: events("tys/daily/1", questionnaire: "daily", [.planned, .delivered, .completed]),
                                                  receivedAt: now)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM prompt_events WHERE user_id = \(ada)") == adaEvents.count)

            var expected = AdherenceCounts()
            for prompt in prompts { expected.add(PromptFlags(kinds: prompt.1)) }
            let lines = try await adherence(store, study: "s1")
            #expect(Set(lines.keys) == ["p-ada daily", "p-ada evening", "p-bo daily"])
            #expect(lines["p-ada daily"] == expected)
            #expect(lines["p-ada daily"]?.answeredInTime == 2 && lines["p-ada daily"]?.late == 1 && lines["p-ada daily"]?.missed == 1)
            #expect(lines["p-ada daily"]?.open == 1 && lines["p-ada daily"]?.withdrawn == 1 && lines["p-ada daily"]?.delivered == 5)
            #expect(lines["p-ada evening"]?.missed == 1)
            #expect(lines["p-bo daily"]?.answeredInTime == 1)
            // By due day: the first three days only.
            let period = try await adherence(store, study: "s1", from: now, to: now.addingTimeInterval(3 * 86_400))
            #expect(period["p-ada daily"]?.delivered == 3)
            #expect(period["p-ada daily"]?.answeredInTime == 2)
            // A member of whom no prompt arrived is named for the coordinator; one with prompts and
            // one of another study are not.
            let cy = try await store.createUser(username: "cy", email: "cy@example.org", passwordHash: "h", language: "en",
                                                pseudonym: "p-cy", now: now)
            try await store.setMembership(studyId: "s1", userId: cy, status: .member, now: now)
            try await store.setMembership(studyId: "s1", userId: ada, status: .member, now: now)
            try await store.setMembership(studyId: "s2", userId: ada, status: .member, now: now)
            try await store.setMembership(studyId: "s2", userId: bo, status: .member, now: now)
            #expect(try await store.membersWithoutPrompts(studyId: "s1") == ["p-cy"])
            // Bo's prompts are of s1's questionnaire: in s2 nothing of theirs arrived.
            #expect(try await store.membersWithoutPrompts(studyId: "s2") == ["p-bo"])
            // The person's download holds every event as sent, and nobody else's.
            let data = try #require(try await store.personalData(userId: bo))
            #expect(data.promptEvents.map(\.kind) == [.planned, .delivered, .completed])
        }
    }

    @Test("the route takes 1 to 500 events, refuses an id its prompt and kind do not give, and names the ids it holds")
    func routeLimits() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("cleo", on: server)
            let empty = try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: []))
            #expect(empty.status == .unprocessableContent)
            let many = (0..<501).flatMap { events("tys/daily/\($0)", questionnaire: "daily", [.planned]) }
            #expect(try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: many)).status
                    == .unprocessableContent)
            var forged = events("tys/daily/1", questionnaire: "daily", [.completed])
            forged[0].id = UUID()
            let refused = try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: forged))
            #expect(refused.status == .unprocessableContent && refused.errorCode == "invalid_prompt_event")
            let sent = events("tys/daily/1", questionnaire: "daily", [.planned, .delivered])
            for _ in 0..<2 {
                let stored = try await client.json(.post, "/api/v1/prompts/events", token: token, body: PromptEventBatch(events: sent))
                #expect(stored.status == .ok)
                #expect(try stored.decode(PromptEventBatchResult.self).stored == sent.map(\.id))
            }
            let unauthenticated = try await client.json(.post, "/api/v1/prompts/events", body: PromptEventBatch(events: sent))
            #expect(unauthenticated.status == .unauthorized)
        }
        #expect(try await count(server.store, "SELECT COUNT(*) AS n FROM prompt_events") == 2)
    }

    @Test("questionnaire update --completion-window stores a new version with the window; a window outside 1 to 1440 is refused")
    func completionWindowCommand() async throws {
        let server = try TestServer()
        try await server.createStudy("pilot", modules: [.tys])
        try await server.addQuestionnaire(study: "pilot", module: .tys)
        let db = ["--database", server.databasePath]
        try await runServerCommand(["questionnaire", "update", "daily", "--study", "pilot", "--completion-window", "30"] + db)
        let newest = try #require(try await server.store.latestQuestionnaires(studyId: "pilot").first)
        #expect(newest.version == 2 && newest.definition.version == 2)
        #expect(newest.definition.completionWindowMinutes == 30)
        #expect(try await server.store.questionnaire(id: "daily", version: 1)?.definition.completionWindowMinutes == nil)
        await #expect(throws: Error.self) {
            try await runServerCommand(["questionnaire", "update", "daily", "--study", "pilot", "--completion-window", "0"] + db)
        }
        await #expect(throws: Error.self) {
            try await runServerCommand(["questionnaire", "update", "nope", "--study", "pilot", "--completion-window", "30"] + db)
        }
    }
}
