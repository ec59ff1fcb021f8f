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
    /// The newest consent version agreed to (nil: none on record).
    public var consentVersion: Int?
    public var sheets: Int
    /// When the newest of their sheets arrived.
    public var lastSheetAt: Date?
}

/// What the console's study pages read: members and join requests with their sheets, and sheets
/// per day. One query each, since a study team opens these pages a few times a day.
extension ServerStore {
    /// Members, pending requests and denied ones of a study, by pseudonym.
    func studyParticipants(studyId: String) async throws -> [StudyParticipant] {
        try await database.rows("""
            SELECT m.user_id, u.pseudonym, m.status, m.joined_at, m.requested_at,
                (SELECT MAX(c.version) FROM consent_agreements c WHERE c.user_id = m.user_id AND c.study_id = m.study_id) AS consent_version,
                (SELECT COUNT(*) FROM answer_sheets s WHERE s.user_id = m.user_id AND s.study_id = m.study_id) AS sheets,
                (SELECT MAX(s.received_at) FROM answer_sheets s WHERE s.user_id = m.user_id AND s.study_id = m.study_id) AS last_sheet_at
            FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.study_id = \(studyId) AND m.status IN (\(list: [MembershipStatus.member, .pending, .denied].map(\.rawValue)))
            ORDER BY u.pseudonym
            """).map { try $0.decode(StudyParticipant.self) }
    }

    /// The number of a study's sheets started on each UTC day (days as seconds since 1970 / 86,400).
    func sheetsPerDay(studyId: String) async throws -> [(day: Int, sheets: Int)] {
        try await database.rows("""
            SELECT \(sqlite: "CAST(started_at / 86400 AS INTEGER)", postgres: "CAST(FLOOR(started_at / 86400) AS bigint)") AS day, COUNT(*) AS sheets
            FROM answer_sheets WHERE study_id = \(studyId) GROUP BY 1 ORDER BY 1
            """).map { (day: try $0["day"], sheets: try $0["sheets"]) }
    }
}
