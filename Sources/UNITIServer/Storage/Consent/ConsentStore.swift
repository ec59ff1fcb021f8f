import Foundation
import UNITIProtocol

/// A consent version a person agreed to, with its text as it was then.
public struct ConsentAgreement: Sendable, Hashable, Decodable {
    public var studyId: String
    public var version: Int
    public var agreedAt: Date
    public var text: LocalizedText
}

/// One version of a study's consent as the team sees it: its text, when it was published and
/// how many people agreed to it.
public struct ConsentVersion: Sendable, Hashable, Decodable {
    public var version: Int
    public var publishedAt: Date
    public var text: LocalizedText
    public var agreements: Int
}

/// Where consent is kept: every text a study has had (`consent_versions`, numbered from 1, the
/// current number on `studies.consent_version`) and who agreed to which version when
/// (`consent_agreements`, part of the person's data). A version is never changed or removed, so
/// a person can always read what they agreed to.
extension ServerStore {
    /// Makes the study's current consent text (`studies.consent`) its next version, in the
    /// caller's transaction.
    static func addConsentVersion(_ db: any SQLExecutor, studyId: String, now: Date) async throws {
        try await db.execute("UPDATE studies SET consent_version = COALESCE(consent_version, 0) + 1 WHERE id = \(studyId)")
        try await db.execute("""
            INSERT INTO consent_versions (study_id, version, text, created_at)
            SELECT id, consent_version, consent, \(now) FROM studies WHERE id = \(studyId)
            """)
    }

    /// Records that the person agreed to `version` of the study's consent; false (nothing
    /// recorded) when it is not the current version. Agreeing again keeps the first time.
    func recordConsent(userId: Int64, studyId: String, version: Int, now: Date) async throws -> Bool {
        try await database.transaction { db in
            guard try await db.row("SELECT 1 AS current FROM studies WHERE id = \(studyId) AND consent_version = \(version)") != nil else {
                return false
            }
            try await db.execute("""
                INSERT INTO consent_agreements (user_id, study_id, version, agreed_at) VALUES (\(userId), \(studyId), \(version), \(now))
                ON CONFLICT (user_id, study_id, version) DO NOTHING
                """)
            return true
        }
    }

    /// The consent versions the person agreed to (of one study, or of all), oldest first, each
    /// with its text.
    func consentAgreements(userId: Int64, studyId: String? = nil) async throws -> [ConsentAgreement] {
        try await Self.consentAgreements(database, userId: userId, studyId: studyId)
    }

    /// ``consentAgreements(userId:studyId:)`` on `db` (a snapshot of the person's data).
    static func consentAgreements(_ db: any SQLExecutor, userId: Int64, studyId: String? = nil) async throws -> [ConsentAgreement] {
        var sql: SQL = """
            SELECT a.study_id, a.version, a.agreed_at, v.text FROM consent_agreements a
            JOIN consent_versions v ON v.study_id = a.study_id AND v.version = a.version WHERE a.user_id = \(userId)
            """
        if let studyId { sql += " AND a.study_id = \(studyId)" }
        return try await db.rows(sql + " ORDER BY a.agreed_at, a.study_id, a.version").map { try $0.decode(ConsentAgreement.self) }
    }

    /// Every consent version of the study, newest first, each with the number of agreements to it
    /// (the console's consent page).
    func consentVersions(studyId: String) async throws -> [ConsentVersion] {
        try await database.rows("""
            SELECT v.version, v.created_at AS published_at, v.text,
                (SELECT COUNT(*) FROM consent_agreements a WHERE a.study_id = v.study_id AND a.version = v.version) AS agreements
            FROM consent_versions v WHERE v.study_id = \(studyId) ORDER BY v.version DESC
            """).map { try $0.decode(ConsentVersion.self) }
    }

    /// The newest consent version each member of the study agreed to, by user id (none: absent).
    func agreedConsentVersions(studyId: String) async throws -> [Int64: Int] {
        try await newestAgreements(key: "user_id", where: "study_id = \(studyId)")
    }

    /// The newest consent version the person agreed to in each study, by study id.
    func agreedConsentVersions(userId: Int64) async throws -> [String: Int] {
        try await newestAgreements(key: "study_id", where: "user_id = \(userId)")
    }

    private func newestAgreements<Key: Hashable & SQLDecodable>(key: String, where condition: SQL) async throws -> [Key: Int] {
        var result: [Key: Int] = [:]
        for row in try await database.rows("""
            SELECT \(raw: key) AS key, MAX(version) AS version FROM consent_agreements WHERE \(condition) GROUP BY \(raw: key)
            """) {
            result[try row["key"]] = try row["version"]
        }
        return result
    }
}
