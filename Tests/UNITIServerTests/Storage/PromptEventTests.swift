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

    @Test("""
        the prompt table has a row per prompt with its outcome (adding up to the adherence lines), the study day and index \
        in the participant's local day, delivery, opening and the answering sheet's timing
        """, arguments: StoreKind.allCases)
    func promptTable(_ kind: StoreKind) async throws {
        try await with(kind) { store in
            let zone = TimeZone(secondsFromGMT: 3600)!
            let ada = try await store.createUser(username: "ada", email: "ada@example.org", passwordHash: "h", language: "en",
                                                 pseudonym: "p-ada", now: now)
            let bo = try await store.createUser(username: "bo", email: "bo@example.org", passwordHash: "h", language: "en",
                                                pseudonym: "p-bo", now: now)
            try await store.createStudy(StudyRecord(id: "s1", title: LocalizedText(["en": "s1"]), access: .public, modules: [.tys]), now: now)
            let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "daily").utf8), studyId: "s1")
            _ = try await store.addQuestionnaire(document, module: .tys, now: now)
            // Ada joins at 23:30 local time (22:30 UTC); her first prompts are the next local day.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let joined = calendar.date(from: DateComponents(year: 2027, month: 1, day: 14, hour: 23, minute: 30))!
            try await store.setMembership(studyId: "s1", userId: ada, status: .member, now: joined)
            try await store.setMembership(studyId: "s1", userId: bo, status: .member, now: joined)
            func at(_ day: Int, _ hour: Int, _ minute: Int = 0, _ second: Int = 0) -> OffsetTimestamp {
                OffsetTimestamp(calendar.date(from: DateComponents(year: 2027, month: 1, day: day, hour: hour, minute: minute, second: second))!, in: zone)
            }
            // The sheet that answers the first prompt: first answer 90 s, saved 300 s after delivery (09:02).
            var answering = sheet(startedAt: at(15, 9, 3).text)
            answering.answers = answering.answers.mapValues { Answer(value: $0.value, answeredAt: at(15, 9, 3, 30)) }
            answering.answers["mood"] = Answer(value: .number(2), answeredAt: at(15, 9, 7))
            answering.endedAt = at(15, 9, 7)
            _ = try await store.storeSheets(userId: ada, sheets: [ValidatedSheet(sheet: answering, studyId: "s1")], receivedAt: now)
            func prompt(_ id: String, due: OffsetTimestamp, _ kinds: [PromptEventKind], delivered: OffsetTimestamp? = nil,
                        sheet: UUID? = nil) -> [PromptEvent] {
                kinds.map { kind in
                    let time = kind == .planned ? due : (delivered ?? due)
                    return PromptEvent(promptId: id, moduleId: "tys", questionnaireId: "daily", kind: kind, at: time, dueAt: due,
                                       expiresAt: kind == .delivered ? OffsetTimestamp(time.date.addingTimeInterval(1800), in: zone) : nil,
                                       channel: kind == .delivered ? "shell" : nil,
                                       sheetId: kind == .completed || kind == .late ? (sheet ?? UUID()) : nil)
                }
            }
            let adaEvents = prompt("tys/daily/2027-01-15T09:00", due: at(15, 9), [.planned, .delivered, .opened, .completed],
                                   delivered: at(15, 9, 2), sheet: answering.id)
                + prompt("tys/daily/2027-01-15T13:00", due: at(15, 13), [.planned, .delivered, .snoozed, .expired, .late])
                + prompt("tys/daily/2027-01-15T23:30", due: at(15, 23, 30), [.planned, .delivered, .expired])
                + prompt("tys/daily/2027-01-16T00:30", due: at(16, 0, 30), [.planned, .withdrawn])
                + prompt("tys/daily/2027-01-16T10:00", due: at(16, 10), [.planned, .delivered])
                + prompt("tys/daily/2027-01-16T18:00", due: at(16, 18), [.planned])
            // Sent in another order than they happened: the table orders by due time.
            _ = try await store.storePromptEvents(userId: ada, events: adaEvents.reversed(), receivedAt: now)
            _ = try await store.storePromptEvents(userId: bo, events: prompt("tys/daily/2027-01-15T09:00", due: at(15, 9), [.planned, .delivered, .completed]),
                                                  receivedAt: now)

            let rows = Mutex<[PromptTable.Row]>([])
            let count = try await PromptTable.rows(of: "s1", in: store) { row in rows.withLock { $0.append(row) } }
            let table = rows.withLock { $0 }
            #expect(count == 7 && table.count == 7)
            let adas = table.filter { $0.participant == "p-ada" }
            #expect(adas.map(\.outcome) == ["completed", "late", "missed", "withdrawn", "open", "planned"])
            #expect(adas.map(\.studyDay) == [2, 2, 2, 3, 3, 3])
            #expect(adas.map(\.dayIndex) == [1, 2, 3, 1, 2, 3])
            let first = adas[0]
            #expect(first.delivered == at(15, 9, 2) && first.channel == "shell" && first.opened == at(15, 9, 2) && !first.snoozed)
            #expect(first.sheet == answering.id && first.secondsToFirstAnswer == 90 && first.secondsToSaving == 300)
            #expect(adas[1].snoozed && adas[1].sheet != nil && adas[1].secondsToSaving == nil)  // its sheet is not on the server
            #expect(first.cells[PromptTable.header.firstIndex(of: "scheduled_local")!] == "2027-01-15T09:00:00+01:00")
            #expect(first.cells[PromptTable.header.firstIndex(of: "scheduled_utc")!] == "2027-01-15T08:00:00Z")
            #expect(first.cells[PromptTable.header.firstIndex(of: "utc_offset_minutes")!] == "60")
            #expect(first.cells.count == PromptTable.header.count)
            // Per participant, the outcomes add up to the adherence report's line.
            let lines = try await adherence(store, study: "s1")
            for participant in ["p-ada", "p-bo"] {
                var counts = AdherenceCounts()
                for row in table where row.participant == participant {
                    switch row.outcome {
                    case "completed": counts.add(PromptFlags(delivered: true, completed: true))
                    case "late": counts.add(PromptFlags(delivered: true, late: true))
                    case "missed": counts.add(PromptFlags(delivered: true, expired: true))
                    case "open": counts.add(PromptFlags(delivered: true))
                    case "withdrawn": counts.add(PromptFlags(withdrawn: true))
                    default: break
                    }
                }
                #expect(lines["\(participant) daily"] == counts, "\(participant)")
            }
        }
    }

    @Test("the prompt table's local day (whole days at the due time's offset) is the day a calendar in that offset names, east and west of UTC, before and after 1970")
    func localDayAsACalendarCountsIt() {
        var calendar = Calendar(identifier: .gregorian), utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        for offset in [-12 * 3600, -5 * 3600, -3600 * 9 / 2, 0, 3600, 5 * 3600 + 1800, 14 * 3600] {
            calendar.timeZone = TimeZone(secondsFromGMT: offset)!
            for seconds in stride(from: -200_000.0, through: 2_000_000_000, by: 7_777_777) + [-1, 0, 1, 86_399, 86_400, 1_799_999_999.5] {
                let date = Date(timeIntervalSince1970: seconds)
                // The local date's name, counted in days from 1970-01-01.
                let local = calendar.dateComponents([.year, .month, .day], from: date)
                let days = utc.dateComponents([.day], from: Date(timeIntervalSince1970: 0), to: utc.date(from: local)!).day!
                #expect(PromptTable.day(of: date, offsetSeconds: offset) == days, "\(seconds) at \(offset)")
            }
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
        // The late-answer allowance: a version of its own, the window kept; the same again stores nothing.
        try await runServerCommand(["questionnaire", "update", "daily", "--study", "pilot", "--late-answers", "15"] + db)
        try await runServerCommand(["questionnaire", "update", "daily", "--study", "pilot", "--late-answers", "15"] + db)
        let late = try #require(try await server.store.latestQuestionnaires(studyId: "pilot").first)
        #expect(late.version == 3 && late.definition.lateAnswerMinutes == 15 && late.definition.completionWindowMinutes == 30)
        let changes = try await server.store.auditTrail(studyId: "pilot").last?.detail["changes"]
        #expect(changes?["lateAnswerMinutes"] == .object(["from": .null, "to": .number(15)]))
        for refused in [["--late-answers", "-1"], ["--late-answers", "1441"], []] {
            #expect(throws: (any Error).self, "\(refused)") {
                _ = try UNITIServerCommand.parseAsRoot(["questionnaire", "update", "daily", "--study", "pilot"] + refused + db)
            }
        }
    }

    @Test("questionnaire update sets the windows per weekday, prompts a day, the gap, the shift and the days; a gap shorter than the completion window, prompts that do not fit and an unreadable window are refused and nothing is stored")
    func scheduleCommand() async throws {
        let server = try TestServer()
        try await server.createStudy("pilot", modules: [.tys])
        try await server.addQuestionnaire(study: "pilot", module: .tys)
        let ema = #"{"id": "ema", "version": 1, "title": {"en": "Mood"}, "kind": "repeating", "schedule": {"frequency": "daily", "timing": "between", "amount": 2}, "items": [{"type": "slider", "label": "mood", "text": {"en": "Mood?"}, "min": 0, "max": 10, "step": 1}]}"#
        _ = try await server.store.addQuestionnaire(try QuestionnaireImport.document(from: Data(ema.utf8), studyId: "pilot"), module: .tys, now: server.clock.now())
        let db = ["--database", server.databasePath]
        let update = ["questionnaire", "update", "ema", "--study", "pilot"]
        try await runServerCommand(update + ["--completion-window", "30", "--window", "mon-fri=08:00-22:00", "--window", "sat,sun=10:00-22:00",
                                             "--prompts", "4", "--gap", "45", "--shift", "120", "--start-on-day", "1", "--end-on-day", "28"] + db)
        let newest = try #require(try await server.store.latestQuestionnaires(studyId: "pilot").first { $0.id == "ema" })
        let schedule = try #require(newest.definition.schedule)
        #expect(newest.version == 2)
        #expect(schedule.windows == [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "22:00"),
                                     PromptWindow(days: ["sat", "sun"], from: "10:00", to: "22:00")])
        #expect(schedule.amount == 4 && schedule.minimumGapMinutes == 45 && schedule.windowShiftMinutes == 120)
        #expect(schedule.startOnDay == 1 && schedule.endOnDay == 28 && newest.definition.completionWindowMinutes == 30)
        let line = try #require(try await server.store.auditTrail(studyId: "pilot").last)
        #expect(line.action == "questionnaire.update" && line.detail["changes"]?.objectKeys == ["completionWindowMinutes", "schedule"])

        // Refused by the validator: the gap is shorter than the completion window; 20 prompts
        // 45 minutes apart do not fit 10:00-22:00. Nothing is stored.
        for refused in [["--gap", "20"], ["--prompts", "20"]] {
            await #expect(throws: (any Error).self, "\(refused)") { try await runServerCommand(update + refused + db) }
        }
        // Not a window at all, refused before the database is opened; a one-time questionnaire has no schedule to change.
        for refused in [["--window", "mon-fri=22:00-08:00"], ["--window", "someday=08:00-09:00"], ["--shift"]] {
            #expect(throws: (any Error).self, "\(refused)") { _ = try UNITIServerCommand.parseAsRoot(update + refused + db) }
        }
        await #expect(throws: (any Error).self) {
            try await runServerCommand(["questionnaire", "update", "daily", "--study", "pilot", "--prompts", "3"] + db)
        }
        #expect(try await server.store.latestQuestionnaires(studyId: "pilot").first { $0.id == "ema" }?.version == 2)

        // `standard` goes back to 08:00-22:00 every day.
        try await runServerCommand(update + ["--window", "standard"] + db)
        let standard = try #require(try await server.store.latestQuestionnaires(studyId: "pilot").first { $0.id == "ema" })
        #expect(standard.version == 3 && standard.definition.schedule?.windows == nil && standard.definition.schedule?.minimumGapMinutes == 45)
    }
}

