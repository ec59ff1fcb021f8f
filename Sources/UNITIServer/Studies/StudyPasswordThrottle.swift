import Foundation

/// Slows guessing a password study's password (429 with `Retry-After` on the API, a line saying
/// how long on the portal page), by two counts:
///
/// - per **person and study**, by ``rule`` (the login throttle's numbers: five free failures in
///   fifteen minutes, then 2 s doubling up to fifteen minutes); kept in
///   `study_password_failures`, part of the person's data download;
/// - per **study**, all accounts together, by ``studyRule`` (twenty free failures in fifteen
///   minutes, then the same doubling): accounts are free, so fresh accounts must not mean fresh
///   tries (issue 27).
///
/// Both are checked and counted in one transaction (``StudyStore/startStudyPasswordAttempt(userId:studyId:rule:studyRule:now:)``),
/// in the store, so the API, the portal and every server process count together. A right
/// password clears the person's count and takes back its own try from the study's.
public struct StudyPasswordThrottle: Sendable {
    public let rule: ThrottleRule
    public let studyRule: ThrottleRule

    public init(rule: ThrottleRule = ThrottleRule(), studyRule: ThrottleRule = ThrottleRule(freeAttempts: 20)) {
        self.rule = rule
        self.studyRule = studyRule
    }

    /// Seconds this person must still wait before trying this study's password again, or nil
    /// after counting this try as a failure (``recordSuccess(userId:studyId:store:)`` takes it back).
    func startAttempt(userId: Int64, studyId: String, store: ServerStore, now: Date) async throws -> Int? {
        try await store.startStudyPasswordAttempt(userId: userId, studyId: studyId, rule: rule, studyRule: studyRule, now: now)
    }

    func recordSuccess(userId: Int64, studyId: String, store: ServerStore) async throws {
        try await store.clearStudyPasswordFailures(userId: userId, studyId: studyId)
    }

    /// The key the study's count is kept under (``ThrottleStore``'s table).
    static func studyKey(_ studyId: String) -> String {
        "study-password:\(studyId)"
    }
}
