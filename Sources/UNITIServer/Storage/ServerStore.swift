/// Everything the study server keeps: the composition of one store per concern, so that the
/// SQLite store (one file, nothing to install) and a later PostgreSQL store (several server
/// processes) are interchangeable, and a second store implements the same parts.
///
/// The parts, each in its own folder under `Storage/` (protocol, and the SQLite tables and queries):
/// - ``AccountStore``: accounts, mailed tokens, sessions
/// - ``StudyStore``: studies, memberships (with the time of joining), join requests
/// - ``QuestionnaireStore``: questionnaire versions, the module presenting each, deactivation
/// - ``SheetStore``: answer sheets, the participant means behind the comparison, export rows
/// - ``RecordStore``: the generic per-user module records
/// - ``ModuleResourceStore``: module resources such as a sound catalogue
/// - ``RewardStore``: what Track Your Hearing rewards are computed from
/// - ``ServerSecretStore``: keys shared by every server process (the portal's CSRF key)
/// - ``ThrottleStore``: the throttles' counts (logins, registration and reset requests, reset
///   mails, study passwords per study), shared by every server process
/// - ``PersonalDataStore``: everything kept about one person, for their download
///
/// Every method commits before it returns: a route answers only after its write is durable, so a
/// shutdown never loses an acknowledged write. Methods that take a `userId` only ever touch that
/// user's rows — isolation between participants is enforced here, not only in the routes.
public protocol ServerStore: AccountStore, StudyStore, QuestionnaireStore, SheetStore, RecordStore, ModuleResourceStore, RewardStore,
    ServerSecretStore, PersonalDataStore, ThrottleStore {}

/// Conflicts the store reports instead of a raw constraint failure.
public enum StoreConflict: Error, Sendable, Equatable {
    case usernameTaken
    case emailTaken
    case studyExists
}
