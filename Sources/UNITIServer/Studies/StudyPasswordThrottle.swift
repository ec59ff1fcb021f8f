import Foundation

/// Slows guessing a password study's password: wrong study passwords are counted per person and
/// study, and after a few each further try must wait a doubling delay (429 with `Retry-After` on
/// the API, a line saying how long on the portal page).
///
/// The rule is the login throttle's (``ThrottleRule``: five free failures inside fifteen minutes,
/// then 2 s doubling up to fifteen minutes). Unlike the login throttle, the count lives in the
/// store (``StudyStore/startStudyPasswordAttempt(userId:studyId:rule:now:)``): each guess costs
/// the guesser an activated account, so the count is worth keeping where every server process
/// and a restart see it, and a wrong study password never delays a login or another study.
public struct StudyPasswordThrottle: Sendable {
    public let rule: ThrottleRule

    public init(rule: ThrottleRule = ThrottleRule()) {
        self.rule = rule
    }

    /// Seconds this person must still wait before trying this study's password again, or nil
    /// after counting this try as a failure (``recordSuccess(userId:studyId:store:)`` takes it back).
    func startAttempt(userId: Int64, studyId: String, store: ServerStore, now: Date) async throws -> Int? {
        try await store.startStudyPasswordAttempt(userId: userId, studyId: studyId, rule: rule, now: now)
    }

    func recordSuccess(userId: Int64, studyId: String, store: ServerStore) async throws {
        try await store.clearStudyPasswordFailures(userId: userId, studyId: studyId)
    }
}
