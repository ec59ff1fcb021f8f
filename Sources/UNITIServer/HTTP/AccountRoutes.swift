import Foundation
import Hummingbird
import UNITIProtocol

/// `/api/v1/account/...`: registration, activation, sessions, password, profile, deactivation.
struct AccountRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// `open` takes the routes that lead to a session (no token yet); `authenticated` those of a
    /// signed-in caller.
    func register(open: RouterGroup<ServerRequestContext>, authenticated: RouterGroup<APIContext>) {
        open.post("register") { request, context in try await register(request, context) }
        open.post("activate") { request, context in try await activate(request, context) }
        open.post("login") { request, context in try await login(request, context) }
        open.post("refresh") { request, context in try await refresh(request, context) }
        open.post("password-reset") { request, context in try await startPasswordReset(request, context) }
        open.post("password-reset/confirm") { request, context in try await confirmPasswordReset(request, context) }
        open.post("reactivate") { request, context in try await reactivate(request, context) }
        authenticated.post("logout") { _, context in try await logout(context) }
        authenticated.post("password") { request, context in try await changePassword(request, context) }
        authenticated.get("profile") { _, context in try Self.profile(of: context.user.account) }
        authenticated.patch("profile") { request, context in try await updateProfile(request, context) }
        authenticated.post("deactivate") { _, context in try await deactivate(context) }
        authenticated.post("delete") { request, context in try await delete(request, context) }
        authenticated.get("data") { _, context in try await data(context) }
    }

    private var accounts: AccountService { AccountService(environment: environment) }

    private func register(_ request: Request, _ context: ServerRequestContext) async throws -> EditedResponse<StatusMessage> {
        let body = try await request.decode(as: RegisterRequest.self, context: context)
        try await accounts.register(username: body.username, email: body.email, password: body.password,
                                    language: body.language ?? "en", client: context.clientAddress)
        return EditedResponse(status: .created, response: StatusMessage(status: "activation_mail_sent"))
    }

    private func activate(_ request: Request, _ context: ServerRequestContext) async throws -> StatusMessage {
        let body = try await request.decode(as: TokenRequest.self, context: context)
        try await accounts.activate(code: body.token)
        return StatusMessage(status: "activated")
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

    private func login(_ request: Request, _ context: ServerRequestContext) async throws -> SessionTokens {
        let body = try await request.decode(as: LoginRequest.self, context: context)
        let account = try await accounts.accountForLogin(login: body.login, password: body.password, client: context.clientAddress)
        return try await newSession(for: account.id)
    }

    /// Swaps a refresh token for a new pair (see ``SessionRotation`` for the previous token's
    /// grace and what its later reuse does).
    private func refresh(_ request: Request, _ context: ServerRequestContext) async throws -> SessionTokens {
        let body = try await request.decode(as: RefreshRequest.self, context: context)
        let pair = TokenPair(environment)
        let rotation = try await store.rotateSession(
            refreshHash: SecretTokens.hash(body.refreshToken), newAccessHash: pair.accessHash, accessExpiresAt: pair.accessExpiry,
            newRefreshHash: pair.refreshHash, refreshExpiresAt: pair.refreshExpiry, now: pair.issuedAt,
            reuseGrace: environment.refreshReuseGrace)
        guard case .rotated(let userId) = rotation, let account = try await store.user(id: userId), account.active else {
            throw APIError(.unauthorized, "invalid_refresh_token", "The refresh token is unknown, revoked or expired; log in again.")
        }
        return pair.tokens
    }

    private func logout(_ context: APIContext) async throws -> StatusMessage {
        try await store.revokeSession(id: context.user.sessionId, now: environment.clock.now())
        return StatusMessage(status: "logged_out")
    }

    private func startPasswordReset(_ request: Request, _ context: ServerRequestContext) async throws -> EditedResponse<StatusMessage> {
        let body = try await request.decode(as: PasswordResetRequest.self, context: context)
        try await accounts.startPasswordReset(email: body.email, client: context.clientAddress)
        return EditedResponse(status: .accepted, response: StatusMessage(status: "reset_mail_sent_if_account_exists"))
    }

    private func confirmPasswordReset(_ request: Request, _ context: ServerRequestContext) async throws -> StatusMessage {
        let body = try await request.decode(as: PasswordResetConfirmation.self, context: context)
        try await accounts.confirmPasswordReset(code: body.token, newPassword: body.newPassword)
        return StatusMessage(status: "password_changed")
    }

    private func changePassword(_ request: Request, _ context: APIContext) async throws -> StatusMessage {
        let user = context.user
        let body = try await request.decode(as: PasswordChangeRequest.self, context: context)
        try await accounts.changePassword(account: user.account, current: body.currentPassword, new: body.newPassword,
                                          keeping: user.sessionId)
        return StatusMessage(status: "password_changed")
    }

    static func profile(of account: UserAccount) -> Profile {
        Profile(username: account.username, email: account.email, firstName: account.firstName, lastName: account.lastName,
                gender: account.gender, language: account.language, active: account.active, pseudonym: account.pseudonym)
    }

    private func updateProfile(_ request: Request, _ context: APIContext) async throws -> Profile {
        let user = context.user
        let update = try await request.decode(as: ProfileUpdate.self, context: context)
        let account = try await accounts.updateProfile(userId: user.account.id, update: update)
        return Self.profile(of: account)
    }

    private func deactivate(_ context: APIContext) async throws -> StatusMessage {
        try await accounts.deactivate(userId: context.user.account.id)
        return StatusMessage(status: "deactivated")
    }

    /// Deletes the account and all its data once the password is confirmed (``AccountService/deleteAccount(_:password:client:)``).
    private func delete(_ request: Request, _ context: APIContext) async throws -> StatusMessage {
        let body = try await request.decode(as: AccountDeletionRequest.self, context: context)
        try await accounts.deleteAccount(context.user.account, password: body.password, client: context.clientAddress)
        return StatusMessage(status: "deleted")
    }

    /// Everything the server keeps about the caller (``PersonalDataExport``), as the portal's download gives it.
    private func data(_ context: APIContext) async throws -> Response {
        guard let json = try await PersonalDataExport(environment: environment).json(userId: context.user.account.id) else {
            throw APIError.unauthorized
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }

    private func reactivate(_ request: Request, _ context: ServerRequestContext) async throws -> SessionTokens {
        let body = try await request.decode(as: ReactivateRequest.self, context: context)
        let account = try await accounts.reactivate(login: body.login, password: body.password, client: context.clientAddress)
        return try await newSession(for: account.id)
    }
}
