import Foundation
import UNITIProtocol


/// How a questionnaire (every version of it) is offered to the participants of its study.
public struct QuestionnaireLink: Sendable, Hashable, Codable {
    public var questionnaireId: String
    public var studyId: String
    /// The module that presents it on the devices.
    public var module: ModuleID
    /// When the coordinator deactivated it; nil while it is active. Sheets started from then on
    /// are refused, sheets started before (answered offline, sent later) are still accepted.
    public var deactivatedAt: Date?

    public var isActive: Bool { deactivatedAt == nil }

    /// Whether a sheet started at `startedAt` may still be stored.
    public func accepts(sheetStartedAt startedAt: Date) -> Bool {
        deactivatedAt.map { startedAt < $0 } ?? true
    }
}

/// What an import did.
public struct QuestionnaireImportResult: Sendable, Hashable {
    /// False when this exact version was stored already.
    public var versionAdded: Bool
    /// The module that presents the questionnaire now.
    public var module: ModuleID
    /// The module before this import; nil for a questionnaire imported for the first time.
    public var previousModule: ModuleID?
}

/// One questionnaire of a study the user is a member of, as ``QuestionnaireStore/memberQuestionnaires(userId:)`` gives it.
public struct MemberQuestionnaire: Sendable, Hashable {
    public var link: QuestionnaireLink
    /// The newest version and its definition in the core format, as stored.
    public var version: Int
    public var definition: JSONValue
    /// When the user became a member of the study.
    public var joinedAt: Date
    /// The study's declared languages (``StudyRecord/languages``), read in the same statement:
    /// a definition that declares none is served with them (``StudyLanguages``).
    public var studyLanguages: [String]?
}

/// Where questionnaire definitions are kept, every version of each, for the study that owns it,
/// and how each questionnaire is offered: the module that presents it and whether it is active.
///
///
/// A stored version never changes (a changed definition needs a higher version), so answers
/// given to an older version can always be checked and read against it. The link to a module and
/// the deactivation belong to the questionnaire id, all versions alike.
///
/// The tables `questionnaires` (every version's definition as JSON text with sorted keys, so
/// equal definitions are equal text) and `questionnaire_links` (one row per questionnaire id, in
/// the order of first imports).
extension ServerStore {
    /// Stores a new version, in the same transaction as the questionnaire's link: `module` sets
    /// it; nil keeps the link a questionnaire has, and gives a new one its default
    /// (``QuestionnaireModules/defaultModule(for:modules:bundledIds:)``). An unchanged version is not
    /// stored again, but a given module still changes the link. Throws 422 `version_exists` for
    /// the same version with other content, and `questionnaire_owned` when another study owns
    /// the questionnaire (naming no study).
    func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?, now: Date) async throws -> QuestionnaireImportResult {
        let definition = try JSONCoding.string(document.definition)
        return try await database.transaction { db in
            try await db.lock(.name(document.id, .questionnaireImports))
            // Another study's id first, whatever the version: as for any taken id, naming no study
            // and telling nothing of its versions (the other study is none of this team's business).
            if let owner: String = try await db.row("SELECT study_id FROM questionnaires WHERE id = \(document.id) LIMIT 1")?["study_id"],
               owner != document.studyId {
                throw APIError.invalid("questionnaire_owned", "The id '\(document.id)' is taken by another questionnaire; give this one an id of its own.")
            }
            var versionAdded = true
            if let existing = try await db.row("""
                SELECT definition FROM questionnaires WHERE id = \(document.id) AND version = \(document.version)
                """) {
                guard try existing["definition"] == definition else {
                    throw APIError.invalid("version_exists", "Questionnaire \(document.id) version \(document.version) is already stored with other content; give the changed definition a higher version.")
                }
                versionAdded = false
            }
            if versionAdded {
                try await db.execute("""
                    INSERT INTO questionnaires (id, version, study_id, definition, imported_at)
                    VALUES (\(document.id), \(document.version), \(document.studyId), \(definition), \(now))
                    """)
            }
            let previous = try await db.row("\(QuestionnaireLinks.select) WHERE questionnaire_id = \(document.id)").map(QuestionnaireLinks.link)
            let chosen = module ?? previous?.module ?? QuestionnaireModules.defaultModule(for: document.id, modules: self.modules)
            if let previous {
                if previous.module != chosen {
                    try await db.execute("UPDATE questionnaire_links SET module = \(chosen.rawValue) WHERE questionnaire_id = \(document.id)")
                }
            } else {
                try await db.execute("""
                    INSERT INTO questionnaire_links (questionnaire_id, study_id, module) VALUES (\(document.id), \(document.studyId), \(chosen.rawValue))
                    """)
            }
            return QuestionnaireImportResult(versionAdded: versionAdded, module: chosen, previousModule: previous?.module)
        }
    }

    package func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument? {
        let key = "\(id)#\(version)"
        if let cached = questionnaireCache.withLock({ $0[key] }) { return cached }
        let document = try await database.row("""
            SELECT id, version, study_id, definition FROM questionnaires WHERE id = \(id) AND version = \(version)
            """).map(Self.document)
        if let document { questionnaireCache.withLock { $0[key] = document } }
        return document
    }

    /// The study a questionnaire belongs to (every version belongs to the same one).
    func studyId(ofQuestionnaire id: String) async throws -> String? {
        try await database.row("SELECT study_id FROM questionnaires WHERE id = \(id) LIMIT 1")?["study_id"]
    }

    /// The newest version of every questionnaire of a study.
    func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument] {
        try await database.rows("""
            SELECT q.id, q.version, q.study_id, q.definition FROM questionnaires q
            WHERE q.study_id = \(studyId) AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = q.id)
            ORDER BY q.id
            """).map(Self.document)
    }

    /// Every version of every questionnaire of a study, by id and version (the export's codebook).
    func questionnaires(studyId: String) async throws -> [QuestionnaireDocument] {
        try await database.rows("""
            SELECT id, version, study_id, definition FROM questionnaires WHERE study_id = \(studyId) ORDER BY id, version
            """).map(Self.document)
    }

    /// How a questionnaire is offered; nil for an id never imported.
    func questionnaireLink(id: String) async throws -> QuestionnaireLink? {
        try await database.row("\(QuestionnaireLinks.select) WHERE questionnaire_id = \(id)").map(QuestionnaireLinks.link)
    }

    /// What an upload checks of a questionnaire's study, in one statement (every upload asks): the
    /// user's standing in `studyId`, the questionnaire's link (nil when it has none), and the
    /// study's current consent version when the user has not agreed to it (nil when agreed, or
    /// when the study has no consent).
    func sheetAccess(questionnaireId: String, studyId: String, userId: Int64) async throws
        -> (MembershipStatus, QuestionnaireLink?, consentMissing: Int?) {
        guard let row = try await database.frequentRows(SheetAccessRead.self, """
            SELECT (SELECT status FROM memberships WHERE study_id = \(studyId) AND user_id = \(userId)) AS status,
                   (SELECT consent_version FROM studies WHERE id = \(studyId)) AS consent_version,
                   (SELECT MAX(version) FROM consent_agreements WHERE user_id = \(userId) AND study_id = \(studyId)) AS agreed_version,
                   l.questionnaire_id, l.study_id, l.module, l.deactivated_at
            FROM (SELECT 1 AS one) AS one LEFT JOIN questionnaire_links l ON l.questionnaire_id = \(questionnaireId)
            """).first else { throw StoreCorruption("the upload's access check came back without a row") }
        let access = try row.decode(SheetAccess.self)
        let missing = access.consentVersion.flatMap { $0 > (access.agreedVersion ?? 0) ? $0 : nil }
        return (access.status ?? .none, try access.questionnaireId.map { _ in try QuestionnaireLinks.link(row) }, missing)
    }

    /// What ``sheetAccess(questionnaireId:studyId:userId:)`` reads besides the link.
    private struct SheetAccess: Decodable {
        var status: MembershipStatus?, consentVersion: Int?, agreedVersion: Int?, questionnaireId: String?
    }

    /// Every upload's read.
    private enum SheetAccessRead: FrequentRead {}

    /// The links of a study's questionnaires, in the order they were first imported.
    func questionnaireLinks(studyId: String) async throws -> [QuestionnaireLink] {
        try await database.rows("\(QuestionnaireLinks.select) WHERE study_id = \(studyId) ORDER BY sequence").map(QuestionnaireLinks.link)
    }

    /// Deactivates a questionnaire of the study (a second deactivation keeps the first time) or
    /// activates it again; returns the link as it is now, nil when the study has no such questionnaire.
    func setQuestionnaireActive(id: String, studyId: String, active: Bool, now: Date) async throws -> QuestionnaireLink? {
        // A repeated deactivation keeps the first time: sheets started in between stay refused.
        try await database.transaction { db in
            try await db.row("""
                UPDATE questionnaire_links SET deactivated_at = CASE WHEN \(active) THEN NULL ELSE COALESCE(deactivated_at, \(now)) END
                WHERE questionnaire_id = \(id) AND study_id = \(studyId)
                RETURNING questionnaire_id, study_id, module, deactivated_at
                """).map(QuestionnaireLinks.link)
        }
    }

    /// The newest version of every questionnaire of every study the user is a member of: studies
    /// in the order the user joined them, each study's questionnaires in the order first imported.
    func memberQuestionnaires(userId: Int64) async throws -> [MemberQuestionnaire] {
        try await database.rows("""
            SELECT l.questionnaire_id, l.study_id, l.module, l.deactivated_at, q.version, q.definition,
                   COALESCE(m.joined_at, m.updated_at) AS joined_at, st.languages AS study_languages
            FROM memberships m
            JOIN studies st ON st.id = m.study_id
            JOIN questionnaire_links l ON l.study_id = m.study_id
            JOIN questionnaires q ON q.id = l.questionnaire_id
                AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = l.questionnaire_id)
            WHERE m.user_id = \(userId) AND m.status = 'member'
            ORDER BY joined_at, m.study_id, l.sequence
            """).map { row in
            let newest = try row.decode(Newest.self)
            return MemberQuestionnaire(link: try QuestionnaireLinks.link(row), version: newest.version, definition: newest.definition,
                                       joinedAt: newest.joinedAt, studyLanguages: newest.studyLanguages)
        }
    }

    /// What ``memberQuestionnaires(userId:)`` reads besides the link.
    private struct Newest: Decodable {
        var version: Int, definition: JSONValue, joinedAt: Date, studyLanguages: [String]?
    }

    private static func document(_ row: SQLRow) throws -> QuestionnaireDocument {
        try row.decode(QuestionnaireDocument.self)
    }
}

/// Reading `questionnaire_links` rows.
enum QuestionnaireLinks {
    static let select: SQL = "SELECT questionnaire_id, study_id, module, deactivated_at FROM questionnaire_links"

    static func link(_ row: SQLRow) throws -> QuestionnaireLink {
        try row.decode(QuestionnaireLink.self)
    }
}
