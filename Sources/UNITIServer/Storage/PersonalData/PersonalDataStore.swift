import Foundation
import UNITIProtocol

/// Everything the store keeps about one person, read in one transaction for the person's own
/// download (portal `/data/export.json`). Part of every ``ServerStore``.
///
/// Secrets stay out: no password hash, no session, refresh or mail-token hash. Each store names
/// the tables it reads in ``personalDataSections``; a test checks that every table holding
/// per-user rows is named there, so a table added later cannot be left out silently.
public protocol PersonalDataStore: Sendable {
    func personalData(userId: Int64) async throws -> PersonalData?
}

/// The stored part of a person's data export (``PersonalDataExport`` adds what is computed).
public struct PersonalData: Codable, Sendable {
    public struct Account: Codable, Sendable {
        public var username: String
        public var email: String
        public var firstName: String?
        public var lastName: String?
        public var gender: String
        public var language: String
        public var activated: Bool
        public var active: Bool
        public var pseudonym: String
        public var createdAt: String
    }

    public struct Membership: Codable, Sendable {
        public var studyId: String
        public var status: String
        public var requestedAt: String
        public var updatedAt: String
        public var joinedAt: String?
    }

    /// A login (app or browser): when it began, until when it lasts, whether it was ended.
    public struct Session: Codable, Sendable {
        public var createdAt: String
        public var expiresAt: String
        public var revokedAt: String?
    }

    /// A code that was mailed (activation, password reset), without the code: until when it
    /// could be used, and when it was used or cancelled (by a newer code, the use of another, or a
    /// new password). One with neither is still open.
    public struct MailedCode: Codable, Sendable {
        public var purpose: String
        public var expiresAt: String
        public var usedAt: String?
        public var cancelledAt: String?
    }

    /// Wrong study passwords still counted against the person (the throttle), per study.
    public struct StudyPasswordFailures: Codable, Sendable {
        public var studyId: String
        public var failures: Int
        public var firstFailure: String
        public var lastFailure: String
    }

    public var account: Account
    public var memberships: [Membership]
    /// Every answer sheet as it was sent, with its study and when the server received it (the
    /// `answers` table is an index of these same answers).
    public var sheets: [StoredAnswerSheet]
    /// Every synced module record, tombstones included.
    public var records: [ModuleRecord]
    public var sessions: [Session]
    public var mailedCodes: [MailedCode]
    public var studyPasswordFailures: [StudyPasswordFailures]
}

extension PersonalData.Account {
    /// What the download shows of an account: everything but the password hash.
    init(_ account: UserAccount) {
        self.init(username: account.username, email: account.email, firstName: account.firstName, lastName: account.lastName,
                  gender: account.gender.rawValue, language: account.language, activated: account.activated,
                  active: account.active, pseudonym: account.pseudonym, createdAt: Timestamps.format(account.createdAt))
    }
}
