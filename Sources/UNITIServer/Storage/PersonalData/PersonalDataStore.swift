import Foundation
import UNITIProtocol


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
        /// The study site (clinical centre) they belong to, by its id.
        public var site: String? = nil
        /// The consent versions agreed to in this study, oldest first, each with its text.
        public var consents: [Consent] = []
    }

    /// A consent version agreed to, with its text as it was then.
    public struct Consent: Codable, Sendable {
        public var version: Int
        public var agreedAt: String
        public var text: LocalizedText
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
    /// Every prompt lifecycle event the person's devices sent, as sent.
    public var promptEvents: [PromptEvent] = []
    /// The alerts the study teams' rules raised about the person: which rule, when, and when a
    /// team member marked it seen with what note.
    public var alerts: [Alert] = []
    /// The person's randomisations in trials: the study, the allocation's number and time and the
    /// levels it was stratified by. The arm is withheld: a trial may keep it from participants
    /// while it runs (blinding); the modules their programs offer follow it all the same.
    public var allocations: [Allocation] = []

    public struct Allocation: Codable, Sendable {
        public var studyId: String
        public var number: Int
        public var allocatedAt: String
        public var stratum: String
    }

    /// The person's screenings kept under their account (eligible ones, and ineligible ones whose
    /// answers they let the study keep): when, whether eligible, the rules not met, the answers kept.
    public var screenings: [Screening] = []

    public struct Screening: Codable, Sendable {
        public var studyId: String
        public var screenedAt: String
        public var eligible: Bool
        public var rulesNotMet: [String]
        public var answers: AnswerSheet?
    }

    public struct Alert: Codable, Sendable {
        public var studyId: String
        public var rule: String
        public var kind: String
        public var raisedAt: String
        public var seenAt: String?
        public var note: String?
    }
}

extension PersonalData.Account {
    /// What the download shows of an account: everything but the password hash.
    init(_ account: UserAccount) {
        self.init(username: account.username, email: account.email, firstName: account.firstName, lastName: account.lastName,
                  gender: account.gender.rawValue, language: account.language, activated: account.activated,
                  active: account.active, pseudonym: account.pseudonym, createdAt: Timestamps.format(account.createdAt))
    }
}

extension ServerStore {
    /// The tables ``personalData(userId:)`` reads, each with the section of ``PersonalData`` that
    /// carries its rows. Every table with per-user rows must be here (a test reads the schema).
    static var personalDataSections: [String: String] {
        [
            "users": "account",
            "memberships": "memberships",
            "member_sites": "memberships",
            "consent_agreements": "memberships",
            "answer_sheets": "sheets",
            "answers": "sheets",
            "module_records": "records",
            "sessions": "sessions",
            "mail_tokens": "mailedCodes",
            "study_password_failures": "studyPasswordFailures",
            "prompt_events": "promptEvents",
            // Each prompt's kinds of event, derived from the events the download holds in full.
            "prompts": "promptEvents",
            "alerts": "alerts",
            // Sums of the person's numeric answers, derived from the sheets the download holds in full.
            "comparison_totals": "sheets",
            // Counts of the person's sheets and prompts (``TallySchema``), derived from what the
            // download holds in full.
            "member_tallies": "sheets",
            "prompt_tallies": "promptEvents",
            "allocations": "allocations",
            "screenings": "screenings",
        ]
    }
}

/// Everything the store keeps about one person, read in one transaction for the person's own
/// download (portal `/data/export.json`).
///
/// Secrets stay out: no password hash, no session, refresh or mail-token hash. The tables read
/// are named in ``ServerStore/personalDataSections``; a test checks that every table holding
/// per-user rows is named there, so a table added later cannot be left out silently.
extension ServerStore {
    /// Read in one snapshot, so the parts agree with each other.
    func personalData(userId: Int64) async throws -> PersonalData? {
        try await database.snapshot { db in
            guard let account = try await db.row("\(Accounts.select) WHERE id = \(userId)").map(Accounts.account) else { return nil }
            func time(_ date: Date?) -> String? { date.map(Timestamps.format) }
            var memberships = try await db.rows("""
                SELECT study_id, status, requested_at, updated_at, joined_at FROM memberships WHERE user_id = \(userId)
                ORDER BY requested_at, study_id
                """).map { try $0.decode(Rows.Membership.self) }.map {
                PersonalData.Membership(studyId: $0.studyId, status: $0.status, requestedAt: Timestamps.format($0.requestedAt),
                                        updatedAt: Timestamps.format($0.updatedAt), joinedAt: time($0.joinedAt))
            }
            for row in try await db.rows("SELECT study_id, site_id FROM member_sites WHERE user_id = \(userId)") {
                let studyId: String = try row["study_id"]
                guard let index = memberships.firstIndex(where: { $0.studyId == studyId }) else { continue }
                memberships[index].site = try row["site_id"]
            }
            for agreement in try await Self.consentAgreements(db, userId: userId) {
                guard let index = memberships.firstIndex(where: { $0.studyId == agreement.studyId }) else { continue }
                memberships[index].consents.append(PersonalData.Consent(
                    version: agreement.version, agreedAt: Timestamps.format(agreement.agreedAt), text: agreement.text))
            }
            let sheets = try await db.rows("\(StoredSheets.select) WHERE user_id = \(userId) ORDER BY id").map(StoredSheets.sheet)
            let records = try await db.rows("\(ModuleRecords.select) WHERE user_id = \(userId) ORDER BY sequence").map(ModuleRecords.record)
            let sessions = try await db.rows("""
                SELECT created_at, access_expires_at, revoked_at FROM sessions WHERE user_id = \(userId) ORDER BY id
                """).map { try $0.decode(Rows.Session.self) }.map {
                PersonalData.Session(createdAt: Timestamps.format($0.createdAt), expiresAt: Timestamps.format($0.accessExpiresAt),
                                     revokedAt: time($0.revokedAt))
            }
            let codes = try await db.rows("""
                SELECT purpose, expires_at, used_at, cancelled_at FROM mail_tokens WHERE user_id = \(userId) ORDER BY expires_at
                """).map { try $0.decode(Rows.MailedCode.self) }.map {
                PersonalData.MailedCode(purpose: $0.purpose, expiresAt: Timestamps.format($0.expiresAt), usedAt: time($0.usedAt),
                                        cancelledAt: time($0.cancelledAt))
            }
            let failures = try await db.rows("""
                SELECT study_id, failures, first_failure, last_failure FROM study_password_failures WHERE user_id = \(userId)
                ORDER BY study_id
                """).map { try $0.decode(Rows.Failures.self) }.map {
                PersonalData.StudyPasswordFailures(studyId: $0.studyId, failures: $0.failures, firstFailure: Timestamps.format($0.firstFailure),
                                                   lastFailure: Timestamps.format($0.lastFailure))
            }
            var data = PersonalData(account: PersonalData.Account(account), memberships: memberships, sheets: sheets, records: records,
                                    sessions: sessions, mailedCodes: codes, studyPasswordFailures: failures)
            data.promptEvents = try await PromptEvents.all(userId: userId, in: db)
            data.alerts = try await db.rows("""
                SELECT a.study_id, r.rule, a.raised_at, a.seen_at, a.note FROM alerts a JOIN alert_rules r ON r.id = a.rule_id
                WHERE a.user_id = \(userId) ORDER BY a.id
                """).map { try $0.decode(Rows.Alert.self) }.map {
                PersonalData.Alert(studyId: $0.studyId, rule: $0.rule.name, kind: $0.rule.kind.rawValue, raisedAt: Timestamps.format($0.raisedAt),
                                   seenAt: time($0.seenAt), note: $0.note)
            }
            data.allocations = try await db.rows("""
                SELECT study_id, sequence, allocated_at, stratum FROM allocations WHERE user_id = \(userId) ORDER BY study_id
                """).map { row in
                PersonalData.Allocation(studyId: try row["study_id"], number: Int(try row["sequence"] as Int64),
                                        allocatedAt: Timestamps.format(try row["allocated_at"]), stratum: try row["stratum"])
            }
            data.screenings = try await db.rows("""
                SELECT study_id, screened_at, eligible, failed, answers FROM screenings WHERE user_id = \(userId) ORDER BY id
                """).map { row in
                let failed: String = try row["failed"], eligible: Int64 = try row["eligible"], answers: String? = try row["answers"]
                return PersonalData.Screening(studyId: try row["study_id"], screenedAt: Timestamps.format(try row["screened_at"]),
                                              eligible: eligible != 0, rulesNotMet: failed.split(separator: ",").map(String.init),
                                              answers: try answers.map { try JSONCoding.decode(AnswerSheet.self, from: $0) })
            }
            return data
        }
    }

    /// The rows read for the download, their times as stored (the download writes them as text).
    private enum Rows {
        struct Membership: Decodable { var studyId: String, status: String, requestedAt: Date, updatedAt: Date, joinedAt: Date? }
        struct Session: Decodable { var createdAt: Date, accessExpiresAt: Date, revokedAt: Date? }
        struct MailedCode: Decodable { var purpose: String, expiresAt: Date, usedAt: Date?, cancelledAt: Date? }
        struct Failures: Decodable { var studyId: String, failures: Int, firstFailure: Date, lastFailure: Date }
        struct Alert: Decodable { var studyId: String, rule: AlertRule, raisedAt: Date, seenAt: Date?, note: String? }
    }
}
