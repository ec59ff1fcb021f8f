import Foundation

/// Where the login throttle counts failed logins per login name, so that every server process
/// behind one port and a restart see the same count (issue 16: any process can serve any
/// request). Part of every ``ServerStore``.
///
/// The count is keyed by the login name as typed, lower-cased, not by an account: guesses at a
/// name that has no account are slowed exactly like guesses at one that has, so the answer never
/// tells which names exist.
public protocol LoginFailureStore: Sendable {
    /// In one step: when `login` must still wait by `rule`, the seconds to wait (nothing is
    /// counted); else counts this attempt as a failure and returns nil. ``clearLoginFailures(login:)``
    /// takes it back when the password was right. Checking and counting at once is what keeps
    /// simultaneous guesses from all passing one check before any of them is counted.
    func startLoginAttempt(login: String, rule: ThrottleRule, now: Date) async throws -> Int?
    /// Forgets the count of `login` (a successful login).
    func clearLoginFailures(login: String) async throws
}

/// How the stores key and tidy the counts.
enum LoginFailureKeys {
    /// The key of a login name: trimmed and lower-cased, as logins are matched.
    static func key(_ login: String) -> String {
        login.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Counts whose last failure is older than this are forgotten by every rule in use (window
    /// and longest delay both over), so a new count may delete them: the table holds only names
    /// tried recently.
    static func forgetBefore(_ now: Date, rule: ThrottleRule) -> Double {
        now.timeIntervalSince1970 - rule.window - rule.maximumDelay
    }
}
