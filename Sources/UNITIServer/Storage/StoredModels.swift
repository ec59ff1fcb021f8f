import Foundation
import UNITIProtocol

/// A participant account as the store keeps it.
public struct UserAccount: Sendable, Hashable {
    public var id: Int64
    public var username: String
    public var email: String
    public var passwordHash: String
    public var firstName: String?
    public var lastName: String?
    public var gender: Gender
    public var language: String
    /// Set once the mailed activation token was used.
    public var activated: Bool
    /// False after the participant deactivated the account.
    public var active: Bool
    /// Stable, random, not derived from the username: what exports show instead of the person.
    public var pseudonym: String
    public var createdAt: Date
}

/// A study as the coordinator defines it.
public struct StudyRecord: Sendable, Hashable {
    public var id: String
    public var title: LocalizedText
    public var description: LocalizedText?
    public var consent: LocalizedText?
    public var startsAt: Date?
    public var endsAt: Date?
    public var running: Bool
    public var access: StudyAccess
    /// Bcrypt hash of the join password of a password study.
    public var passwordHash: String?
    public var participantsMayLeave: Bool
    public var modules: [String]
    /// Schedules as the coordinator wrote them (JSON), passed to the client unchanged.
    public var schedules: JSONValue?

    public init(id: String, title: LocalizedText, description: LocalizedText? = nil, consent: LocalizedText? = nil,
                startsAt: Date? = nil, endsAt: Date? = nil, running: Bool = true, access: StudyAccess = .public,
                passwordHash: String? = nil, participantsMayLeave: Bool = true, modules: [String] = [],
                schedules: JSONValue? = nil) {
        self.id = id
        self.title = title
        self.description = description
        self.consent = consent
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.running = running
        self.access = access
        self.passwordHash = passwordHash
        self.participantsMayLeave = participantsMayLeave
        self.modules = modules
        self.schedules = schedules
    }
}

/// A pending (or decided) request to join a by-request study.
public struct JoinRequestRecord: Sendable, Hashable, Codable {
    public var studyId: String
    public var userId: Int64
    public var username: String
    public var status: MembershipStatus
    public var requestedAt: Date
}

/// A sheet that passed validation against its questionnaire version, ready to store.
public struct ValidatedSheet: Sendable {
    public var sheet: AnswerSheet
    public var studyId: String
}

/// A module record ready to store, with its update time parsed.
public struct RecordChange: Sendable {
    public var upsert: ModuleRecordUpsert
    public var updatedAt: Date
}

/// One row of the study export: one answer.
public struct ExportRow: Sendable, Codable, Hashable {
    public var participant: String
    public var sheetId: String
    public var questionnaireId: String
    public var questionnaireVersion: Int
    public var label: String
    /// The answer as text: a number, option values joined by commas, or the free text.
    public var value: String
    /// Client times with the participant's UTC offset.
    public var answeredAt: String
    public var startedAt: String
    public var endedAt: String?
    /// Server time (UTC).
    public var receivedAt: String
}

/// Purposes of the single-use tokens sent by mail.
public enum MailTokenPurpose: String, Sendable {
    case activation, passwordReset
}

/// Conflicts the store reports instead of a raw constraint failure.
public enum StoreConflict: Error, Sendable, Equatable {
    case usernameTaken
    case emailTaken
    case studyExists
}
