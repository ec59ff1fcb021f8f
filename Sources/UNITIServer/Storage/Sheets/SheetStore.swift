import Foundation
import UNITIProtocol

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
    /// The person's newest answer to `item` of `questionnaire` in a finished sheet of any study,
    /// as stored (a number, or the JSON of choices and texts), with when the sheet ended; nil when none.
    package func newestAnswer(userId: Int64, questionnaire: String, item: String) async throws -> (number: Double?, value: String, endedAt: Date)? {
        guard let row = try await database.row("""
            SELECT a.number, a.value, s.ended_at FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE s.user_id = \(userId) AND s.questionnaire_id = \(questionnaire) AND s.ended_at IS NOT NULL AND a.label = \(item)
            ORDER BY s.ended_at DESC, s.id DESC LIMIT 1
            """) else { return nil }
        return (try row["number"], try row["value"], try row["ended_at"])
    }

    /// The user's sheets, newest start first, and how many there are.
    func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
        let total: Int = try await database.row("SELECT COUNT(*) AS total FROM answer_sheets WHERE user_id = \(userId)")?["total"] ?? 0
        let page = try await database.rows("""
            \(StoredSheets.select) WHERE user_id = \(userId) ORDER BY started_at DESC, id DESC LIMIT \(limit) OFFSET \(offset)
            """).map(StoredSheets.sheet)
        return (page, total)
    }

    /// The user's completed (not partial) sheets of the study's questionnaires that `module`
    /// presents (the questionnaire's link as it is now, `questionnaire import --module`), in the
    /// order stored, as sent: what a module computes its own figures from (Track Your Hearing's
    /// rewards). Other users' sheets and other modules' never.
    package func completedSheets(userId: Int64, studyId: String, presentedBy module: ModuleID) async throws -> [AnswerSheet] {
        try await database.rows("""
            SELECT a.sheet FROM answer_sheets a
            JOIN questionnaire_links l ON l.questionnaire_id = a.questionnaire_id AND l.study_id = a.study_id
            WHERE a.user_id = \(userId) AND a.study_id = \(studyId) AND a.is_partial = \(false) AND l.module = \(module.rawValue)
            ORDER BY a.id
            """).map { try JSONCoding.decode(AnswerSheet.self, from: try $0["sheet"] as String) }
    }

    /// One of the user's sheets by its id; nil when the user has none with it (another person's is
    /// as unknown as a made-up id).
    func sheet(userId: Int64, id: UUID) async throws -> StoredAnswerSheet? {
        try await database.row("""
            \(StoredSheets.select) WHERE user_id = \(userId) AND client_id = \(id.uuidString.lowercased())
            """).map(StoredSheets.sheet)
    }

    /// The user's sheets stored after `cursor` (a sequence number the store gives each stored sheet
    /// and returns as the new cursor), oldest first, each with its JSON as stored (not decoded: the
    /// changes route passes it on as it is). The sequence only grows and is given in commit order,
    /// so a sheet stored later never appears behind a cursor already handed out.
    func sheetChanges(userId: Int64, after cursor: Int64, limit: Int) async throws -> (sheets: [StoredSheetJSON], cursor: Int64, more: Bool) {
        let rows = try await database.rows("\(StoredSheets.select) WHERE user_id = \(userId) AND id > \(cursor) ORDER BY id LIMIT \(limit + 1)")
            .map { try $0.decode(StoredSheets.Row.self) }
        let page = rows.prefix(limit).map { StoredSheetJSON(json: $0.sheet, studyId: $0.studyId, receivedAt: Timestamps.format($0.receivedAt)) }
        return (page, rows.prefix(limit).last?.id ?? cursor, rows.count > limit)
    }

    /// The changes cursor past an upload's sheets, for the device that sent them with its cursor
    /// (`POST /sheets?cursor=…`): nil unless the ids just stored (`stored`) are all of the
    /// person's sheets after `cursor`. A device syncing pulls back everything it sent (half of a
    /// sync's work) though it keeps its own sheets already; with this cursor it pulls none of them.
    ///
    /// Read after the upload committed: a person's ids commit in increasing order (one writer on
    /// SQLite, ``StoreLock/person(_:_:)`` on PostgreSQL), so every sheet of theirs below the
    /// upload's ids is visible by then, and the upload's new ids lie above any cursor handed out.
    /// Ids, not a count: another device's sheet stored while one of the upload's was deleted
    /// (leaving a study with its answers) keeps the count, and a cursor would hide that sheet.
    func changesCursor(userId: Int64, after cursor: Int64, stored: [Int64]) async throws -> Int64? {
        let after: [Int64] = try await database.rows("""
            SELECT id FROM answer_sheets WHERE user_id = \(userId) AND id > \(cursor) ORDER BY id LIMIT \(stored.count + 1)
            """).map { try $0["id"] }
        return after == stored ? stored.last ?? cursor : nil
    }

    /// A study's sheets, by participant pseudonym, then sheet start, then id, read in one
    /// snapshot and handed to `body` one at a time as they are read, so an export of any size
    /// needs the memory of one sheet (`body` runs on the store's reading thread and must not block
    /// on the store).
    func exportSheets(studyId: String, _ body: @escaping @Sendable (ExportedSheet) throws -> Void) async throws {
        // One snapshot, whatever is stored meanwhile, read one row at a time.
        try await database.forEachRow("""
            SELECT u.pseudonym AS participant, s.sheet, s.received_at, l.module,
                (SELECT MAX(c.version) FROM consent_agreements c WHERE c.user_id = s.user_id AND c.study_id = s.study_id) AS consent_version,
                ms.site_id AS site, al.arm
            FROM answer_sheets s JOIN users u ON u.id = s.user_id
            LEFT JOIN questionnaire_links l ON l.questionnaire_id = s.questionnaire_id
            LEFT JOIN member_sites ms ON ms.study_id = s.study_id AND ms.user_id = s.user_id
            LEFT JOIN allocations al ON al.study_id = s.study_id AND al.user_id = s.user_id
            WHERE s.study_id = \(studyId) ORDER BY u.pseudonym, s.started_at, s.id
            """) { row in
            let row = try row.decode(StoredSheets.Exported.self)
            try body(ExportedSheet(participant: row.participant, sheet: row.sheet, receivedAt: row.receivedAt, module: row.module,
                                   consentVersion: row.consentVersion, site: row.site, arm: row.arm))
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
    /// What is read of a row: the sheet still the JSON text it was stored as.
    struct Row: StoreRecord {
        var id: Int64, sheet: String, studyId: String, receivedAt: Date
        enum CodingKeys: CodingKey, CaseIterable { case id, sheet, studyId, receivedAt }
    }

    /// A row of a study's export (``ExportedSheet``).
    struct Exported: Decodable {
        var participant: String, sheet: AnswerSheet, receivedAt: Date, module: String?, consentVersion: Int?, site: String?, arm: String?
    }

    static let select: SQL = "SELECT \(Row.columns()) FROM answer_sheets"

    static func sheet(_ row: SQLRow) throws -> StoredAnswerSheet {
        let row = try row.decode(Row.self)
        return StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: row.sheet), studyId: row.studyId,
                                 receivedAt: Timestamps.format(row.receivedAt))
    }
}

/// A stored sheet as its owner reads it back (``StoredAnswerSheet``), the sheet still the JSON
/// text it was stored as (``JSONCoding``'s settings, as the API's answers).
struct StoredSheetJSON: Sendable {
    let json: String
    let studyId: String
    let receivedAt: String
}
