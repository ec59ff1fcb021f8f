import Foundation
import PostgresNIO
import UNITIProtocol

/// ``QuestionnaireStore`` on PostgreSQL: the twin of `SQLiteServerStore+Questionnaires.swift`.
extension PostgreSQLServerStore: QuestionnaireStore {
    static func link(_ row: PostgresRandomAccessRow) throws -> QuestionnaireLink {
        let module: String = try row.value("module")
        guard let moduleId = ModuleID(rawValue: module) else {
            throw StoreCorruption("questionnaire_links.module '\(module)' is not a module id")
        }
        let deactivatedAt: Double? = try row.value("deactivated_at")
        return QuestionnaireLink(questionnaireId: try row.value("questionnaire_id"), studyId: try row.value("study_id"), module: moduleId,
                                 deactivatedAt: deactivatedAt.map(Date.init(timeIntervalSince1970:)))
    }

    static func document(_ row: PostgresRandomAccessRow) throws -> QuestionnaireDocument {
        QuestionnaireDocument(id: try row.value("id"), version: Int(try row.value("version", as: Int32.self)), studyId: try row.value("study_id"),
                              definition: try JSONCoding.decode(QuestionnaireDefinition.self, from: try row.value("definition")))
    }

    public func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?, now: Date) async throws -> QuestionnaireImportResult {
        let definition = try JSONCoding.string(document.definition)
        let version = Int32(document.version)
        return try await transaction { connection in
            // Imports of one questionnaire id wait for each other (two coordinators at once).
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(document.id)))", logger: logger)
            var versionAdded = true
            let existing = try await connection.query("""
                SELECT study_id, definition FROM questionnaires WHERE id = \(document.id) AND version = \(version)
                """, logger: logger).collect().first?.makeRandomAccess()
            if let existing {
                guard try existing.value("study_id", as: String.self) == document.studyId,
                      try existing.value("definition", as: String.self) == definition else {
                    throw APIError.invalid("version_exists", "Questionnaire \(document.id) version \(document.version) is already stored with other content; give the changed definition a higher version.")
                }
                versionAdded = false
            }
            if let owner = try await connection.query("SELECT study_id FROM questionnaires WHERE id = \(document.id) LIMIT 1", logger: logger)
                .collect().first?.makeRandomAccess().value("study_id", as: String.self), owner != document.studyId {
                throw APIError.invalid("questionnaire_owned", "Questionnaire \(document.id) belongs to study \(owner).")
            }
            if versionAdded {
                try await connection.query("""
                    INSERT INTO questionnaires (id, version, study_id, definition, imported_at)
                    VALUES (\(document.id), \(version), \(document.studyId), \(definition), \(now.timeIntervalSince1970))
                    """, logger: logger)
            }
            let previous = try await connection.query("""
                SELECT questionnaire_id, study_id, module, deactivated_at FROM questionnaire_links WHERE questionnaire_id = \(document.id)
                """, logger: logger).collect().first.map { try Self.link($0.makeRandomAccess()) }
            let chosen = module ?? previous?.module ?? QuestionnaireModules.defaultModule(for: document.id)
            if let previous {
                if previous.module != chosen {
                    try await connection.query("""
                        UPDATE questionnaire_links SET module = \(chosen.rawValue) WHERE questionnaire_id = \(document.id)
                        """, logger: logger)
                }
            } else {
                try await connection.query("""
                    INSERT INTO questionnaire_links (questionnaire_id, study_id, module) VALUES (\(document.id), \(document.studyId), \(chosen.rawValue))
                    """, logger: logger)
            }
            return QuestionnaireImportResult(versionAdded: versionAdded, module: chosen, previousModule: previous?.module)
        }
    }

    public func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument? {
        let key = "\(id)#\(version)"
        if let cached = questionnaireCache.withLock({ $0[key] }) { return cached }
        let document = try await rows("""
            SELECT id, version, study_id, definition FROM questionnaires WHERE id = \(id) AND version = \(Int32(clamping: version))
            """).first.map(Self.document)
        if let document { questionnaireCache.withLock { $0[key] = document } }
        return document
    }

    public func studyId(ofQuestionnaire id: String) async throws -> String? {
        try await rows("SELECT study_id FROM questionnaires WHERE id = \(id) LIMIT 1").first.map { try $0.value("study_id") }
    }

    public func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument] {
        try await rows("""
            SELECT q.id, q.version, q.study_id, q.definition FROM questionnaires q
            WHERE q.study_id = \(studyId) AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = q.id)
            ORDER BY q.id
            """).map(Self.document)
    }

    public func questionnaireLink(id: String) async throws -> QuestionnaireLink? {
        try await rows("""
            SELECT questionnaire_id, study_id, module, deactivated_at FROM questionnaire_links WHERE questionnaire_id = \(id)
            """).first.map(Self.link)
    }

    public func questionnaireLinks(studyId: String) async throws -> [QuestionnaireLink] {
        try await rows("""
            SELECT questionnaire_id, study_id, module, deactivated_at FROM questionnaire_links WHERE study_id = \(studyId) ORDER BY sequence
            """).map(Self.link)
    }

    public func setQuestionnaireActive(id: String, studyId: String, active: Bool, now: Date) async throws -> QuestionnaireLink? {
        // A repeated deactivation keeps the first time: sheets started in between stay refused.
        let deactivatedAt: Double? = active ? nil : now.timeIntervalSince1970
        return try await rows("""
            UPDATE questionnaire_links SET deactivated_at = CASE WHEN \(active) THEN NULL ELSE COALESCE(deactivated_at, \(deactivatedAt)) END
            WHERE questionnaire_id = \(id) AND study_id = \(studyId)
            RETURNING questionnaire_id, study_id, module, deactivated_at
            """).first.map(Self.link)
    }

    public func memberQuestionnaires(userId: Int64) async throws -> [MemberQuestionnaire] {
        try await rows("""
            SELECT l.questionnaire_id, l.study_id, l.module, l.deactivated_at, q.version, q.definition,
                   COALESCE(m.joined_at, m.updated_at) AS joined_at
            FROM memberships m
            JOIN questionnaire_links l ON l.study_id = m.study_id
            JOIN questionnaires q ON q.id = l.questionnaire_id
                AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = l.questionnaire_id)
            WHERE m.user_id = \(userId) AND m.status = 'member'
            ORDER BY joined_at, m.study_id, l.sequence
            """).map { row in
            MemberQuestionnaire(link: try Self.link(row), version: Int(try row.value("version", as: Int32.self)),
                                definition: try JSONCoding.decode(JSONValue.self, from: try row.value("definition")),
                                joinedAt: Date(timeIntervalSince1970: try row.value("joined_at")))
        }
    }
}

/// A value in the database that this server cannot read (written by hand or by a broken version).
struct StoreCorruption: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
