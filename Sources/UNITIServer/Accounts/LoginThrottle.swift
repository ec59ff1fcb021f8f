import Foundation

/// Slows guessing passwords at logins, answered with 429 and `Retry-After`, by two counts:
///
/// - per **account**, whichever name is typed (username or e-mail address), by ``rule`` (five
///   free failures in fifteen minutes, then 2 s doubling up to fifteen minutes); a name without
///   an account is counted under its normalised text, so guesses at it are slowed the same way.
///   A success clears the account's count.
/// - per **client address** (``ClientAddress``) across all accounts, by ``clientRule`` (30 free
///   failures in fifteen minutes): one password tried against many accounts. A success takes
///   back only its own try, so logging in to one's own account now and then does not reset it.
///
/// The counts live in the store (``ThrottleStore``), checked and counted in one step: every
/// server process behind one port counts the same guesses, a restart forgets nothing, and
/// simultaneous guesses cannot all pass one check before any of them is counted.
public struct LoginThrottle: Sendable {
    public let rule: ThrottleRule
    public let clientRule: ThrottleRule

    public init(rule: ThrottleRule = ThrottleRule(), clientRule: ThrottleRule = ThrottleRule(freeAttempts: 30)) {
        self.rule = rule
        self.clientRule = clientRule
    }

    /// The key of the account a login names, else of the typed name (trimmed, lower-cased, as
    /// logins are matched).
    static func key(account: UserAccount?, login: String) -> String {
        if let account { return "login:account:\(account.id)" }
        return "login:name:" + login.trimmingCharacters(in: .whitespaces).lowercased()
    }

    func keys(account: UserAccount?, login: String, client: ClientAddress?) -> [ThrottleKey] {
        [ThrottleKey(Self.key(account: account, login: login), rule)] + (client.map { [ThrottleKey("login:client:\($0.throttleKey)", clientRule)] } ?? [])
    }

    /// Seconds the caller must still wait, or nil after counting this try as a failure
    /// (``recordSuccess(account:client:store:)`` takes it back).
    func startAttempt(account: UserAccount?, login: String, client: ClientAddress?, store: ServerStore, now: Date) async throws -> Int? {
        try await store.startThrottledAttempt(keys(account: account, login: login, client: client), now: now)
    }

    func recordSuccess(account: UserAccount, client: ClientAddress?, store: ServerStore) async throws {
        try await store.finishThrottledAttempt(clearing: [Self.key(account: account, login: "")],
                                               takingBack: client.map { ["login:client:\($0.throttleKey)"] } ?? [])
    }
}
