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

    /// `v4-questionnaire-links`: how each questionnaire id is offered (the module that presents
    /// it, its deactivation) and, by `sequence`, the order ids were first imported. Questionnaires
    /// stored before get their default module (``QuestionnaireModules``), in first-import order.
    static func v4(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE questionnaire_links (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                questionnaire_id TEXT NOT NULL UNIQUE,
                study_id TEXT NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
                module TEXT NOT NULL,
                deactivated_at REAL
            );
            CREATE INDEX questionnaire_links_study ON questionnaire_links(study_id, sequence);
            """)
        let existing = try Row.fetchAll(db, sql: """
            SELECT id, study_id FROM questionnaires GROUP BY id ORDER BY MIN(imported_at), id
            """)
        for row in existing {
            let id: String = row["id"]
            try QuestionnaireLinkRow(link: QuestionnaireLink(questionnaireId: id, studyId: row["study_id"],
                                                             module: QuestionnaireModules.defaultModule(for: id))).insert(db)
        }
    }
}

/// A row of `questionnaire_links`.
struct QuestionnaireLinkRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "questionnaire_links"

    enum Columns: String, ColumnExpression {
        case sequence
        case questionnaireId = "questionnaire_id", studyId = "study_id", module
        case deactivatedAt = "deactivated_at"
    }

    /// The place in the order of first imports; nil until inserted.
    var sequence: Int64?
    var link: QuestionnaireLink

    init(link: QuestionnaireLink) {
        self.link = link
    }

    init(row: Row) throws {
        sequence = row[Columns.sequence]
        let module: String = row[Columns.module]
        guard let moduleId = ModuleID(rawValue: module) else {
            throw DatabaseError(message: "questionnaire_links.module '\(module)' is not a module id")
        }
        let deactivatedAt: Double? = row[Columns.deactivatedAt]
        link = QuestionnaireLink(questionnaireId: row[Columns.questionnaireId], studyId: row[Columns.studyId], module: moduleId,
                                 deactivatedAt: deactivatedAt.map(Date.init(timeIntervalSince1970:)))
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.sequence] = sequence
        container[Columns.questionnaireId] = link.questionnaireId
        container[Columns.studyId] = link.studyId
        container[Columns.module] = link.module.rawValue
        container[Columns.deactivatedAt] = link.deactivatedAt?.timeIntervalSince1970
    }

    static func fetch(_ db: Database, questionnaireId: String) throws -> QuestionnaireLinkRow? {
        try filter(Columns.questionnaireId == questionnaireId).fetchOne(db)
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
    public func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?, now: Date) async throws -> QuestionnaireImportResult {
        let new = try QuestionnaireRow(document, importedAt: now)
        return try await pool.write { db in
            var versionAdded = true
            if let existing = try QuestionnaireRow.fetchOne(db, key: ["id": new.id, "version": new.version]) {
                guard existing.studyId == new.studyId && existing.definition == new.definition else {
                    throw APIError.invalid("version_exists", "Questionnaire \(new.id) version \(new.version) is already stored with other content; give the changed definition a higher version.")
                }
                versionAdded = false
            }
            if let owner = try String.fetchOne(db, sql: "SELECT study_id FROM questionnaires WHERE id = ? LIMIT 1", arguments: [new.id]),
               owner != new.studyId {
                throw APIError.invalid("questionnaire_owned", "Questionnaire \(new.id) belongs to study \(owner).")
            }
            if versionAdded { try new.insert(db) }
            let previous = try QuestionnaireLinkRow.fetch(db, questionnaireId: new.id)
            let chosen = module ?? previous?.link.module ?? QuestionnaireModules.defaultModule(for: new.id)
            if var row = previous {
                if row.link.module != chosen {
                    row.link.module = chosen
                    try row.update(db)
                }
            } else {
                try QuestionnaireLinkRow(link: QuestionnaireLink(questionnaireId: new.id, studyId: new.studyId, module: chosen)).insert(db)
            }
            return QuestionnaireImportResult(versionAdded: versionAdded, module: chosen, previousModule: previous?.link.module)
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

    public func questionnaireLink(id: String) async throws -> QuestionnaireLink? {
        try await pool.read { db in
            try QuestionnaireLinkRow.fetch(db, questionnaireId: id)?.link
        }
    }

    public func questionnaireLinks(studyId: String) async throws -> [QuestionnaireLink] {
        try await pool.read { db in
            try QuestionnaireLinkRow.filter(QuestionnaireLinkRow.Columns.studyId == studyId)
                .order(QuestionnaireLinkRow.Columns.sequence).fetchAll(db).map(\.link)
        }
    }

    public func setQuestionnaireActive(id: String, studyId: String, active: Bool, now: Date) async throws -> QuestionnaireLink? {
        try await pool.write { db in
            guard var row = try QuestionnaireLinkRow.fetch(db, questionnaireId: id), row.link.studyId == studyId else { return nil }
            // A repeated deactivation keeps the first time: sheets started in between stay refused.
            let deactivatedAt = active ? nil : row.link.deactivatedAt ?? now
            if row.link.deactivatedAt != deactivatedAt {
                row.link.deactivatedAt = deactivatedAt
                try row.update(db)
            }
            return row.link
        }
    }

    public func memberQuestionnaires(userId: Int64) async throws -> [MemberQuestionnaire] {
        try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT l.*, q.version, q.definition, COALESCE(m.joined_at, m.updated_at) AS joined_at
                FROM memberships m
                JOIN questionnaire_links l ON l.study_id = m.study_id
                JOIN questionnaires q ON q.id = l.questionnaire_id
                    AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = l.questionnaire_id)
                WHERE m.user_id = ? AND m.status = 'member'
                ORDER BY joined_at, m.study_id, l.sequence
                """, arguments: [userId])
            return try rows.map { row in
                MemberQuestionnaire(link: try QuestionnaireLinkRow(row: row).link, version: row["version"],
                                    definition: try JSONCoding.decode(JSONValue.self, from: row["definition"]),
                                    joinedAt: Date(timeIntervalSince1970: row["joined_at"]))
            }
        }
    }
}
