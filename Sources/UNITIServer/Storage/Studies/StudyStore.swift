import Foundation
import UNITIProtocol

/// Where studies, and who takes part in which, are kept. Part of every ``ServerStore``.
public protocol StudyStore: Sendable {
    /// Creates a study; throws ``StoreConflict/studyExists`` when its id is taken.
    func createStudy(_ study: StudyRecord, now: Date) async throws
    /// Replaces the fields of an existing study.
    func updateStudy(_ study: StudyRecord, now: Date) async throws
    func study(id: String) async throws -> StudyRecord?
    /// Every study, by id.
    func studies() async throws -> [StudyRecord]
    /// The user's standing in a study; `.none` when the user never asked to join.
    func membership(studyId: String, userId: Int64) async throws -> MembershipStatus
    /// The user's standing in every study they asked to join, by study id.
    func memberships(userId: Int64) async throws -> [String: MembershipStatus]
    /// Sets the user's standing; a new `.pending` also renews the time of the request, and
    /// becoming `.member` (again) records the time of joining.
    func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws
    /// Requests to join by-request studies (of one study, or of all), oldest first, decided ones included.
    /// One page of the requests to join by-request studies (all of them, or one study's; only
    /// the pending ones, or also those decided), oldest first, and how many there are in all.
    func joinRequests(studyId: String?, pendingOnly: Bool, offset: Int, limit: Int) async throws -> (requests: [JoinRequestRecord], total: Int)

    /// Starts one study-password attempt of a person, counted per person and study under `rule`
    /// and per study (all accounts together, ``ThrottleStore``'s table) under `studyRule`: when
    /// either must still wait, returns the seconds and counts nothing; else counts the attempt as
    /// a failure under both (until ``clearStudyPasswordFailures(userId:studyId:)`` says it was
    /// right) and returns nil. Check and count are one transaction, so guesses sent at once
    /// cannot all slip past the check; the counts are in the store, so every server process and a
    /// restart see them.
    func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, studyRule: ThrottleRule, now: Date) async throws -> Int?
    /// A right password: forgets the person's count and takes the try back from the study's.
    func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws
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
    /// The fewest characters the password was required to have when it was set: 8 since issue 27
    /// (``StudyRules/minimumPasswordLength``), 4 for one set before; nil when no rule was checked
    /// (no password, or a study written to the store directly). `study show` warns below 8: a
    /// hash does not tell the password's length.
    public var passwordMinimumLength: Int?
    public var participantsMayLeave: Bool
    /// The modules the study enables, each a known one (``StudyRules/enabledModules(_:)``).
    public var modules: [ModuleID]
    /// Schedules as the coordinator wrote them (JSON), passed to the client unchanged.
    public var schedules: JSONValue?
    /// Whether members get Track Your Hearing rewards for their sheets (`GET /api/v1/rewards`).
    public var rewards: Bool

    public init(id: String, title: LocalizedText, description: LocalizedText? = nil, consent: LocalizedText? = nil,
                startsAt: Date? = nil, endsAt: Date? = nil, running: Bool = true, access: StudyAccess = .public,
                passwordHash: String? = nil, passwordMinimumLength: Int? = nil, participantsMayLeave: Bool = true,
                modules: [ModuleID] = [], schedules: JSONValue? = nil, rewards: Bool = false) {
        self.id = id
        self.title = title
        self.description = description
        self.consent = consent
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.running = running
        self.access = access
        self.passwordHash = passwordHash
        self.passwordMinimumLength = passwordMinimumLength
        self.participantsMayLeave = participantsMayLeave
        self.modules = modules
        self.schedules = schedules
        self.rewards = rewards
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
