import Foundation

/// What the routes work with, built once per server (or per test) and passed in: no globals.
public struct ServerEnvironment: Sendable {
    public var store: any ServerStore
    public var mailer: any Mailer
    public var clock: any ServerClock
    public var passwords: PasswordHasher
    public var throttle: LoginThrottle
    public var accessTokenLifetime: TimeInterval
    public var refreshTokenLifetime: TimeInterval
    public var mailTokenLifetime: TimeInterval
    /// Fewest participants for which the comparison with all users is shown (Track Your Stress thesis).
    public var comparisonMinimumParticipants: Int

    public init(store: any ServerStore, mailer: any Mailer, clock: any ServerClock = SystemServerClock(),
                passwords: PasswordHasher = PasswordHasher(), throttle: LoginThrottle = LoginThrottle(),
                accessTokenLifetime: TimeInterval = 60 * 60, refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60,
                mailTokenLifetime: TimeInterval = 48 * 60 * 60, comparisonMinimumParticipants: Int = 5) {
        self.store = store
        self.mailer = mailer
        self.clock = clock
        self.passwords = passwords
        self.throttle = throttle
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.mailTokenLifetime = mailTokenLifetime
        self.comparisonMinimumParticipants = comparisonMinimumParticipants
    }
}
