import Foundation
import Synchronization
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// The kept counts behind the console's study pages (``TallySchema``): whatever is uploaded,
/// repeated, moved from kind to kind, erased or deleted with an account, and however many uploads
/// and folds run at once, the tallies say what counting the sheets and prompts themselves says.
@Suite("Kept counts of sheets and prompts (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct TallyTests {
    let now = TestTime.now
    let utc = TimeZone(identifier: "UTC")!

    /// `kinds` of one prompt of `questionnaire`, due `due` seconds after `now`, arriving as sent.
    func events(_ prompt: String, _ questionnaire: String, _ kinds: [PromptEventKind], due: TimeInterval) -> [PromptEvent] {
        let dueAt = OffsetTimestamp(now.addingTimeInterval(due), in: utc)
        return kinds.map { kind in
            PromptEvent(promptId: prompt, moduleId: "tys", questionnaireId: questionnaire, kind: kind, at: dueAt, dueAt: dueAt,
                        expiresAt: kind == .delivered ? OffsetTimestamp(now.addingTimeInterval(due + 1800), in: utc) : nil,
                        channel: kind == .delivered ? "daemon" : nil, sheetId: kind == .completed || kind == .late ? UUID() : nil)
        }
    }

    func lines(_ store: ServerStore, _ sql: SQL) async throws -> [String] {
        try await store.rows(sql).map { try $0["line"] as String }
    }

    /// The tallies against the counts of the rows themselves. A prompt group's arrival time is
    /// compared per participant and questionnaire, which is what is read (a prompt that moved to
    /// other kinds leaves its group's time as it was).
    func expectAgreement(_ store: ServerStore, _ comment: Comment) async throws {
        try await store.foldDayTallies()
        #expect(try await lines(store, """
            SELECT study_id || ' ' || user_id || ' ' || sheets || ' ' || last_answer_at AS line FROM member_tallies ORDER BY 1
            """) == lines(store, """
            SELECT study_id || ' ' || user_id || ' ' || COUNT(*) || ' ' || MAX(COALESCE(ended_at, started_at)) AS line
            FROM answer_sheets GROUP BY study_id, user_id ORDER BY 1
            """), comment)
        #expect(try await lines(store, """
            SELECT questionnaire_id || ' ' || user_id || ' ' || kinds || ' ' || prompts AS line FROM prompt_tallies ORDER BY 1
            """) == lines(store, """
            SELECT questionnaire_id || ' ' || user_id || ' ' || kinds || ' ' || COUNT(*) AS line FROM prompts
            WHERE questionnaire_id IS NOT NULL GROUP BY questionnaire_id, user_id, kinds ORDER BY 1
            """), comment)
        #expect(try await lines(store, """
            SELECT questionnaire_id || ' ' || user_id || ' ' || MAX(last_received_at) AS line FROM prompt_tallies
            GROUP BY questionnaire_id, user_id ORDER BY 1
            """) == lines(store, """
            SELECT questionnaire_id || ' ' || user_id || ' ' || MAX(received_at) AS line FROM prompts
            WHERE questionnaire_id IS NOT NULL GROUP BY questionnaire_id, user_id ORDER BY 1
            """), comment)
        let day: (String) -> SQL = { column in "\(sqlite: "CAST(\(column) / 86400 AS INTEGER)", postgres: "CAST(FLOOR(\(column) / 86400) AS bigint)")" }
        #expect(try await lines(store, """
            SELECT counted || ' ' || subject || ' ' || day || ' ' || kinds || ' ' || n AS line FROM day_tallies ORDER BY 1
            """) == lines(store, """
            SELECT line FROM (
                SELECT 'sheets ' || study_id || ' ' || \(day("started_at")) || ' 0 ' || COUNT(*) AS line FROM answer_sheets
                GROUP BY study_id, \(day("started_at"))
                UNION ALL
                SELECT 'prompts ' || questionnaire_id || ' ' || \(day("due_at")) || ' ' || kinds || ' ' || COUNT(*) AS line FROM prompts
                WHERE questionnaire_id IS NOT NULL GROUP BY questionnaire_id, \(day("due_at")), kinds) AS counted
            ORDER BY 1
            """), comment)
        #expect(try await lines(store, "SELECT 'left' || COUNT(*) AS line FROM day_tally_changes") == ["left0"], comment)
    }

    @Test("uploads, repeats, kinds that change, leaving with deletion and a deleted account keep the tallies exact",
          arguments: StoreKind.allCases)
    func exactThroughEveryWrite(_ kind: StoreKind) async throws {
        try await StoreContractTests().with(kind) { store in
            var users: [Int64] = []
            for name in ["ada", "bo", "cy"] {
                users.append(try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "h", language: "en",
                                                        pseudonym: "p-\(name)", now: now))
            }
            for id in ["s1", "s2"] {
                try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": id]), access: .public, modules: [.tys]), now: now)
                let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "\(id)-daily").utf8), studyId: id)
                _ = try await store.addQuestionnaire(document, module: .tys, now: now)
                for user in users { try await store.setMembership(studyId: id, userId: user, status: .member, now: now) }
            }
            // Sheets of both studies over several days, sent out of order and some twice.
            for (index, user) in users.enumerated() {
                for day in [5, 1, 3, 1, 2] {
                    for study in ["s1", "s2"] where day % 2 == 0 || study == "s1" {
                        let started = Timestamps.format(now.addingTimeInterval(Double(day) * 86_400 + Double(index) * 600))
                        let answered = sheet(UUID(uuidString: "00000000-0000-4000-8000-\(String(format: "%012d", index * 100 + day * 10 + (study == "s1" ? 1 : 2)))")!,
                                             questionnaire: "\(study)-daily", startedAt: started)
                        _ = try await store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: answered, studyId: study)], receivedAt: now)
                    }
                }
            }
            try await expectAgreement(store, "after the sheets")
            #expect(try await store.studyParticipants(studyId: "s1").map(\.sheets) == [4, 4, 4])
            #expect(try await store.sheetsPerDay(studyId: "s2").map(\.sheets) == [3])

            // Prompts whose events arrive over several uploads, so their kinds change.
            for (index, user) in users.enumerated() {
                for number in 1...6 {
                    let prompt = "tys/s1-daily/\(number)", due = Double(number) * 21_600 + Double(index)
                    let all = events(prompt, "s1-daily", [.planned, .delivered, number % 3 == 0 ? .expired : .completed], due: due)
                        + (number == 6 ? events(prompt, "s1-daily", [.late], due: due) : [])
                    for (upload, part) in [all.prefix(1), all.dropFirst().prefix(1), all.dropFirst(2)].enumerated() where !part.isEmpty {
                        _ = try await store.storePromptEvents(userId: user, events: Array(part),
                                                              receivedAt: now.addingTimeInterval(Double(upload * 60 + number)))
                    }
                }
                _ = try await store.storePromptEvents(userId: user, events: events("tys/s2-daily/1", "s2-daily", [.planned, .withdrawn], due: 0),
                                                      receivedAt: now)
            }
            try await expectAgreement(store, "after the prompts")
            // The participants page's sums per person are the report's lines counted from the prompts.
            let counted = Mutex<[String: AdherenceCounts]>([:])
            try await store.adherence(studyId: "s1", from: .distantPast, to: .distantFuture) { line in
                counted.withLock { $0[line.participant, default: AdherenceCounts()].add(line.counts) }
            }
            let kept = try await store.adherenceByParticipant(studyId: "s1")
            #expect(Dictionary(uniqueKeysWithValues: zip(["p-ada", "p-bo", "p-cy"], users.map { kept[$0]?.counts })) == counted.withLock { $0 })
            #expect(kept.values.map(\.counts.delivered) == [6, 6, 6] && kept.values.allSatisfy { $0.lastSync != nil })

            // Ada leaves s1 with her answers deleted; bo deletes his account.
            try await store.leaveStudy(userId: users[0], studyId: "s1", deleteAnswers: true, now: now)
            try await expectAgreement(store, "after leaving with deletion")
            #expect(try await store.rows("SELECT study_id FROM member_tallies WHERE user_id = \(users[0])").map { try $0["study_id"] as String } == ["s2"])
            #expect(try await store.deleteAccount(userId: users[1], now: now))
            try await expectAgreement(store, "after deleting an account")
            for table in ["member_tallies", "prompt_tallies"] {
                #expect(try await store.rows("SELECT user_id FROM \(raw: table) WHERE user_id = \(users[1])").isEmpty, "\(table)")
            }
            #expect(try await store.studyParticipants(studyId: "s1").map(\.sheets) == [0, 4])
        }
    }

    @Test("uploads of many participants and folds running at once lose and double nothing", arguments: StoreKind.allCases)
    func concurrentUploadsAndFolds(_ kind: StoreKind) async throws {
        try await StoreContractTests().with(kind) { store in
            try await store.createStudy(StudyRecord(id: "s", title: LocalizedText(["en": "s"]), access: .public, modules: [.tys]), now: now)
            let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: "q").utf8), studyId: "s")
            _ = try await store.addQuestionnaire(document, module: .tys, now: now)
            var users: [Int64] = []
            for number in 0..<8 {
                users.append(try await store.createUser(username: "u\(number)", email: "u\(number)@example.org", passwordHash: "h",
                                                        language: "en", pseudonym: "p-\(number)", now: now))
            }
            // Every participant's prompts fall on the same days, in an order of kinds that differs
            // from one to the next: the shared day rows are where uploads would collide.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, user) in users.enumerated() {
                    group.addTask {
                        for round in 0..<4 {
                            var batch: [PromptEvent] = []
                            for number in 0..<12 {
                                let kinds: [PromptEventKind] = [[.planned], [.delivered], [(number + index) % 2 == 0 ? .completed : .expired], [.late]][round]
                                batch += events("tys/q/\((number * 7 + index) % 12)", "q", kinds, due: Double(number % 4) * 86_400)
                            }
                            _ = try await store.storePromptEvents(userId: user, events: batch.shuffled(), receivedAt: now.addingTimeInterval(Double(round)))
                        }
                    }
                    group.addTask { try await store.foldDayTallies() }
                }
                try await group.waitForAll()
            }
            try await expectAgreement(store, "after concurrent uploads")
            let perDay = try await store.adherencePerDay(studyId: "s", days: DayChart.day(now)...(DayChart.day(now) + 3))
            #expect(perDay.values.reduce(0) { $0 + $1.delivered } == 8 * 12)
        }
    }
}
