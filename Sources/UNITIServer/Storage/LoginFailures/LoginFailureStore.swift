import Foundation

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
