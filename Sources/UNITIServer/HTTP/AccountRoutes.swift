import Foundation
import Hummingbird
import UNITIProtocol

/// `/api/v1/account/...`: registration, activation, sessions, password, profile, deactivation.
struct AccountRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }
    var auth: Authenticator { Authenticator(environment: environment) }

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.post("register") { request, context in try await register(request, context) }
        group.post("activate") { request, context in try await activate(request, context) }
        group.post("login") { request, context in try await login(request, context) }
        group.post("refresh") { request, context in try await refresh(request, context) }
        group.post("logout") { request, _ in try await logout(request) }
        group.post("password-reset") { request, context in try await startPasswordReset(request, context) }
        group.post("password-reset/confirm") { request, context in try await confirmPasswordReset(request, context) }
        group.post("password") { request, context in try await changePassword(request, context) }
        group.get("profile") { request, _ in try await profile(request) }
        group.patch("profile") { request, context in try await updateProfile(request, context) }
        group.post("deactivate") { request, _ in try await deactivate(request) }
        group.post("reactivate") { request, context in try await reactivate(request, context) }
    }

    private var accounts: AccountService { AccountService(environment: environment) }

    private func register(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(RegisterRequest.self, context: context)
        try await accounts.register(username: body.username, email: body.email, password: body.password,
                                    language: body.language ?? "en", client: context.clientAddress)
        return try JSONResponse.make(StatusMessage(status: "activation_mail_sent"), status: .created)
    }

    private func activate(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(TokenRequest.self, context: context)
        try await accounts.activate(code: body.token)
        return try JSONResponse.make(StatusMessage(status: "activated"))
    }

    private func newSession(for userId: Int64) async throws -> SessionTokens {
        let pair = TokenPair(environment)
        try await store.createSession(userId: userId, accessHash: pair.accessHash, accessExpiresAt: pair.accessExpiry,
                                      refreshHash: pair.refreshHash, refreshExpiresAt: pair.refreshExpiry, now: pair.issuedAt)
        return pair.tokens
    }

    /// A new pair of tokens with their expiries, from the environment's lifetimes.
    private struct TokenPair {
        let issuedAt: Date
        let access = SecretTokens.generate()
        let refresh = SecretTokens.generate()
        let accessLifetime: TimeInterval
        let accessExpiry: Date
        let refreshExpiry: Date

        init(_ environment: ServerEnvironment) {
            issuedAt = environment.clock.now()
            accessLifetime = environment.accessTokenLifetime
            accessExpiry = issuedAt.addingTimeInterval(environment.accessTokenLifetime)
            refreshExpiry = issuedAt.addingTimeInterval(environment.refreshTokenLifetime)
        }

        var accessHash: String { SecretTokens.hash(access) }
        var refreshHash: String { SecretTokens.hash(refresh) }
        var tokens: SessionTokens {
            SessionTokens(accessToken: access, refreshToken: refresh, expiresAt: Timestamps.format(accessExpiry),
                          refreshExpiresAt: Timestamps.format(refreshExpiry), expiresIn: Int(accessLifetime))
        }
    }

    private func login(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(LoginRequest.self, context: context)
        let account = try await accounts.accountForLogin(login: body.login, password: body.password, client: context.clientAddress)
        return try JSONResponse.make(try await newSession(for: account.id))
    }

    /// Swaps a refresh token for a new pair (see ``SessionRotation`` for the previous token's
    /// grace and what its later reuse does).
    private func refresh(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(RefreshRequest.self, context: context)
        let pair = TokenPair(environment)
        let rotation = try await store.rotateSession(
            refreshHash: SecretTokens.hash(body.refreshToken), newAccessHash: pair.accessHash, accessExpiresAt: pair.accessExpiry,
            newRefreshHash: pair.refreshHash, refreshExpiresAt: pair.refreshExpiry, now: pair.issuedAt,
            reuseGrace: environment.refreshReuseGrace)
        guard case .rotated(let userId) = rotation, let account = try await store.user(id: userId), account.active else {
            throw APIError(.unauthorized, "invalid_refresh_token", "The refresh token is unknown, revoked or expired; log in again.")
        }
        return try JSONResponse.make(pair.tokens)
    }

    private func logout(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        try await store.revokeSession(id: user.sessionId, now: environment.clock.now())
        return try JSONResponse.make(StatusMessage(status: "logged_out"))
    }

    private func startPasswordReset(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordResetRequest.self, context: context)
        try await accounts.startPasswordReset(email: body.email, client: context.clientAddress)
        return try JSONResponse.make(StatusMessage(status: "reset_mail_sent_if_account_exists"), status: .accepted)
    }

    private func confirmPasswordReset(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(PasswordResetConfirmation.self, context: context)
        try await accounts.confirmPasswordReset(code: body.token, newPassword: body.newPassword)
        return try JSONResponse.make(StatusMessage(status: "password_changed"))
    }

    private func changePassword(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let user = try await auth.user(request)
        let body = try await request.decodeJSON(PasswordChangeRequest.self, context: context)
        try await accounts.changePassword(account: user.account, current: body.currentPassword, new: body.newPassword,
                                          keeping: user.sessionId)
        return try JSONResponse.make(StatusMessage(status: "password_changed"))
    }

    private func profile(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        return try JSONResponse.make(Self.profile(of: user.account))
    }

    static func profile(of account: UserAccount) -> Profile {
        Profile(username: account.username, email: account.email, firstName: account.firstName, lastName: account.lastName,
                gender: account.gender, language: account.language, active: account.active)
    }

    private func updateProfile(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let user = try await auth.user(request)
        let update = try await request.decodeJSON(ProfileUpdate.self, context: context)
        let account = try await accounts.updateProfile(userId: user.account.id, update: update)
        return try JSONResponse.make(Self.profile(of: account))
    }

    private func deactivate(_ request: Request) async throws -> Response {
        let user = try await auth.user(request)
        try await accounts.deactivate(userId: user.account.id)
        return try JSONResponse.make(StatusMessage(status: "deactivated"))
    }

    private func reactivate(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(ReactivateRequest.self, context: context)
        let account = try await accounts.reactivate(login: body.login, password: body.password, client: context.clientAddress)
        return try JSONResponse.make(try await newSession(for: account.id))
    }
}
