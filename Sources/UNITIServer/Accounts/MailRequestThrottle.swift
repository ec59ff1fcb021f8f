import Foundation

/// Limits the requests that make the server send mail to an address someone typed: registrations
/// and password-reset requests. Each is counted per e-mail address (``addressRule``: five an hour,
/// then a wait from a minute doubling to an hour) and per client address (``clientRule``: twenty
/// an hour), whether or not the address has an account, and answered 429 with `Retry-After` while
/// either must wait; so the limit itself tells nothing about accounts. Unlike a failed login,
/// every request counts, a successful one too: each can put a mail in someone's inbox.
///
/// Reset mails to one address are limited besides (``resetMailRule``: three an hour). That limit
/// is silent: the request is answered as always and no mail is sent, since an answer that changed
/// would tell that the address has an account.
public struct MailRequestThrottle: Sendable {
    public let addressRule: ThrottleRule
    public let clientRule: ThrottleRule
    public let resetMailRule: ThrottleRule

    public init(addressRule: ThrottleRule = ThrottleRule(freeAttempts: 5, window: 3600, baseDelay: 60, maximumDelay: 3600),
                clientRule: ThrottleRule = ThrottleRule(freeAttempts: 20, window: 3600, baseDelay: 60, maximumDelay: 3600),
                resetMailRule: ThrottleRule = ThrottleRule(freeAttempts: 3, window: 3600, baseDelay: 3600, maximumDelay: 3600)) {
        self.addressRule = addressRule
        self.clientRule = clientRule
        self.resetMailRule = resetMailRule
    }

    /// What is asked for: the prefix of the keys it is counted under.
    enum Request: String {
        case registration = "register"
        case passwordReset = "reset"
    }

    /// Seconds to wait before asking again, or nil after counting this request.
    func start(_ request: Request, email: String, client: ClientAddress?, store: ServerStore, now: Date) async throws -> Int? {
        var keys = [ThrottleKey("\(request.rawValue):address:\(email)", addressRule)]
        if let client { keys.append(ThrottleKey("\(request.rawValue):client:\(client.throttleKey)", clientRule)) }
        return try await store.startThrottledAttempt(keys, now: now)
    }

    /// Whether another reset mail may go to `email` now (and counts it when it may).
    func mayMailReset(to email: String, store: ServerStore, now: Date) async throws -> Bool {
        try await store.startThrottledAttempt([ThrottleKey("reset-mail:\(email)", resetMailRule)], now: now) == nil
    }
}
