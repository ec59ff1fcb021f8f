import Foundation
import UNITIProtocol

/// The login kept on disk: the server's tokens and the username, never the password.
/// Stored in the settings of the data directory's database (mode 0600).
public struct Session: Codable, Sendable, Equatable {
    public var username: String
    public var accessToken: String
    public var refreshToken: String
    public var expiresAt: String
    public var refreshExpiresAt: String

    public init(username: String, tokens: SessionTokens) {
        self.username = username
        self.accessToken = tokens.accessToken
        self.refreshToken = tokens.refreshToken
        self.expiresAt = tokens.expiresAt
        self.refreshExpiresAt = tokens.refreshExpiresAt
    }
}

/// Reads and writes the session and the server address.
public struct SessionStore: Sendable {
    let settings: SettingsStore
    /// `--server URL` for this run, overriding the stored address.
    let serverOverride: String?

    static let sessionKey = "session"
    public static let serverKey = "server.url"

    public init(settings: SettingsStore, serverOverride: String? = nil) {
        self.settings = settings
        self.serverOverride = serverOverride
    }

    public func current() throws -> Session? {
        guard let text = try settings.string(Self.sessionKey) else { return nil }
        return try? JSONDecoder().decode(Session.self, from: Data(text.utf8))
    }

    public func save(_ session: Session) throws {
        let text = String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
        try settings.set(Self.sessionKey, to: text)
    }

    public func clear() throws {
        try settings.set(Self.sessionKey, to: nil)
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

    /// Turns an API error into the one line the person sees. A 401 with a session means the
    /// session expired or was revoked: it is forgotten and the person is asked to log in again.
    /// Without a session (a wrong password at login) the server's own words say what was wrong.
    public func userFacingError(for error: APIError) -> UNITIError {
        if case .unauthorized(let message) = error {
            guard (try? current()) ?? nil != nil else { return UNITIError(message) }
            try? clear()
        }
        return UNITIError(error.message)
    }

    /// Runs API calls, turning their errors into `userFacingError(for:)`.
    public func performing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as APIError {
            throw userFacingError(for: error)
        }
    }

    /// A client for the configured server with the current token; an error when none is configured.
    public func client(transport: any HTTPTransport = CurlTransport()) throws -> APIClient {
        guard let url = try serverURL() else { throw UNITIError(L("core.account.noServer")) }
        return APIClient(baseURL: url.appendingPathComponent("api/v1"), token: try current()?.accessToken, transport: transport)
    }
}
