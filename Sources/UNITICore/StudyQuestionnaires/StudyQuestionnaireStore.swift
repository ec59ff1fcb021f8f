import Foundation
import GRDB
import UNITIProtocol

/// The questionnaires of the person's joined studies as the server last sent them
/// (`GET /api/v1/questionnaires`, one ETag for the whole list), in `core_study_questionnaires`.
///
/// Applying a list is one transaction: a questionnaire that changed is replaced, one the list no
/// longer holds disappears, an empty list empties the table, and the ETag is stored with it. A
/// questionnaire that does not decode or validate is refused on its own: its previous version
/// (if any) stays in use, and one line names it (``SyncReport/questionnaireProblems``). Every
/// accepted version is also kept in ``ServerQuestionnaires``, where old answers find the
/// version they answered.
enum StudyQuestionnaireStore {
    static let route = "questionnaires"

    static let migrations = MigrationSet(owner: "core", steps: [
        ModuleMigration("v3-study-questionnaires") { db in
            try db.create(table: "core_study_questionnaires") { t in
                t.column("studyID", .text).notNull()
                t.column("questionnaireID", .text).notNull()
                t.column("version", .integer).notNull()
                t.column("module", .text).notNull()
                t.column("active", .boolean).notNull()
                t.column("position", .integer).notNull()
                t.column("joinedAt", .double).notNull()
                t.column("definition", .text).notNull()
                t.primaryKey(["studyID", "questionnaireID"])
            }
        },
    ])

    /// What applying a list did.
    struct Outcome: Equatable {
        var changed = 0
        var removed = 0
        var problems: [String] = []
    }

    static func apply(_ list: AssignedQuestionnaireList, etag: String?, in db: Database) throws -> Outcome {
        var outcome = Outcome()
        var listed = Set<String>()
        for (position, entry) in list.questionnaires.enumerated() {
            let key = "\(entry.studyId)\u{1F}\(entry.id)"
            listed.insert(key)
            let definition: QuestionnaireDefinition
            do {
                definition = try accept(entry)
            } catch let error as UNITIError {
                outcome.problems.append(L("sync.questionnaire.refused", [
                    "id": entry.id, "study": entry.studyId, "reason": error.message,
                ]))
                continue
            }
            let json = String(decoding: try APIClient.encoder.encode(definition), as: UTF8.self)
            let joinedAt = OffsetTimestamp(parsing: entry.joinedAt)?.date ?? Date(timeIntervalSince1970: 0)
            let previous = try Row.fetchOne(db, sql: """
                SELECT version, module, active, joinedAt, definition FROM core_study_questionnaires
                WHERE studyID = ? AND questionnaireID = ?
                """, arguments: [entry.studyId, entry.id])
            let unchanged = previous.map {
                $0["version"] as Int == entry.version && $0["module"] as String == entry.module
                    && $0["active"] as Bool == entry.active && $0["joinedAt"] as Double == joinedAt.timeIntervalSince1970
                    && $0["definition"] as String == json
            } ?? false
            try db.execute(sql: """
                INSERT INTO core_study_questionnaires(studyID, questionnaireID, version, module, active, position, joinedAt, definition)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(studyID, questionnaireID) DO UPDATE SET version = excluded.version, module = excluded.module,
                    active = excluded.active, position = excluded.position, joinedAt = excluded.joinedAt,
                    definition = excluded.definition
                """, arguments: [entry.studyId, entry.id, entry.version, entry.module, entry.active, position,
                                 joinedAt.timeIntervalSince1970, json])
            try ServerQuestionnaires.store(db, QuestionnaireDocument(id: entry.id, version: entry.version,
                                                                     studyId: entry.studyId, definition: definition))
            if !unchanged { outcome.changed += 1 }
        }
        for row in try Row.fetchAll(db, sql: "SELECT studyID, questionnaireID FROM core_study_questionnaires") {
            let study: String = row["studyID"]
            let id: String = row["questionnaireID"]
            guard !listed.contains("\(study)\u{1F}\(id)") else { continue }
            try db.execute(sql: "DELETE FROM core_study_questionnaires WHERE studyID = ? AND questionnaireID = ?",
                           arguments: [study, id])
            outcome.removed += 1
        }
        if let etag { try ETagStore.store(db, etag: etag, for: route) }
        return outcome
    }

    /// The definition of an entry, decoded and validated on its own.
    private static func accept(_ entry: AssignedQuestionnaire) throws -> QuestionnaireDefinition {
        guard let module = ModuleID(rawValue: entry.module), module == .shell || ModuleCatalog.module(module) != nil else {
            throw UNITIError(L("sync.questionnaire.unknownModule", ["module": entry.module]))
        }
        let data = try APIClient.encoder.encode(entry.definition)
        switch QuestionnaireValidator.validate(data: data) {
        case .failure(let error):
            throw UNITIError(error.message)
        case .success(let (definition, problems)):
            if let first = problems.first {
                throw UNITIError(L("sync.questionnaire.invalid", ["problems": L("questionnaire.count.problems", count: problems.count),
                                                                  "first": first.description]))
            }
            guard definition.id == entry.id, definition.version == entry.version else {
                throw UNITIError(L("sync.questionnaire.mismatch", [
                    "listed": "\(entry.id) v\(entry.version)", "inside": "\(definition.id) v\(definition.version)",
                ]))
            }
            return definition
        }
    }

    /// The stored questionnaires of the given studies, by study in the given order, then in the
    /// server's order.
    static func load(studies: [StudyDescriptor], in db: Database) throws -> [StudyQuestionnaire] {
        var result: [StudyQuestionnaire] = []
        for study in studies {
            let rows = try Row.fetchAll(db, sql: """
                SELECT questionnaireID, module, active, joinedAt, definition FROM core_study_questionnaires
                WHERE studyID = ? ORDER BY position
                """, arguments: [study.id])
            for row in rows {
                guard let module = ModuleID(rawValue: row["module"]),
                      let definition = try? APIClient.decoder.decode(QuestionnaireDefinition.self,
                                                                     from: Data((row["definition"] as String).utf8))
                else { continue }
                result.append(StudyQuestionnaire(studyID: study.id, studyTitle: study.title, module: module,
                                                 isActive: row["active"], joinedAt: Date(timeIntervalSince1970: row["joinedAt"]),
                                                 definition: definition))
            }
        }
        return result
    }
}
