import Foundation
import UNITIProtocol

/// One sheet of a study export, with what the server knows of it besides the sheet.
public struct ExportedSheet: Sendable {
    /// The participant's study pseudonym (never the username or address).
    public var participant: String
    public var sheet: AnswerSheet
    public var receivedAt: Date
    /// The module presenting the questionnaire (nil when the server cannot link it).
    public var module: String?

    /// The sheet as export rows: one per answer (``ExportRow/rows(of:participant:receivedAt:module:)``).
    public var rows: [ExportRow] {
        ExportRow.rows(of: sheet, participant: participant, receivedAt: receivedAt, module: module)
    }
}

/// A sheet that passed validation against its questionnaire version, ready to store.
public struct ValidatedSheet: Sendable {
    public var sheet: AnswerSheet
    public var studyId: String
    /// The sheet's reminder as rewards use it: nil when absent or impossible
    /// (``SheetValidation/reminderForRewards(_:)``); the sheet itself keeps what was sent.
    public var remindedAt: Date?
}

/// One row of the study export: one answer, with what is known of its sheet.
public struct ExportRow: Sendable, Codable, Hashable {
    public var participant: String
    public var sheetId: String
    public var questionnaireId: String
    public var questionnaireVersion: Int
    public var label: String
    /// The answer as text: a number, option values joined by commas, or the free text.
    public var value: String
    /// Client times with the participant's UTC offset.
    public var answeredAt: String
    public var startedAt: String
    public var endedAt: String?
    /// Server time (UTC).
    public var receivedAt: String
    /// The module that presents the questionnaire (nil only for rows the server cannot link).
    public var module: String?
    /// The sheet's microphone reading: level in dBFS and the time it was taken (participant's offset).
    public var microphoneDbfs: Double?
    public var microphoneMeasuredAt: String?
    /// The sheet's location reading: WGS 84 degrees, altitude and accuracy radius in metres, time of the fix.
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeMeters: Double?
    public var accuracyMeters: Double?
    public var locationMeasuredAt: String?

    public init(participant: String, sheetId: String, questionnaireId: String, questionnaireVersion: Int, label: String,
                value: String, answeredAt: String, startedAt: String, endedAt: String?, receivedAt: String) {
        self.participant = participant
        self.sheetId = sheetId
        self.questionnaireId = questionnaireId
        self.questionnaireVersion = questionnaireVersion
        self.label = label
        self.value = value
        self.answeredAt = answeredAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.receivedAt = receivedAt
    }

    /// Takes over the sheet's sensor readings (the same on every row of the sheet).
    public mutating func setReadings(_ sensors: SensorReadings?) {
        microphoneDbfs = sensors?.microphone?.dbfs
        microphoneMeasuredAt = sensors?.microphone?.measuredAt.text
        latitude = sensors?.location?.latitude
        longitude = sensors?.location?.longitude
        altitudeMeters = sensors?.location?.altitudeMeters
        accuracyMeters = sensors?.location?.accuracyMeters
        locationMeasuredAt = sensors?.location?.measuredAt.text
    }
}

extension ExportRow {
    /// The rows of one stored sheet: one per answer, in the order they were given (then by
    /// label), each with the sheet's times and readings; a sheet without answers still gets one
    /// row, since its times and readings are data too. Both stores export through it.
    static func rows(of sheet: AnswerSheet, participant: String, receivedAt: Date, module: String?) -> [ExportRow] {
        var base = ExportRow(participant: participant, sheetId: sheet.id.uuidString.lowercased(),
                             questionnaireId: sheet.questionnaireID, questionnaireVersion: sheet.questionnaireVersion,
                             label: "", value: "", answeredAt: "", startedAt: sheet.startedAt.text, endedAt: sheet.endedAt?.text,
                             receivedAt: Timestamps.format(receivedAt))
        base.module = module
        base.setReadings(sheet.sensors)
        guard !sheet.answers.isEmpty else { return [base] }
        let labels = sheet.answers.keys.sorted { a, b in
            let first = sheet.answers[a]!.answeredAt.date, second = sheet.answers[b]!.answeredAt.date
            return first == second ? a < b : first < second
        }
        return labels.map { label in
            let answer = sheet.answers[label]!
            var exported = base
            exported.label = label
            exported.value = answer.value.description
            exported.answeredAt = answer.answeredAt.text
            return exported
        }
    }
}

/// Where answer sheets are kept, and what is read from all of them: the participant means behind
/// the comparison with all users and the study export.
///
/// Each sheet is kept as it was sent (the JSON of ``AnswerSheet``, so fields such as `owner` come
/// back unchanged) beside its answers one per row for the aggregates.
///
/// Reading the tables `answer_sheets` (each sheet as sent, JSON with sorted keys) and `answers`.
///
/// The changes cursor is the sheet's id. One transaction at a time stores a person's sheets
/// (``StoreLock/person(_:_:)``), taking the lock before its first id: so a person's ids commit in
/// increasing order, and a reader past id n never finds a smaller id of that person appearing later.
extension ServerStore {
    /// The user's sheets, newest start first, and how many there are.
    func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
        let total: Int = try await database.row("SELECT COUNT(*) AS total FROM answer_sheets WHERE user_id = \(userId)")?["total"] ?? 0
        let page = try await database.rows("""
            \(StoredSheets.select) WHERE user_id = \(userId) ORDER BY started_at DESC, id DESC LIMIT \(limit) OFFSET \(offset)
            """).map(StoredSheets.sheet)
        return (page, total)
    }

    /// One of the user's sheets by its id; nil when the user has none with it (another person's is
    /// as unknown as a made-up id).
    func sheet(userId: Int64, id: UUID) async throws -> StoredAnswerSheet? {
        try await database.row("""
            \(StoredSheets.select) WHERE user_id = \(userId) AND client_id = \(id.uuidString.lowercased())
            """).map(StoredSheets.sheet)
    }

    /// The user's sheets stored after `cursor` (a sequence number the store gives each stored sheet
    /// and returns as the new cursor), oldest first. The sequence only grows and is given in commit
    /// order, so a sheet stored later never appears behind a cursor already handed out.
    func sheetChanges(userId: Int64, after cursor: Int64, limit: Int) async throws -> (sheets: [StoredAnswerSheet], cursor: Int64, more: Bool) {
        let rows = try await database.rows("\(StoredSheets.select) WHERE user_id = \(userId) AND id > \(cursor) ORDER BY id LIMIT \(limit + 1)")
        let page = rows.prefix(limit)
        return (try page.map(StoredSheets.sheet), try page.last.map { try $0["id"] } ?? cursor, rows.count > limit)
    }

    /// A study's sheets, by participant pseudonym, then sheet start, then id, read in one
    /// snapshot and handed to `body` one at a time as they are read, so an export of any size
    /// needs the memory of one sheet (`body` runs on the store's reading thread and must not block
    /// on the store).
    func exportSheets(studyId: String, _ body: @escaping @Sendable (ExportedSheet) throws -> Void) async throws {
        // One snapshot, whatever is stored meanwhile, read one row at a time.
        try await database.forEachRow("""
            SELECT u.pseudonym, s.sheet, s.received_at, l.module FROM answer_sheets s JOIN users u ON u.id = s.user_id
            LEFT JOIN questionnaire_links l ON l.questionnaire_id = s.questionnaire_id
            WHERE s.study_id = \(studyId) ORDER BY u.pseudonym, s.started_at, s.id
            """) { row in
            try body(ExportedSheet(participant: try row["pseudonym"], sheet: try JSONCoding.decode(AnswerSheet.self, from: try row["sheet"] as String),
                                   receivedAt: try row["received_at"], module: try row["module"]))
        }
    }

    /// The questionnaire versions a study's sheets answer (few: one per id and version).
    func answeredQuestionnaireVersions(studyId: String) async throws -> [(id: String, version: Int)] {
        try await database.rows("""
            SELECT DISTINCT questionnaire_id, questionnaire_version FROM answer_sheets WHERE study_id = \(studyId)
            ORDER BY questionnaire_id, questionnaire_version
            """).map { (try $0["questionnaire_id"], try $0["questionnaire_version"]) }
    }
}

/// Reading `answer_sheets` rows as their owner reads them back.
enum StoredSheets {
    static let select: SQL = "SELECT id, sheet, study_id, received_at FROM answer_sheets"

    static func sheet(_ row: SQLRow) throws -> StoredAnswerSheet {
        StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: try row["sheet"] as String), studyId: try row["study_id"],
                          receivedAt: Timestamps.format(try row["received_at"]))
    }
}
