import Foundation
import GRDB
import UNITIProtocol

/// The login kept on disk: the server's tokens and the username, never the password.
/// Stored in the settings of the data directory's database (mode 0600).
public struct Session: Codable, Sendable, Equatable {
    public var username: String
    public var accessToken: String
    public var refreshToken: String
    public var expiresAt: String
    public var refreshExpiresAt: String
    /// When this device asked for the access token, by its own clock; nil in a session stored
    /// by a version that did not renew tokens.
    public var obtainedAt: Date?
    /// How long the access token lives (the server's `expiresIn`); nil from an older server.
    public var accessLifetime: TimeInterval?

    /// - Parameter obtainedAt: when the request that brought the tokens was sent (before, not
    ///   after, the answer: the token cannot have lived longer than that).
    public init(username: String, tokens: SessionTokens, obtainedAt: Date? = nil) {
        self.username = username
        self.accessToken = tokens.accessToken
        self.refreshToken = tokens.refreshToken
        self.expiresAt = tokens.expiresAt
        self.refreshExpiresAt = tokens.refreshExpiresAt
        self.obtainedAt = obtainedAt
        self.accessLifetime = tokens.expiresIn.map(TimeInterval.init)
    }

    /// The same login with a renewed pair of tokens.
    func renewed(with tokens: SessionTokens, obtainedAt: Date) -> Session {
        Session(username: username, tokens: tokens, obtainedAt: obtainedAt)
    }

    /// The longest margin before the access token ends at which it is renewed.
    public static let renewalMargin: TimeInterval = 60

    /// Whether the access token should be renewed before it is sent at `now`: once less than a
    /// tenth of its lifetime, and at most ``renewalMargin``, is left. Counted on this device's
    /// clock from ``obtainedAt`` with the lifetime the server gave, so a device clock that is
    /// off does not make every request renew (or none); a session without them goes by the
    /// server's `expiresAt`. A token that ends unnoticed still works out: the server's 401 makes
    /// the client renew and send the request again (``SessionRefresher``).
    public func needsRenewal(at now: Date) -> Bool {
        if let obtainedAt, let accessLifetime {
            return now >= obtainedAt.addingTimeInterval(accessLifetime - min(Self.renewalMargin, accessLifetime / 10))
        }
        guard let expiry = OffsetTimestamp(parsing: expiresAt)?.date else { return false }
        return now >= expiry.addingTimeInterval(-Self.renewalMargin)
    }
}

/// Reads and writes the session and the server address.
public struct SessionStore: Sendable {
    let settings: SettingsStore
    /// `--server URL` for this run, overriding the stored address.
    let serverOverride: String?
    /// Where the lock of a token renewal is taken (its `locks/` folder), shared by every program
    /// on the data directory.
    let dataDirectory: DataDirectory
    /// Decides when the access token is renewed.
    let clock: any WallClock

    static let sessionKey = "session"
    public static let serverKey = "server.url"

    public init(settings: SettingsStore, serverOverride: String? = nil, dataDirectory: DataDirectory, clock: any WallClock) {
        self.settings = settings
        self.serverOverride = serverOverride
        self.dataDirectory = dataDirectory
        self.clock = clock
    }

    public func current() throws -> Session? {
        guard let text = try settings.string(Self.sessionKey) else { return nil }
        return Self.decode(text)
    }

    private static func decode(_ text: String) -> Session? {
        try? JSONDecoder().decode(Session.self, from: Data(text.utf8))
    }

    private static func encode(_ session: Session) throws -> String {
        String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
    }

    public func save(_ session: Session) throws {
        try settings.set(Self.sessionKey, to: try Self.encode(session))
    }

    public func clear() throws {
        try settings.set(Self.sessionKey, to: nil)
    }

    /// Stores `new` (or forgets the session, for nil) only while the stored session is still the
    /// one with `refreshToken`, in one transaction; false when another program changed it first
    /// (renewed it, logged out, logged in anew), which then stays as it is.
    @discardableResult
    func replace(refreshToken: String, with new: Session?) throws -> Bool {
        let text = try new.map(Self.encode)
        return try settings.database.writer.write { db in
            guard let stored = try SettingsStore.read(db, Self.sessionKey).flatMap(Self.decode),
                  stored.refreshToken == refreshToken else { return false }
            try SettingsStore.write(db, Self.sessionKey, text)
            return true
        }
    }

    /// The configured server, or nil when the program works offline.
    public func serverURL() throws -> URL? {
        guard let text = try serverOverride ?? settings.string(Self.serverKey) else { return nil }
        return URL(string: text)
    }

    /// Checks and stores the server address (`config set server URL`).
    public func setServer(_ text: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else {
            throw UNITIError(L("core.account.badServerURL", ["url": text]))
        }
        try settings.set(Self.serverKey, to: text.hasSuffix("/") ? String(text.dropLast()) : text)
    }

    /// Turns an API error into the one line the person sees, in their language
    /// (``APIError/message``): a wrong password at login, "log in again" when the server refused
    /// to renew the session (``SessionRefresher``, which then forgot it), "this needs an
    /// account" when there never was one.
    public func userFacingError(for error: APIError) -> UNITIError {
        UNITIError(error.message)
    }

    /// Runs API calls, turning their errors into `userFacingError(for:)`.
    public func performing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as APIError {
            throw userFacingError(for: error)
        }
    }

    /// A client for the configured server that speaks for the stored session: it renews the
    /// access token as needed (``SessionRefresher``). An error when no server is configured.
    public func client(transport: any HTTPTransport = CurlTransport()) throws -> APIClient {
        guard let url = try serverURL() else { throw UNITIError(L("core.account.noServer")) }
        let base = url.appendingPathComponent("api/v1")
        return APIClient(baseURL: base, session: SessionRefresher(sessions: self, transport: transport, baseURL: base),
                         transport: transport)
    }
}
