import Foundation
import GRDB
import UNITIConfigurations
import UNITIProtocol

/// Decides which modules are enabled: the union of the modules of the studies the person has
/// joined, or, offline and before any login, those of the bundled default study.
public struct StudyCatalog: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// The bundled default study (`Configurations/Resources/default-study.json`). Its module list
    /// `["*"]` stands for every module of the one list, so a new module needs no edit here.
    public static let defaultStudy: StudyDescriptor = {
        guard let data = BundledConfiguration.data("default-study.json"),
              var study = try? JSONDecoder().decode(StudyDescriptor.self, from: data)
        else {
            // The file ships with the program; without it, fall back to enabling everything
            // rather than locking the person out of their own data.
            return StudyDescriptor(id: "uniti-default", title: "UNITI", modules: ModuleCatalog.ids.map(\.rawValue))
        }
        if study.modules == ["*"] { study.modules = ModuleCatalog.ids.map(\.rawValue) }
        return study
    }()

    /// The joined studies, or the default study when none is joined.
    public func activeStudies() throws -> [StudyDescriptor] {
        let joined = try joinedStudies()
        return joined.isEmpty ? [Self.defaultStudy] : joined
    }

    public func joinedStudies() throws -> [StudyDescriptor] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT descriptor FROM core_studies WHERE joinedAt IS NOT NULL ORDER BY joinedAt")
                .compactMap { try? JSONDecoder().decode(StudyDescriptor.self, from: Data($0.utf8)) }
        }
    }

    /// Every study known locally (joined or only seen), for telling which would enable a module.
    public func knownStudies() throws -> [StudyDescriptor] {
        let stored = try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT descriptor FROM core_studies ORDER BY id")
                .compactMap { try? JSONDecoder().decode(StudyDescriptor.self, from: Data($0.utf8)) }
        }
        return stored + [Self.defaultStudy]
    }

    /// The shared baseline questionnaires of the active studies, in order and without repeats
    /// (``baseline(of:)``).
    public func baselineQuestionnaireIDs() throws -> [String] {
        var ids: [String] = []
        for id in try activeStudies().flatMap(Self.baseline) where !ids.contains(id) { ids.append(id) }
        return ids
    }

    /// A study's baseline: its own, or else the default study's when it enables one of the
    /// default's `baselineModules` (a study of other modules asks for none).
    static func baseline(of study: StudyDescriptor) -> [String] {
        if let own = study.baseline { return own }
        let sharing = Set(defaultStudy.baselineModules ?? [])
        return study.id == defaultStudy.id || !sharing.isDisjoint(with: study.modules) ? defaultStudy.baseline ?? [] : []
    }

    /// Ids of the enabled modules.
    public func enabledModuleIDs() throws -> Set<ModuleID> {
        Set(try activeStudies().flatMap(\.modules).compactMap(ModuleID.init(rawValue:)))
    }

    /// A study that would enable `moduleID`, if any is known.
    public func studyEnabling(_ moduleID: ModuleID) throws -> StudyDescriptor? {
        try knownStudies().first { $0.modules.contains(moduleID.rawValue) }
    }

    /// Stores a study as joined (or updates it). Used by the study commands and sync.
    public func recordJoined(_ study: StudyDescriptor, at date: Date) throws {
        let json = String(decoding: try JSONEncoder().encode(study), as: UTF8.self)
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO core_studies(id, descriptor, joinedAt) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET descriptor = excluded.descriptor, joinedAt = excluded.joinedAt
                """, arguments: [study.id, json, date])
        }
    }

    /// Replaces what is known about the server's studies with the server's list, in the caller's
    /// transaction: member studies are joined (keeping their first join time), the others known.
    static func replaceServerStudies(_ db: Database, with studies: [(StudyDescriptor, joined: Bool)], at date: Date) throws {
        let ids = studies.map(\.0.id)
        let marks = ids.map { _ in "?" }.joined(separator: ",")
        try db.execute(sql: "DELETE FROM core_studies" + (ids.isEmpty ? "" : " WHERE id NOT IN (\(marks))"),
                       arguments: StatementArguments(ids))
        for (study, joined) in studies {
            let json = String(decoding: try JSONEncoder().encode(study), as: UTF8.self)
            try db.execute(sql: """
                INSERT INTO core_studies(id, descriptor, joinedAt) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET descriptor = excluded.descriptor,
                    joinedAt = CASE WHEN ? THEN COALESCE(core_studies.joinedAt, excluded.joinedAt) ELSE NULL END
                """, arguments: [study.id, json, joined ? date : nil, joined])
        }
    }

    /// Forgets that a study was joined (leaving it). With `erasingAnswers` (the server was asked
    /// to delete the person's answers to the study, and did), in the same transaction: the answer
    /// sheets and prompt events of the study's questionnaires still waiting in the outbox are
    /// dropped, and their number returned, so none of them may reach the server later (after
    /// joining again, say); and the sheets kept here are marked as erased from the server at
    /// `date`. The device keeps its own copy, as it keeps the answers already sent.
    @discardableResult
    public func recordLeft(_ studyID: String, erasingAnswersAt date: Date? = nil) throws -> Int {
        try database.writer.write { db in
            var dropped = 0
            if let date {
                let studyQuestionnaires = "SELECT questionnaireID FROM core_study_questionnaires WHERE studyID = ?"
                try db.execute(sql: """
                    DELETE FROM core_outbox WHERE kind IN (?, ?) AND
                        COALESCE(json_extract(CAST(payload AS TEXT), '$.questionnaireID'), json_extract(CAST(payload AS TEXT), '$.questionnaireId'))
                        IN (\(studyQuestionnaires))
                    """, arguments: [SheetOutbox.kind, PromptLog.outboxKind, studyID])
                dropped = db.changesCount
                try db.execute(sql: """
                    UPDATE core_answer_sheets SET erasedFromServerAt = ?
                    WHERE erasedFromServerAt IS NULL AND questionnaireID IN (\(studyQuestionnaires))
                    """, arguments: [date, studyID])
            }
            try db.execute(sql: "UPDATE core_studies SET joinedAt = NULL WHERE id = ?", arguments: [studyID])
            return dropped
        }
    }
}
