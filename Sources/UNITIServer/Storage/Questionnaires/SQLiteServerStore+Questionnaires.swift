import Foundation
import GRDB
import UNITIProtocol

/// The table behind ``QuestionnaireStore`` (steps of ``ServerMigrations``; never edit a shipped step).
enum QuestionnaireSchema {
    /// Second part of `v1-studies` (after ``StudySchema/v1(_:)``: a questionnaire belongs to a study).
    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE questionnaires (
                id TEXT NOT NULL,
                version INTEGER NOT NULL,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                definition TEXT NOT NULL,
                imported_at REAL NOT NULL,
                PRIMARY KEY (id, version)
            );
            """)
    }
}

/// A row of `questionnaires`; the definition is JSON in the core format.
struct QuestionnaireRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "questionnaires"

    enum Columns: String, ColumnExpression {
        case id, version
        case studyId = "study_id", definition
        case importedAt = "imported_at"
    }

    var id: String
    var version: Int
    var studyId: String
    /// The definition as stored text; equal definitions give equal text (sorted keys).
    var definition: String
    var importedAt: Date

    init(_ document: QuestionnaireDocument, importedAt: Date) throws {
        id = document.id
        version = document.version
        studyId = document.studyId
        definition = try JSONCoding.string(document.definition)
        self.importedAt = importedAt
    }

    init(row: Row) {
        id = row[Columns.id]
        version = row[Columns.version]
        studyId = row[Columns.studyId]
        definition = row[Columns.definition]
        importedAt = Date(timeIntervalSince1970: row[Columns.importedAt])
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.id] = id
        container[Columns.version] = version
        container[Columns.studyId] = studyId
        container[Columns.definition] = definition
        container[Columns.importedAt] = importedAt.timeIntervalSince1970
    }

    func document() throws -> QuestionnaireDocument {
        QuestionnaireDocument(id: id, version: version, studyId: studyId,
                              definition: try JSONCoding.decode(QuestionnaireDefinition.self, from: definition))
    }
}

extension SQLiteServerStore: QuestionnaireStore {
    public func addQuestionnaire(_ document: QuestionnaireDocument, now: Date) async throws -> Bool {
        let new = try QuestionnaireRow(document, importedAt: now)
        return try await pool.write { db in
            if let existing = try QuestionnaireRow.fetchOne(db, key: ["id": new.id, "version": new.version]) {
                if existing.studyId == new.studyId && existing.definition == new.definition { return false }
                throw APIError.invalid("version_exists", "Questionnaire \(new.id) version \(new.version) is already stored with other content; give the changed definition a higher version.")
            }
            if let owner = try String.fetchOne(db, sql: "SELECT study_id FROM questionnaires WHERE id = ? LIMIT 1", arguments: [new.id]),
               owner != new.studyId {
                throw APIError.invalid("questionnaire_owned", "Questionnaire \(new.id) belongs to study \(owner).")
            }
            try new.insert(db)
            return true
        }
    }

    public func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument? {
        let key = "\(id)#\(version)"
        if let cached = questionnaireCache.withLock({ $0[key] }) { return cached }
        let document = try await pool.read { db in
            try QuestionnaireRow.fetchOne(db, key: ["id": id, "version": version])?.document()
        }
        if let document { questionnaireCache.withLock { $0[key] = document } }
        return document
    }

    public func studyId(ofQuestionnaire id: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT study_id FROM questionnaires WHERE id = ? LIMIT 1", arguments: [id])
        }
    }

    public func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument] {
        try await pool.read { db in
            try QuestionnaireRow.fetchAll(db, sql: """
                SELECT q.* FROM questionnaires q
                WHERE q.study_id = ? AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = q.id)
                ORDER BY q.id
                """, arguments: [studyId]).map { try $0.document() }
        }
    }
}
