import Foundation

/// What the routes work with, built once per server (or per test) and passed in: no globals.
public struct ServerEnvironment: Sendable {
    public var store: ServerStore
    /// Where the server's mail goes, always through ``mail``, outside the request.
    public var mailer: any Mailer { mail.mailer }
    /// The mail queue (a service of the server's service group: ``ServerApplication/services(_:)``).
    public var mail: MailQueue
    public var clock: any ServerClock
    public var passwords: PasswordHasher
    public var throttle: LoginThrottle
    /// The rule for wrong study passwords (counted per person and study, and per study, in the
    /// store, so the API, the portal and every server process on the database count together).
    public var studyPasswordThrottle: StudyPasswordThrottle
    /// Limits on registrations, reset requests and reset mails.
    public var mailRequests: MailRequestThrottle
    /// The proxies whose `X-Forwarded-For` names the client address (`serve --trusted-proxy`).
    public var trustedProxies: TrustedProxies
    /// Where the participant portal is reached from outside (`serve --public-url`); when set,
    /// mails carry a link to the portal page with the code filled in, else just the code.
    public var publicURL: String?
    /// How long an API access token lives (`serve --access-token-lifetime`); apps renew it with
    /// their refresh token before it ends.
    public var accessTokenLifetime: TimeInterval
    /// How long a refresh token lives unused (`serve --refresh-token-lifetime`); each use gives a
    /// new one. Also the longest a portal session slides on (``PortalSessions``).
    public var refreshTokenLifetime: TimeInterval
    /// How long a session's previous refresh token still gets a new pair (``SessionRotation``).
    public var refreshReuseGrace: TimeInterval
    public var mailTokenLifetime: TimeInterval
    /// Fewest participants for which the comparison with all users is shown (Track Your Stress thesis).
    public var comparisonMinimumParticipants: Int

    public init(store: ServerStore, mailer: any Mailer, clock: any ServerClock = SystemServerClock(),
                passwords: PasswordHasher = PasswordHasher(), throttle: LoginThrottle = LoginThrottle(),
                studyPasswordThrottle: StudyPasswordThrottle = StudyPasswordThrottle(), publicURL: String? = nil,
                accessTokenLifetime: TimeInterval = 60 * 60, refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60,
                refreshReuseGrace: TimeInterval = 60,
                mailTokenLifetime: TimeInterval = 48 * 60 * 60, comparisonMinimumParticipants: Int = 5,
                mailRequests: MailRequestThrottle = MailRequestThrottle(), trustedProxies: TrustedProxies = .loopback) {
        self.store = store
        self.mail = MailQueue(mailer: mailer)
        self.clock = clock
        self.passwords = passwords
        self.throttle = throttle
        self.studyPasswordThrottle = studyPasswordThrottle
        self.mailRequests = mailRequests
        self.trustedProxies = trustedProxies
        self.publicURL = publicURL
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.refreshReuseGrace = refreshReuseGrace
        self.mailTokenLifetime = mailTokenLifetime
        self.comparisonMinimumParticipants = comparisonMinimumParticipants
    }
}
