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
    /// The number of the current consent text (from 1; a new text is a new version); nil when
    /// the study has no consent.
    public var consentVersion: Int?
    /// The newest consent version the caller agreed to; nil when none. Below ``consentVersion``,
    /// the study takes none of the caller's answers until they agree again.
    public var consentAgreed: Int?
    public var startsAt: String?
    public var endsAt: String?
    public var running: Bool
    public var access: StudyAccess
    public var participantsMayLeave: Bool
    public var modules: [String]
    /// Questionnaire ids with their newest version.
    public var questionnaires: [QuestionnaireReference]
    public var membership: MembershipStatus
    /// For a randomised participant: what their arm asks of them now, in the study's languages
    /// (never the arm's name); nil otherwise.
    public var notice: LocalizedText?
    /// For a member of a trial whose design has visits: their visits, each once its day is
    /// known (counted from their randomisation or joining); nil otherwise.
    public var visits: [StudyVisit]?
    /// For a study that screens before joining, to someone who has not joined: the questions to
    /// answer first (``StudyScreeningInfo``); nil otherwise.
    public var screening: StudyScreeningInfo?
    /// The languages the study declares, the first the one its texts fall back to before English
    /// for a reader of another language; nil when it declares none.
    public var languages: [String]?

    /// The language a study text missing in the reader's language falls back to before English.
    public var fallbackLanguage: String? { languages?.first }

    public init(id: String, title: LocalizedText, description: LocalizedText?, consent: LocalizedText?,
                startsAt: String?, endsAt: String?, running: Bool, access: StudyAccess,
                participantsMayLeave: Bool, modules: [String], questionnaires: [QuestionnaireReference],
                membership: MembershipStatus, consentVersion: Int? = nil, consentAgreed: Int? = nil) {
        self.consentVersion = consentVersion
        self.consentAgreed = consentAgreed
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

    /// Whether the study waits for the caller's agreement to its current consent (a member's
    /// answers wait until then).
    public var needsConsent: Bool {
        guard let consentVersion else { return false }
        return consentVersion > (consentAgreed ?? 0)
    }

    /// The subset the client's study catalogue works with.
    public var descriptor: StudyDescriptor {
        var descriptor = StudyDescriptor(id: id, title: title, description: description, modules: modules)
        descriptor.notice = notice
        descriptor.visits = visits
        descriptor.languages = languages
        return descriptor
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

/// `POST /api/v1/studies/{id}/join`: `password` only for password studies; `consentVersion`, the
/// consent version the person read and agreed to, for a study with consent; `site`, the study
/// site (clinical centre) whose enrolment link or code the person was given.
public struct JoinStudyRequest: Codable, Hashable, Sendable {
    public var password: String?
    public var consentVersion: Int?
    public var site: String?
    /// The answers to the study's screening questionnaire, for a study that screens.
    public var screening: ScreeningAnswers?
    public init(password: String? = nil, consentVersion: Int? = nil, site: String? = nil, screening: ScreeningAnswers? = nil) {
        self.password = password
        self.consentVersion = consentVersion
        self.site = site
        self.screening = screening
    }
}

/// What a study that screens asks before joining (issue 48, "Eligibility screening"): its
/// screening questionnaire, every question of which is to be answered, and, when the study asks
/// it, whether the team may keep the answers of someone who turns out not to be eligible
/// (without a yes they are not kept). The rules stay on the server.
public struct StudyScreeningInfo: Codable, Hashable, Sendable {
    public var questionnaire: QuestionnaireDefinition
    /// The question asking to keep an ineligible person's answers; nil: they are never kept.
    public var keepAnswersQuestion: LocalizedText?
    public init(questionnaire: QuestionnaireDefinition, keepAnswersQuestion: LocalizedText? = nil) {
        self.questionnaire = questionnaire
        self.keepAnswersQuestion = keepAnswersQuestion
    }
}

/// The screening questionnaire answered (a whole sheet of it) and the person's answer to the
/// study's keep-answers question (nil or false: not kept if they are not eligible).
public struct ScreeningAnswers: Codable, Hashable, Sendable {
    public var sheet: AnswerSheet
    public var keepIfIneligible: Bool?
    public init(sheet: AnswerSheet, keepIfIneligible: Bool? = nil) {
        self.sheet = sheet
        self.keepIfIneligible = keepIfIneligible
    }
}

/// The screening's outcome in a join's answer: not eligible, with the study's words for it
/// (the person is then no member: `membership` stays as it was).
public struct ScreeningOutcome: Codable, Hashable, Sendable {
    public var eligible: Bool
    public var message: LocalizedText?
    public init(eligible: Bool, message: LocalizedText? = nil) {
        self.eligible = eligible
        self.message = message
    }
}

/// `POST /api/v1/studies/{id}/consent`: agrees to a consent version (the current one).
public struct ConsentRequest: Codable, Hashable, Sendable {
    public var version: Int
    public init(version: Int) { self.version = version }
}

/// A consent version the person agreed to, with its text as it was then.
public struct ConsentAgreementInfo: Codable, Hashable, Sendable {
    public var studyId: String
    public var version: Int
    public var agreedAt: String
    public var text: LocalizedText
    public init(studyId: String, version: Int, agreedAt: String, text: LocalizedText) {
        self.studyId = studyId
        self.version = version
        self.agreedAt = agreedAt
        self.text = text
    }
}

/// `GET /api/v1/studies/{id}/consent`: the study's current consent version and what the caller
/// agreed to, oldest first.
public struct ConsentStatus: Codable, Hashable, Sendable {
    public var studyId: String
    public var currentVersion: Int?
    public var agreements: [ConsentAgreementInfo]
    public init(studyId: String, currentVersion: Int?, agreements: [ConsentAgreementInfo]) {
        self.studyId = studyId
        self.currentVersion = currentVersion
        self.agreements = agreements
    }
}

/// `POST /api/v1/studies/{id}/leave`: whether the answers given so far must be deleted
/// (`deleteAnswers: true`) or may stay in the study's data (false, the default).
public struct LeaveStudyRequest: Codable, Hashable, Sendable {
    public var deleteAnswers: Bool
    public init(deleteAnswers: Bool = false) { self.deleteAnswers = deleteAnswers }
}

/// The answer to join and leave.
public struct MembershipResponse: Codable, Hashable, Sendable {
    public var studyId: String
    public var membership: MembershipStatus
    /// For a study that screens: the screening's outcome.
    public var screening: ScreeningOutcome?
    public init(studyId: String, membership: MembershipStatus, screening: ScreeningOutcome? = nil) {
        self.studyId = studyId
        self.membership = membership
        self.screening = screening
    }
}
