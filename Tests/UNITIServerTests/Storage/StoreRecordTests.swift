import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Rows by type (``SQLRow/decode(_:prefix:naming:)``, ``StoreRecord``, ``SQLColumns``) on both
/// stores: a record comes back as it was written, field by field, and a row that does not fit
/// says which column in one line.
@Suite("Rows by type (SQLite and PostgreSQL)", .timeLimit(.minutes(5)))
struct StoreRecordTests {
    let now = TestTime.now

    /// A study with every setting set (none left at its default).
    var everySetting: StudyRecord {
        StudyRecord(id: "every", title: LocalizedText(["en": "Every setting", "de": "Jede Einstellung"]),
                    description: LocalizedText(["en": "About"]), consent: LocalizedText(["en": "I agree", "de": "Ich stimme zu"]),
                    startsAt: now.addingTimeInterval(0.25), endsAt: now.addingTimeInterval(86_400.5), running: false, access: .password,
                    passwordHash: "$2b$12$hash", passwordMinimumLength: 8, participantsMayLeave: false, modules: [.tyt, .son],
                    schedules: .object(["daily": .array([.string("09:00"), .number(1.5), .bool(true), .null])]))
    }

    /// Every stored property of `record` equal in `read` (exactly: a time to the last bit), each
    /// named when it differs.
    func expectFieldByField<T>(_ read: T, _ record: T, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = Dictionary(uniqueKeysWithValues: Mirror(reflecting: record).children.map { ($0.label!, $0.value) })
        for child in Mirror(reflecting: read).children {
            let (value, written) = (child.value, expected[child.label!]!)
            let same = if let value = value as? AnyHashable, let written = written as? AnyHashable { value == written } else { "\(value)" == "\(written)" }
            #expect(same, "\(comment): \(child.label!) read \(value), written \(written)", sourceLocation: sourceLocation)
        }
    }

    @Test("every property of a study is a column of its record: a new setting without its key fails here")
    func studyColumnsAreItsProperties() {
        let properties = Mirror(reflecting: everySetting).children.map { SQLColumnNaming.snakeCase.column($0.label!) }
        let columns = StudyRecord.CodingKeys.allCases.map { SQLColumnNaming.snakeCase.column($0.stringValue) }
        #expect(properties.map { $0 == "password_minimum_length" ? "password_minimum" : $0 }.sorted() == columns.sorted())
    }

    @Test("a study with every setting set, then every setting changed, then every optional cleared, comes back field by field",
          arguments: StoreKind.allCases)
    func studyRoundTrip(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            var study = everySetting
            try await store.createStudy(study, now: now)
            study.consentVersion = 1
            expectFieldByField(try #require(try await store.study(id: "every")), study, "created")

            study.title = LocalizedText(["en": "Changed"])
            study.description = LocalizedText(["de": "Neu"])
            study.consent = LocalizedText(["en": "I agree again"])
            study.startsAt = now.addingTimeInterval(-1)
            study.endsAt = now.addingTimeInterval(2)
            study.running = true
            study.access = .byRequest
            study.passwordHash = "$2b$12$other"
            study.passwordMinimumLength = 4
            study.participantsMayLeave = true
            study.modules = [.tyh]
            study.schedules = .array([.string("weekly")])
            try await store.updateStudy(study, now: now.addingTimeInterval(5))
            study.consentVersion = 2
            expectFieldByField(try #require(try await store.study(id: "every")), study, "changed")

            study.description = nil
            study.startsAt = nil
            study.endsAt = nil
            study.passwordHash = nil
            study.passwordMinimumLength = nil
            study.schedules = nil
            study.consent = nil
            try await store.updateStudy(study, now: now.addingTimeInterval(6))
            expectFieldByField(try #require(try await store.study(id: "every")), study, "cleared")
            #expect(try await store.studies() == [study])
        }
    }

    @Test("a stored sheet's row and its answers' rows are the upload's, column by column, whichever write stored them",
          arguments: StoreKind.allCases)
    func sheetRoundTrip(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store
            try await store.createStudy(StudyRecord(id: "open", title: "Open"), now: now)
            let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON().utf8), studyId: "open")
            _ = try await store.addQuestionnaire(document, module: nil, now: now)
            let ada = try await store.createUser(username: "ada", email: "ada@example.org", passwordHash: "h", language: "en",
                                                 pseudonym: "p-ada", now: now)
            let started = OffsetTimestamp(parsing: "2027-01-16T08:00:00-05:00")!
            let answered = OffsetTimestamp(parsing: "2027-01-16T08:01:30+01:00")!
            var sheet = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                    answers: ["loudness": Answer(value: .number(0.1), answeredAt: answered),
                                              "note": Answer(value: .text("a \"quoted\"\nünïcode"), answeredAt: answered),
                                              "symptoms": Answer(value: .choices([3, 1]), answeredAt: answered)],
                                    startedAt: started, endedAt: answered, clientVersion: "uniti-test 1", isPartial: true)
            sheet.remindedAt = OffsetTimestamp(parsing: "2027-01-16T07:55:00-05:00")!
            let validated = [ValidatedSheet(sheet: sheet, studyId: "open")]
            let upload = try ServerStore.SheetUpload(userId: ada, sheets: validated, receivedAt: now)
            #expect(try await store.storeSheets(userId: ada, sheets: validated, receivedAt: now).outcomes == [.stored])

            typealias SheetRow = ServerStore.SheetUpload.SheetRow
            typealias AnswerRow = ServerStore.SheetUpload.AnswerRow
            let rows = try await store.database.rows("SELECT \(SheetRow.columns()) FROM answer_sheets WHERE user_id = \(ada)")
            #expect(try rows.map { try $0.decode(SheetRow.self) } == upload.sheetRows)
            let answers = try await store.database.rows("""
                SELECT s.client_id, a.position, a.label, a.value, a.number, a.answered_at FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
                WHERE a.user_id = \(ada) ORDER BY a.position
                """)
            let read = try answers.map { try $0.decode(AnswerRow.self) }
            #expect(read.count == 3)
            for (read, written) in zip(read, upload.answerRows[0]) { expectFieldByField(read, written, "answer \(written.label)") }
        }
    }

    /// The columns of ``decoderErrors(_:)``'s rows.
    struct Probe: Decodable, Equatable {
        var id: Int
        var userName: String
        var note: String?
        var access: StudyAccess
        var title: LocalizedText
    }

    struct Name: Decodable { var userName: String }

    @Test("the decoder names the column: missing, NULL into a non-optional, another type, an unknown enum value, JSON that does not decode",
          arguments: StoreKind.allCases)
    func decoderErrors(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let database = opened.store.database
            func error(_ columns: String) async throws -> String {
                let row = try #require(try await database.row("SELECT \(raw: columns)"))
                do {
                    _ = try row.decode(Probe.self)
                    return "decoded"
                } catch let error as SQLRowError {
                    return error.description
                }
            }
            let title = #"'{"en":"T"}' AS title"#
            let good = try #require(try await database.row("SELECT 7 AS id, 'ada' AS user_name, NULL AS note, 'password' AS access, \(raw: title)"))
            #expect(try good.decode(Probe.self) == Probe(id: 7, userName: "ada", note: nil, access: .password, title: "T"))
            let prefixed = try #require(try await database.row("""
                SELECT 7 AS p_id, 'ada' AS p_user_name, 'n' AS p_note, 'public' AS p_access, '{"en":"T"}' AS p_title
                """))
            #expect(try prefixed.decode(Probe.self, prefix: "p_").note == "n")
            let asWritten = try #require(try await database.row(#"SELECT 'ada' AS "userName""#))
            #expect(try asWritten.decode(Name.self, naming: .asWritten).userName == "ada")
            #expect(throws: SQLRowError.self, "snake_case by default: user_name") { try asWritten.decode(Name.self) }

            let messages = [
                try await error("7 AS id, 'ada' AS user_name, 'public' AS access, \(title)"),
                try await error("7 AS id, NULL AS user_name, NULL AS note, 'public' AS access, \(title)"),
                try await error("'seven' AS id, 'ada' AS user_name, NULL AS note, 'public' AS access, \(title)"),
                try await error("7 AS id, 'ada' AS user_name, NULL AS note, 'sideways' AS access, \(title)"),
                try await error("7 AS id, 'ada' AS user_name, NULL AS note, 'public' AS access, '{' AS title"),
            ]
            #expect(messages == [
                "the database returned no column note",
                "the database's column user_name is NULL, not String",
                "the database's column id does not hold Int",
                "the database's column access does not hold StudyAccess",
                "the database's column title does not hold JSON of LocalizedText",
            ])
            #expect(messages.allSatisfy { !$0.contains("\n") })
        }
    }

    @Test("columns bind by name: an UPDATE's SET and an INSERT's lists come from the record's keys, absent optionals as NULL")
    func columnsByName() throws {
        var columns = try SQLColumns(StudyRecord(id: "s", title: "T"), omitting: [.consentVersion])
        columns.set("created_at", now)
        #expect(columns.names == ["id", "title", "description", "consent", "starts_at", "ends_at", "running", "access", "password_hash",
                                  "password_minimum", "participants_may_leave", "modules", "schedules", "languages", "created_at"])
        #expect(columns.values[1] == .text(#"{"en":"T"}"#) && columns.values[2] == .null && columns.values[7] == .text("public"))
        #expect(columns.values[11] == .text("[]") && columns.values[13] == .null && columns.values[14] == .real(now.timeIntervalSince1970))
        let update: SQL = "UPDATE studies SET \(set: columns) WHERE id = \("s")"
        #expect(update.rendered(for: .postgres).text.hasPrefix("UPDATE studies SET id = $1, title = $2, description = $3"))
        let insert: SQL = "INSERT INTO studies \(insert: columns)"
        #expect(insert.rendered(for: .sqlite).text.hasPrefix("INSERT INTO studies (id, title, description, consent, starts_at"))
        #expect(insert.rendered(for: .sqlite).values.count == 15)
    }
}
