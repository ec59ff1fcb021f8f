import Foundation

/// Where the throttles keep their counts (``ThrottleKey``: failed logins per account and per
/// client address, registration and reset requests, reset mails, wrong study passwords per
/// study), so that every server process behind one port and a restart see the same counts
/// (issue 16: any process can serve any request). Part of every ``ServerStore``.
///
/// Keys are opaque to the store; each count carries the time its rule forgets it, so one table
/// holds counts of rules with different windows and a new count tidies those that are over.
public protocol ThrottleStore: Sendable {
    /// In one step: when any of `keys` must still wait by its rule, the longest wait in seconds
    /// (nothing is counted); else counts this attempt under every key and returns nil. Checking
    /// and counting at once is what keeps simultaneous guesses from all passing one check before
    /// any of them is counted.
    func startThrottledAttempt(_ keys: [ThrottleKey], now: Date) async throws -> Int?
    /// After a success: forgets the counts of `clearing`, and takes this attempt back from each
    /// count of `takingBack` (one fewer).
    func finishThrottledAttempt(clearing: [String], takingBack: [String]) async throws
}
