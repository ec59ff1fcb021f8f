import Foundation
import GRDB
import UNITIProtocol

/// Questionnaire definitions pulled from the study server, every version kept (answers point at
/// the version they answered). A module asks for the newest version of an id and falls back to
/// the definition it ships when the server has none or only an older one.
public struct ServerQuestionnaires: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    static func store(_ db: Database, _ document: QuestionnaireDocument) throws {
        let json = String(decoding: try APIClient.encoder.encode(document.definition), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO core_server_questionnaires(id, version, studyID, definition) VALUES (?, ?, ?, ?)
            ON CONFLICT(id, version) DO UPDATE SET definition = excluded.definition, studyID = excluded.studyID
            """, arguments: [document.id, document.version, document.studyId, json])
    }

    /// The newest version of a questionnaire the server sent, if any.
    public func newest(id: String) throws -> QuestionnaireDefinition? {
        try database.writer.read { db in
            guard let json = try String.fetchOne(db, sql: """
                SELECT definition FROM core_server_questionnaires WHERE id = ? ORDER BY version DESC LIMIT 1
                """, arguments: [id]) else { return nil }
            return try? APIClient.decoder.decode(QuestionnaireDefinition.self, from: Data(json.utf8))
        }
    }

    /// The version to ask now: the server's when it is newer than the bundled one (or there is
    /// no bundled one), else the bundled one.
    public func active(id: String) throws -> QuestionnaireDefinition {
        let server = try newest(id: id)
        guard let bundled = try? QuestionnaireLoader.bundled(id) else {
            if let server { return server }
            return try QuestionnaireLoader.bundled(id)  // throws the one-line "not found" error
        }
        if let server, server.version > bundled.version { return server }
        return bundled
    }

    /// A specific version, for showing an answer next to the questions it answered.
    public func definition(id: String, version: Int) throws -> QuestionnaireDefinition? {
        try database.writer.read { db in
            guard let json = try String.fetchOne(db, sql: """
                SELECT definition FROM core_server_questionnaires WHERE id = ? AND version = ?
                """, arguments: [id, version]) else { return nil }
            return try? APIClient.decoder.decode(QuestionnaireDefinition.self, from: Data(json.utf8))
        }
    }
}
