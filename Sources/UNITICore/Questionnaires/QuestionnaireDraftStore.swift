import Foundation
import GRDB
import UNITIProtocol

/// Keeps the draft of a questionnaire being answered, one per owner (module id) and
/// questionnaire, so an interrupted sheet can be resumed on the next start.
public struct QuestionnaireDraftStore: Sendable {
    let database: AppDatabase
    let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    public func save(_ draft: QuestionnaireDraft, owner: ModuleID) throws {
        try database.writer.write { db in try Self.save(draft, owner: owner, at: clock.now, in: db) }
    }

    /// Keeps a draft inside the caller's transaction.
    public static func save(_ draft: QuestionnaireDraft, owner: ModuleID, at date: Date, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO core_questionnaire_drafts(owner, questionnaireID, questionnaireVersion, draft, updatedAt)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(owner, questionnaireID) DO UPDATE SET
              questionnaireVersion = excluded.questionnaireVersion, draft = excluded.draft, updatedAt = excluded.updatedAt
            """, arguments: [owner.rawValue, draft.sheet.questionnaireID, draft.sheet.questionnaireVersion, try SheetJSON.encode(draft), date])
    }

    /// The draft and when it was last changed, inside the caller's transaction; nil without a
    /// draft or when it cannot be read.
    public static func draft(owner: ModuleID, questionnaireID: String, in db: Database) throws -> (draft: QuestionnaireDraft, updatedAt: Date)? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT draft, updatedAt FROM core_questionnaire_drafts WHERE owner = ? AND questionnaireID = ?
            """, arguments: [owner.rawValue, questionnaireID]),
            let draft = try? JSONDecoder().decode(QuestionnaireDraft.self, from: Data((row["draft"] as String).utf8))
        else { return nil }
        return (draft, row["updatedAt"])
    }

    /// The draft for a questionnaire, if any. A draft that cannot be read any more is reported,
    /// not silently dropped.
    public func draft(owner: ModuleID, questionnaireID: String) throws -> QuestionnaireDraft? {
        let json = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT draft FROM core_questionnaire_drafts WHERE owner = ? AND questionnaireID = ?",
                                arguments: [owner.rawValue, questionnaireID])
        }
        guard let json else { return nil }
        do {
            return try JSONDecoder().decode(QuestionnaireDraft.self, from: Data(json.utf8))
        } catch {
            throw UNITIError(L("questionnaire.error.draftUnreadable", ["id": questionnaireID, "reason": "\(error)"]))
        }
    }

    public func delete(owner: ModuleID, questionnaireID: String) throws {
        try database.writer.write { db in try Self.delete(owner: owner, questionnaireID: questionnaireID, in: db) }
    }

    public static func delete(owner: ModuleID, questionnaireID: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM core_questionnaire_drafts WHERE owner = ? AND questionnaireID = ?",
                       arguments: [owner.rawValue, questionnaireID])
    }
}

enum SheetJSON {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
