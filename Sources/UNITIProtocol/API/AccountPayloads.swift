/// Payloads of the account routes under `/api/v1/account` (Track Your Hearing thesis: accounts;
/// Track Your Stress thesis: profile with an optional gender).

/// `POST /api/v1/account/register`.
public struct RegisterRequest: Codable, Hashable, Sendable {
    public var username: String
    public var email: String
    public var password: String
    public var language: String?

    public init(username: String, email: String, password: String, language: String? = nil) {
        self.username = username
        self.email = email
        self.password = password
        self.language = language
    }
}

/// `POST /api/v1/account/activate`, `POST /api/v1/account/password-reset/confirm` carry a mailed token.
public struct TokenRequest: Codable, Hashable, Sendable {
    public var token: String
    public init(token: String) { self.token = token }
}

/// `POST /api/v1/account/login`: `login` is the e-mail address or the username.
public struct LoginRequest: Codable, Hashable, Sendable {
    public var login: String
    public var password: String
    public init(login: String, password: String) {
        self.login = login
        self.password = password
    }
}

/// `POST /api/v1/account/refresh`.
public struct RefreshRequest: Codable, Hashable, Sendable {
    public var refreshToken: String
    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// A fresh session: send `accessToken` as `Authorization: Bearer ...`; trade `refreshToken` for a new
/// pair before `expiresAt`.
public struct SessionTokens: Codable, Hashable, Sendable {
    public var accessToken: String
    public var refreshToken: String
    public var tokenType: String
    public var expiresAt: String
    public var refreshExpiresAt: String
    /// Seconds the access token lives from now (OAuth's `expires_in`). A client counts them on
    /// its own clock, so a clock that differs from the server's does not move the renewal; nil
    /// from a server older than this field.
    public var expiresIn: Int?

    public init(accessToken: String, refreshToken: String, expiresAt: String, refreshExpiresAt: String, expiresIn: Int? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = "Bearer"
        self.expiresAt = expiresAt
        self.refreshExpiresAt = refreshExpiresAt
        self.expiresIn = expiresIn
    }
}

/// `POST /api/v1/account/password-reset`: starts a reset; the answer is the same whether or not the
/// address is known, so it cannot be used to probe for accounts.
public struct PasswordResetRequest: Codable, Hashable, Sendable {
    public var email: String
    public init(email: String) { self.email = email }
}

/// `POST /api/v1/account/password-reset/confirm`.
public struct PasswordResetConfirmation: Codable, Hashable, Sendable {
    public var token: String
    public var newPassword: String
    public init(token: String, newPassword: String) {
        self.token = token
        self.newPassword = newPassword
    }
}

/// `POST /api/v1/account/password`: changing the password needs the current one.
public struct PasswordChangeRequest: Codable, Hashable, Sendable {
    public var currentPassword: String
    public var newPassword: String
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// `POST /api/v1/account/reactivate`: a deactivated account comes back with its password.
public typealias ReactivateRequest = LoginRequest

/// Gender as the profile offers it, with an explicit "do not disclose".
public enum Gender: String, Codable, Hashable, Sendable, CaseIterable {
    case female, male, diverse, notApplicable, undisclosed
}

/// `GET /api/v1/account/profile`.
public struct Profile: Codable, Hashable, Sendable {
    public var username: String
    public var email: String
    public var firstName: String?
    public var lastName: String?
    public var gender: Gender
    public var language: String
    public var active: Bool
    /// The account's pseudonym: what the study teams see instead of the person, and, unlike the
    /// username, never changed. A program names the account of its data directory by it. Nil
    /// from a server older than this field.
    public var pseudonym: String?

    public init(username: String, email: String, firstName: String?, lastName: String?, gender: Gender,
                language: String, active: Bool, pseudonym: String? = nil) {
        self.pseudonym = pseudonym
        self.username = username
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.gender = gender
        self.language = language
        self.active = active
    }
}

/// `PATCH /api/v1/account/profile`: fields left out stay as they are; an empty name clears it.
public struct ProfileUpdate: Codable, Hashable, Sendable {
    public var username: String?
    public var firstName: String?
    public var lastName: String?
    public var gender: Gender?
    public var language: String?

    public init(username: String? = nil, firstName: String? = nil, lastName: String? = nil,
                gender: Gender? = nil, language: String? = nil) {
        self.username = username
        self.firstName = firstName
        self.lastName = lastName
        self.gender = gender
        self.language = language
    }
}

/// A short acknowledgement for routes that have nothing else to say.
public struct StatusMessage: Codable, Hashable, Sendable {
    public var status: String
    public init(status: String) { self.status = status }
}

/// `POST /api/v1/account/delete`: the password, confirmed before the account and all its data
/// are deleted.
public struct AccountDeletionRequest: Codable, Hashable, Sendable {
    public var password: String
    public init(password: String) { self.password = password }
}
