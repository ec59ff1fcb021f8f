import Foundation
import UNITIProtocol

/// A study's participant as its team sees it in the console: a pseudonym, never a name, address
/// or IP.
public struct StudyParticipant: Sendable, Hashable, Decodable {
    public var userId: Int64
    public var pseudonym: String
    public var status: MembershipStatus
    public var joinedAt: Date?
    public var requestedAt: Date?
    /// When the status last changed (a decision, a join, leaving).
    public var updatedAt: Date
    /// The newest consent version agreed to (nil: none on record).
    public var consentVersion: Int?
    public var sheets: Int
    /// When the newest of their sheets was answered (its end, or its start while unfinished),
    /// not when it arrived.
    public var lastAnswerAt: Date?
    /// The study's site they belong to (``StudySite``; nil: none yet).
    public var site: String?
}

/// What the console's study pages read: members, join requests and those who left, with their
/// sheets, and sheets per day: one query each, the sheets counted from the tallies the store keeps
/// (``TallySchema``), not from the sheets.
extension ServerStore {
    /// Members, pending and denied requests and those who left a study, by pseudonym; with
    /// `pseudonym`, that one only.
    func studyParticipants(studyId: String, pseudonym: String? = nil) async throws -> [StudyParticipant] {
        var sql: SQL = """
            SELECT m.user_id, u.pseudonym, m.status, m.joined_at, m.requested_at, m.updated_at,
                (SELECT MAX(c.version) FROM consent_agreements c WHERE c.user_id = m.user_id AND c.study_id = m.study_id) AS consent_version,
                COALESCE(t.sheets, 0) AS sheets, t.last_answer_at, ms.site_id AS site
            FROM memberships m JOIN users u ON u.id = m.user_id
            LEFT JOIN member_tallies t ON t.study_id = m.study_id AND t.user_id = m.user_id
            LEFT JOIN member_sites ms ON ms.study_id = m.study_id AND ms.user_id = m.user_id
            WHERE m.study_id = \(studyId) AND m.status IN (\(list: [MembershipStatus.member, .pending, .denied, .left].map(\.rawValue)))
            """
        if let pseudonym { sql += " AND u.pseudonym = \(pseudonym)" }
        return try await database.rows(sql + " ORDER BY u.pseudonym").map { try $0.decode(StudyParticipant.self) }
    }

    /// A person's sign-ins on their devices (each device keeps its own session), oldest first:
    /// when it began, when its tokens were last renewed (a device renews them as it syncs), when it ended.
    func deviceSessions(userId: Int64) async throws -> [(started: Date, renewed: Date?, ended: Date?)] {
        try await database.rows("""
            SELECT created_at, rotated_at, revoked_at FROM sessions WHERE user_id = \(userId) ORDER BY created_at
            """).map { (started: try $0["created_at"], renewed: try $0["rotated_at"], ended: try $0["revoked_at"]) }
    }

    /// When the newest of a person's uploads arrived: a sheet or a prompt event.
    func lastUpload(userId: Int64) async throws -> Date? {
        try await database.row("""
            SELECT MAX(t) AS last FROM (SELECT MAX(received_at) AS t FROM answer_sheets WHERE user_id = \(userId)
                UNION ALL SELECT MAX(received_at) AS t FROM prompts WHERE user_id = \(userId)) uploads
            """)?["last"]
    }

    /// A participant's sheets in a study, newest first: id, questionnaire, when begun and ended, and who began it.
    func participantSheets(userId: Int64, studyId: String) async throws -> [AnswerSheet] {
        try await database.rows("""
            SELECT sheet FROM answer_sheets WHERE user_id = \(userId) AND study_id = \(studyId) ORDER BY started_at DESC
            """).map { try JSONCoding.decode(AnswerSheet.self, from: try $0["sheet"] as String) }
    }

    /// The number of a study's sheets started on each UTC day (days as seconds since 1970 / 86,400),
    /// from the day tallies (``TallySchema``).
    func sheetsPerDay(studyId: String) async throws -> [(day: Int, sheets: Int)] {
        try await dayTallies("sheets", subjects: [studyId]).map { (day: $0.day, sheets: $0.count) }
    }
}
