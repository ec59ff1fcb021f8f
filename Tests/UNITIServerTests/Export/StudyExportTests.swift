import Foundation
import GRDB
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// `uniti-server export` streams (issue 16): the same rows as before in every format, FHIR
/// bulk-data NDJSON that validates, nothing left behind by a failed export, and memory that does
/// not grow with the study.
@Suite("Study export, streamed (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct StudyExportTests {
    let now = TestTime.now

    /// A study with three participants (one who never answered), sheets with and without answers
    /// and readings, and a second study whose sheets must not appear.
    func fill(_ store: ServerStore) async throws -> [(pseudonym: String, sheet: AnswerSheet, receivedAt: Date)] {
        for id in ["open", "other"] {
            try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": id]), modules: [.tyt]), now: now)
            let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: id == "open" ? "daily" : "other-daily").utf8),
                                                            studyId: id)
            _ = try await store.addQuestionnaire(document, module: .tyt, now: now)
        }
        var expected: [(String, AnswerSheet, Date)] = []
        for (index, name) in ["zoe", "adam", "mia"].enumerated() {
            let user = try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "x", language: "en",
                                                  pseudonym: "P-\(index)", now: now)
            guard name != "mia" else { continue }
            var sheets = (0..<4).map { day in
                sheet(loudness: Double(10 * index + day), mood: Double(1 + day % 3), startedAt: "2027-01-1\(5 - day)T09:00:00+01:00")
            }
            sheets[1].answers = [:]
            sheets[2].sensors = SensorReadings(location: LocationReading(latitude: 48.4, longitude: 9.98, accuracyMeters: 12,
                                                                         measuredAt: sheets[2].startedAt))
            let received = now.addingTimeInterval(Double(index))
            _ = try await store.storeSheets(userId: user, sheets: sheets.map { ValidatedSheet(sheet: $0, studyId: "open") }, receivedAt: received)
            _ = try await store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: sheet(questionnaire: "other-daily"), studyId: "other")],
                                            receivedAt: received)
            expected += sheets.map { ("P-\(index)", $0, received) }
        }
        return expected.sorted { ($0.0, $0.1.startedAt.date, $0.1.id.uuidString) < ($1.0, $1.1.startedAt.date, $1.1.id.uuidString) }
    }

    /// The rows the old all-in-memory export wrote, from the sheets themselves.
    static func expectedRows(_ sheets: [(pseudonym: String, sheet: AnswerSheet, receivedAt: Date)]) -> [ExportRow] {
        sheets.flatMap { ExportRow.rows(of: $0.sheet, participant: $0.pseudonym, receivedAt: $0.receivedAt, module: "tyt") }
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("uniti-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("csv, json and jsonl hold exactly the rows of the study, in order, whatever the store", arguments: StoreKind.allCases)
    func rowFormats(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        let sheets = try await fill(opened.store)
        let out = try Self.directory()
        defer { try? FileManager.default.removeItem(at: out) }
        let rows = Self.expectedRows(sheets)
        let expectedCount = 2 * 7  // two participants: three sheets with two answers, one without any
        #expect(rows.count == expectedCount)
        for format in ["csv", "json", "jsonl"] {
            try await runServerCommand(["export", "--study", "open", "--format", format, "--out", out.path, "--database", opened.location])
        }
        let csv = try String(contentsOf: out.appendingPathComponent("open-answers.csv"), encoding: .utf8)
        #expect(csv == StudyExport.csv(rows))
        let json = try Data(contentsOf: out.appendingPathComponent("open-answers.json"))
        #expect(try JSONDecoder().decode([ExportRow].self, from: json) == rows)
        let lines = try String(contentsOf: out.appendingPathComponent("open-answers.jsonl"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "" && lines.count == rows.count + 1, "one object per line, each ended by a line feed")
        #expect(try lines.dropLast().map { try JSONDecoder().decode(ExportRow.self, from: Data($0.utf8)) } == rows)
        #expect(!csv.contains("zoe") && !csv.contains("example.org"))
        #expect((try FileManager.default.contentsOfDirectory(atPath: out.path)).sorted()
                == ["open-answers.csv", "open-answers.json", "open-answers.jsonl", "open-codebook.csv"])
        // Beside the CSV, the codebook: each question of every version with its encoding.
        let codebook = try String(contentsOf: out.appendingPathComponent("open-codebook.csv"), encoding: .utf8)
        #expect(codebook.hasPrefix("questionnaire,version,label,type,text,encoding\r\n"))
        #expect(codebook.contains("daily,1,loudness,slider,How loud?,\"number 0 to 100, step 1\"\r\n"))
        #expect(codebook.contains("daily,1,mood,singleChoice,Mood?,1 = bad; 2 = so-so; 3 = good\r\n"))
        // Each export is in the audit trail as the operator's, with its rows.
        let exports = try await opened.store.auditTrail(studyId: "open").filter { $0.action == "export" }
        #expect(exports.map(\.actor) == [.operator, .operator, .operator, .operator])
        #expect(exports.map { $0.detail["format"] } == ["csv", "codebook", "json", "jsonl"].map { .string($0) }, "the codebook is an export of its own")
        #expect(exports.first?.detail == .object(["format": .string("csv"), "filters": .object([:]), "rows": .number(Double(expectedCount))]))
        await opened.close()
    }

    @Test("fhir-ndjson writes Patients, Questionnaires and QuestionnaireResponses that validate as FHIR R4, by pseudonym only", arguments: StoreKind.allCases)
    func fhirNDJSON(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        let sheets = try await fill(opened.store)
        let out = try Self.directory()
        defer { try? FileManager.default.removeItem(at: out) }
        try await runServerCommand(["export", "--study", "open", "--format", "fhir-ndjson", "--out", out.path, "--database", opened.location])
        func resources(_ type: String) throws -> [JSONValue] {
            let path = out.appendingPathComponent("open-\(type).ndjson").path
            let validation = try FHIRValidator.validate(path)
            #expect(validation.status == 0, "\(type): \(validation.out)\(validation.err)")
            return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
                try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
            }
        }
        let patients = try resources("Patient"), questionnaires = try resources("Questionnaire"), responses = try resources("QuestionnaireResponse")
        #expect(patients.count == 2, "participants with sheets, once each")
        #expect(questionnaires.count == 1)
        #expect(responses.count == sheets.count)
        let patientIds = Set(patients.compactMap { $0["id"]?.stringValue })
        #expect(Set(responses.compactMap { $0["subject"]?["reference"]?.stringValue }) == Set(patientIds.map { "Patient/\($0)" }))
        #expect(Set(responses.compactMap { $0["questionnaire"]?.stringValue }) == Set(questionnaires.compactMap { $0["url"]?.stringValue }))
        #expect(patientIds.contains(FHIRBulkExport.patient(pseudonym: "P-0").id.uuid))
        let loudness = responses.flatMap { $0.all("valueInteger") + $0.all("valueDecimal") }
        #expect(loudness.contains(.number(13)), "participant 1's last sheet")
        let text = try FileManager.default.contentsOfDirectory(atPath: out.path)
            .map { try String(contentsOfFile: out.appendingPathComponent($0).path, encoding: .utf8) }.joined()
        #expect(!text.contains("zoe") && !text.contains("adam") && !text.contains("example.org"))
        await opened.close()
    }

    @Test("an export that fails half-way leaves no file, not even a partial one, and says why")
    func failureLeavesNothing() async throws {
        let opened = try await StoreKind.sqlite.open()
        _ = try await fill(opened.store)
        let out = try Self.directory()
        defer { try? FileManager.default.removeItem(at: out) }
        // A sheet whose stored JSON cannot be read, between good ones.
        let queue = try DatabaseQueue(path: opened.location)
        try await queue.write { db in
            try db.execute(sql: "UPDATE answer_sheets SET sheet = '{broken' WHERE id = (SELECT max(id) FROM answer_sheets WHERE study_id = 'open')")
        }
        try queue.close()
        await #expect(throws: Error.self) {
            try await runServerCommand(["export", "--study", "open", "--format", "csv", "--out", out.path, "--database", opened.location])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        await opened.close()
    }

    /// Peak RSS in KiB of the real `uniti-server export` of a study of `sheets` sheets × 8 answers
    /// (seeded with SQL), measured by GNU time.
    func exportPeakKiB(sheets: Int) async throws -> Int {
        let opened = try await StoreKind.sqlite.open()
        defer { opened.cleanup() }
        try await opened.store.createStudy(StudyRecord(id: "big", title: LocalizedText(["en": "Big"]), modules: [.tyt]), now: now)
        for index in 0..<50 {
            _ = try await opened.store.createUser(username: "u\(index)", email: "u\(index)@example.org", passwordHash: "x",
                                                  language: "en", pseudonym: String(format: "P%03d", index), now: now)
        }
        await opened.store.close()
        let queue = try DatabaseQueue(path: opened.location)
        try await queue.write { db in
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(sheets - 1))
                INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version, started_at, received_at, sheet, finished_at)
                SELECT 1 + i % 50, printf('%08x-0000-4000-8000-%012x', i, i), 'big', 'daily', 1, 1790000000 + i * 600, 1800000000,
                       '{"answers":{' || (SELECT group_concat('"q' || k || '":{"answeredAt":"2026-09-21T10:00:00+02:00","value":' || ((i + k) % 101) || '}', ',')
                                          FROM (SELECT 1 AS k UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8))
                       || '},"clientVersion":"seed","id":"' || printf('%08X-0000-4000-8000-%012X', i, i)
                       || '","isPartial":false,"questionnaireID":"daily","questionnaireVersion":1,"startedAt":"2026-09-21T10:00:00+02:00"}',
                       '2026-09-21T10:00:00+02:00'
                FROM n
                """)
        }
        try queue.close()
        let out = try Self.directory()
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        let report = out.appendingPathComponent("time.txt").path
        process.arguments = ["-f", "%M", "-o", report, try ServerBinaryTests.binary().path, "export", "--study", "big",
                             "--format", "csv", "--out", out.path, "--database", opened.location]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let rows = try String(contentsOf: out.appendingPathComponent("big-answers.csv"), encoding: .utf8).split(separator: "\r\n").count - 1
        #expect(rows == sheets * 8)
        return Int(try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("the real export's peak memory does not grow with the study: ten times the sheets, about the same RSS")
    func memoryDoesNotGrow() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw TestFailure("GNU time is missing: run Scripts/bootstrap --tests (it installs time)")
        }
        let small = try await exportPeakKiB(sheets: 4_000)
        let large = try await exportPeakKiB(sheets: 40_000)
        // 320,000 rows held at once took well over 100 MB; streamed, the difference is noise.
        #expect(small > 0 && large > 0)
        #expect(large - small < 16 * 1024, "peak RSS \(small) KiB for 4,000 sheets, \(large) KiB for 40,000")
    }
}
