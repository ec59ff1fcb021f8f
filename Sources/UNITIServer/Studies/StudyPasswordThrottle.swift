import Foundation

/// Slows guessing a password study's password: wrong study passwords are counted per person and
/// study, and after a few each further try must wait a doubling delay (429 with `Retry-After` on
/// the API, a line saying how long on the portal page).
///
/// It is the login throttle's rule (``LoginThrottle``: five free failures inside fifteen minutes,
/// then 2 s doubling up to fifteen minutes), kept in memory in the same way, under its own keys so
/// that a wrong study password never delays a login. One instance lives in the
/// ``ServerEnvironment``, so the API and the portal count the same failures.
public struct StudyPasswordThrottle: Sendable {
    let counter: LoginThrottle

    public init(counter: LoginThrottle = LoginThrottle()) {
        self.counter = counter
    }

    /// Seconds this person must still wait before trying this study's password again, or nil.
    public func retryAfter(userId: Int64, studyId: String, now: Date) -> Int? {
        counter.retryAfter(login: Self.key(userId, studyId), now: now)
    }

    public func recordFailure(userId: Int64, studyId: String, now: Date) {
        counter.recordFailure(login: Self.key(userId, studyId), now: now)
    }

    public func recordSuccess(userId: Int64, studyId: String) {
        counter.recordSuccess(login: Self.key(userId, studyId))
    }

    private static func key(_ userId: Int64, _ studyId: String) -> String { "\(userId)\u{0}\(studyId)" }
}
