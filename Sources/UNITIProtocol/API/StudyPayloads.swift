/// Payloads of the study routes under `/api/v1/studies` (Track Your Stress thesis: studies).

/// How a participant gets into a study.
public enum StudyAccess: String, Codable, Hashable, Sendable, CaseIterable {
    /// Anyone may join.
    case `public`
    /// Joining needs the study's password.
    case password
    /// Joining asks the coordinator, who approves or denies.
    case byRequest
}

/// A participant's standing in a study.
public enum MembershipStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case none, pending, member, denied, left
}

/// A study as the server describes it to a participant. `descriptor` is the part the client
/// needs to decide which modules are enabled, the same shape as the bundled default study.
public struct StudyInfo: Codable, Hashable, Sendable {
    public var id: String
    public var title: LocalizedText
    public var description: LocalizedText?
    public var consent: LocalizedText?
    public var startsAt: String?
    public var endsAt: String?
    public var running: Bool
    public var access: StudyAccess
    public var participantsMayLeave: Bool
    public var modules: [String]
    /// Questionnaire ids with their newest version.
    public var questionnaires: [QuestionnaireReference]
    public var membership: MembershipStatus

    public init(id: String, title: LocalizedText, description: LocalizedText?, consent: LocalizedText?,
                startsAt: String?, endsAt: String?, running: Bool, access: StudyAccess,
                participantsMayLeave: Bool, modules: [String], questionnaires: [QuestionnaireReference],
                membership: MembershipStatus) {
        self.id = id
        self.title = title
        self.description = description
        self.consent = consent
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.running = running
        self.access = access
        self.participantsMayLeave = participantsMayLeave
        self.modules = modules
        self.questionnaires = questionnaires
        self.membership = membership
    }

    /// The subset the client's study catalogue works with.
    public var descriptor: StudyDescriptor {
        StudyDescriptor(id: id, title: title, description: description, modules: modules)
    }
}

/// A questionnaire named by id and version.
public struct QuestionnaireReference: Codable, Hashable, Sendable {
    public var id: String
    public var version: Int
    public init(id: String, version: Int) {
        self.id = id
        self.version = version
    }
}

/// `GET /api/v1/studies`.
public struct StudyList: Codable, Hashable, Sendable {
    public var studies: [StudyInfo]
    public init(studies: [StudyInfo]) { self.studies = studies }
}

/// `POST /api/v1/studies/{id}/join`: `password` only for password studies.
public struct JoinStudyRequest: Codable, Hashable, Sendable {
    public var password: String?
    public init(password: String? = nil) { self.password = password }
}

/// The answer to join and leave.
public struct MembershipResponse: Codable, Hashable, Sendable {
    public var studyId: String
    public var membership: MembershipStatus
    public init(studyId: String, membership: MembershipStatus) {
        self.studyId = studyId
        self.membership = membership
    }
}
