import Foundation
import UNITIProtocol

/// Everything the study server keeps, behind one interface so that the SQLite store (one file,
/// nothing to install) and a later PostgreSQL store (several server processes) are interchangeable.
///
/// Every method commits before it returns: a route answers only after its write is durable, so a
/// shutdown never loses an acknowledged write. Methods that take a `userId` only ever touch that
/// user's rows — isolation between participants is enforced here, not only in the routes.
public protocol ServerStore: Sendable, ModuleResourceStore {
    // MARK: Accounts
    func createUser(username: String, email: String, passwordHash: String, language: String,
                    pseudonym: String, now: Date) async throws -> Int64
    func user(id: Int64) async throws -> UserAccount?
    /// By e-mail (case-insensitive) or username.
    func user(login: String) async throws -> UserAccount?
    func users() async throws -> [UserAccount]
    func setActivated(userId: Int64) async throws
    func setActive(userId: Int64, active: Bool) async throws
    func setPasswordHash(userId: Int64, hash: String) async throws
    func updateProfile(userId: Int64, update: ProfileUpdate) async throws

    func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date) async throws
    /// Uses up a token: returns its user once, if the token is known, unused and not expired.
    func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64?

    func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date,
                       refreshHash: String, refreshExpiresAt: Date, now: Date) async throws
    /// The session's id and its account for a live access token (one lookup: every request needs it).
    func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)?
    /// Swaps a live refresh token for a new pair; returns the user, or nil when the refresh token is unknown or expired.
    func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                       newRefreshHash: String, refreshExpiresAt: Date, now: Date) async throws -> Int64?
    func revokeSession(id: Int64) async throws
    func revokeSessions(userId: Int64) async throws

    // MARK: Studies
    func createStudy(_ study: StudyRecord, now: Date) async throws
    func updateStudy(_ study: StudyRecord, now: Date) async throws
    func study(id: String) async throws -> StudyRecord?
    func studies() async throws -> [StudyRecord]
    func membership(studyId: String, userId: Int64) async throws -> MembershipStatus
    func memberships(userId: Int64) async throws -> [String: MembershipStatus]
    func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws
    func joinRequests(studyId: String?) async throws -> [JoinRequestRecord]

    // MARK: Questionnaires
    /// Stores a new version; returns false when this exact version is already stored with the same content.
    func addQuestionnaire(_ document: QuestionnaireDocument, now: Date) async throws -> Bool
    func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument?
    /// The study a questionnaire belongs to (every version belongs to the same one).
    func studyId(ofQuestionnaire id: String) async throws -> String?
    /// The newest version of every questionnaire of a study.
    func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument]

    // MARK: Answer sheets
    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome]
    func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int)
    /// Each participant's mean of the numeric answers to `label` in sheets finished within the period.
    func participantMeans(questionnaireId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double]
    func exportRows(studyId: String) async throws -> [ExportRow]

    // MARK: Module records
    func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome]
    /// Changes after `cursor` (a server sequence number), oldest first; with `updatedSince`, only
    /// records whose own update time is at or after it.
    func records(userId: Int64, after cursor: Int64, moduleId: String?, updatedSince: Date?,
                 limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool)
}
