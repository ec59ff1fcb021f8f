import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Accounts", .timeLimit(.minutes(10)))
struct AccountTests {
    @Test("register, activate with the mailed code, log in by username or e-mail, log out revokes the token")
    func accountLifecycle() async throws {
        let server = try TestServer()
        try await server.run { client in
            let created = try await client.json(.post, "/api/v1/account/register",
                                                body: RegisterRequest(username: "anna", email: "Anna@Example.org", password: "secret123"))
            #expect(created.status == .created)
            let early = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "anna", password: "secret123"))
            #expect(early.status == .forbidden)
            #expect(early.errorCode == "not_activated")

            let code = try await server.mailedCode(to: "anna@example.org")
            #expect(try await client.json(.post, "/api/v1/account/activate", body: TokenRequest(token: code)).status == .ok)
            // The code is single-use.
            #expect(try await client.json(.post, "/api/v1/account/activate", body: TokenRequest(token: code)).errorCode == "invalid_token")

            let byMail = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "ANNA@example.org", password: "secret123"))
            #expect(byMail.status == .ok)
            let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "anna", password: "secret123"))
            let tokens = try login.decode(SessionTokens.self)
            #expect(try await client.get("/api/v1/account/profile", token: tokens.accessToken).decode(Profile.self).email == "anna@example.org")

            #expect(try await client.post("/api/v1/account/logout", token: tokens.accessToken).status == .ok)
            let after = try await client.get("/api/v1/account/profile", token: tokens.accessToken)
            #expect(after.status == .unauthorized)
            #expect(after.errorCode == "unauthorized")
        }
        // Only a hash of the token is stored.
        let users = try await server.store.users(offset: 0, limit: 10).users
        #expect(users.count == 1)
        #expect(users[0].passwordHash.hasPrefix("$2"))
    }

    @Test("mailed codes never start with '-' (a command line would read them as options) and avoid look-alike characters")
    func mailCodesAreTypeable() {
        let allowed = Set("abcdefghijkmnpqrstuvwxyz23456789")
        let codes = (0..<2_000).map { _ in SecretTokens.mailCode() }
        #expect(codes.allSatisfy { $0.count == 26 && $0.allSatisfy(allowed.contains) })
        #expect(Set(codes).count == codes.count)
    }

    @Test("registration validates e-mail, password length and uniqueness")
    func registrationValidation() async throws {
        let server = try TestServer()
        try await server.run { client in
            let badMail = try await client.json(.post, "/api/v1/account/register", body: RegisterRequest(username: "bob", email: "bob-at-example", password: "longenough"))
            #expect(badMail.status == .unprocessableContent)
            #expect(badMail.errorCode == "invalid_email")
            let short = try await client.json(.post, "/api/v1/account/register", body: RegisterRequest(username: "bob", email: "bob@example.org", password: "short"))
            #expect(short.errorCode == "weak_password")
            #expect(try await client.json(.post, "/api/v1/account/register", body: RegisterRequest(username: "bob", email: "bob@example.org", password: "longenough")).status == .created)
            let sameName = try await client.json(.post, "/api/v1/account/register", body: RegisterRequest(username: "BOB", email: "other@example.org", password: "longenough"))
            #expect(sameName.status == .conflict)
            #expect(sameName.errorCode == "username_taken")
            // A taken address is answered like a new one and creates nothing (MailRequestTests has the rest).
            let sameMail = try await client.json(.post, "/api/v1/account/register", body: RegisterRequest(username: "bobby", email: "Bob@example.org", password: "longenough"))
            #expect(sameMail.status == .created)
            #expect(try await server.store.user(login: "bobby") == nil)
            let broken = try await client.execute(uri: "/api/v1/account/register", method: .post, body: ByteBuffer(string: "{not json")) { $0 }
            #expect(broken.status == .badRequest)
            #expect(broken.errorCode == "invalid_body")
        }
    }

    @Test("repeated failed logins are answered with 429 and Retry-After, even with the right password")
    func loginThrottling() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("carl", on: server, password: "rightpassword")
            for _ in 0..<5 {
                let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "carl", password: "wrongpassword"))
                #expect(wrong.status == .unauthorized)
            }
            let blocked = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "carl", password: "rightpassword"))
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.errorCode == "too_many_attempts")
            #expect(Int(blocked.headers[.retryAfter] ?? "") ?? 0 > 0)
            server.clock.advance(by: 60)
            let later = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "carl", password: "rightpassword"))
            #expect(later.status == .ok)
        }
    }

    @Test("a token in the query string is refused with 400, even a valid one")
    func tokenInQueryRefused() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("dora", on: server)
            for name in ["token", "access_token"] {
                let response = try await client.get("/api/v1/account/profile?\(name)=\(token)")
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "token_in_url")
            }
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .ok)
        }
    }

    @Test("password reset by a single-use mailed code ends all sessions; change needs the current password")
    func passwordResetAndChange() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("emil", on: server, password: "firstpassword")
            let wrongCurrent = try await client.json(.post, "/api/v1/account/password", token: token,
                                                     body: PasswordChangeRequest(currentPassword: "nope-nope", newPassword: "secondpassword"))
            #expect(wrongCurrent.errorCode == "wrong_password")
            #expect(try await client.json(.post, "/api/v1/account/password", token: token,
                                          body: PasswordChangeRequest(currentPassword: "firstpassword", newPassword: "secondpassword")).status == .ok)

            #expect(try await client.json(.post, "/api/v1/account/password-reset", body: PasswordResetRequest(email: "emil@example.org")).status == .accepted)
            let code = try await server.mailedCode(to: "emil@example.org", subject: "reset")
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: code, newPassword: "thirdpassword")).status == .ok)
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: code, newPassword: "fourthpassword")).errorCode == "invalid_token")
            #expect(try await client.get("/api/v1/account/profile", token: token).status == .unauthorized)
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "emil", password: "thirdpassword")).status == .ok)
        }
    }

    @Test("profile update, refresh rotation (the previous token once more within its grace, a copy after it ends the session), deactivate and reactivate")
    func profileRefreshDeactivate() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("fritz", on: server, password: "fritzpassword")
            let tokens = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "fritz", password: "fritzpassword")).decode(SessionTokens.self)
            let updated = try await client.json(.patch, "/api/v1/account/profile", token: tokens.accessToken,
                                                body: ProfileUpdate(firstName: "Fritz", gender: .undisclosed, language: "de")).decode(Profile.self)
            #expect(updated.firstName == "Fritz")
            #expect(updated.gender == .undisclosed)
            #expect(updated.language == "de")
            let badLanguage = try await client.json(.patch, "/api/v1/account/profile", token: tokens.accessToken, body: ProfileUpdate(language: "xx"))
            #expect(badLanguage.status == .unprocessableContent)

            #expect(tokens.expiresIn == 3600)
            func refresh(_ token: String) async throws -> TestResponse {
                try await client.json(.post, "/api/v1/account/refresh", body: RefreshRequest(refreshToken: token))
            }
            func profileStatus(_ token: String) async throws -> HTTPResponse.Status {
                try await client.get("/api/v1/account/profile", token: token).status
            }
            let pair = try await refresh(tokens.refreshToken).decode(SessionTokens.self)
            #expect(pair.expiresIn == 3600)
            #expect(try await profileStatus(tokens.accessToken) == .unauthorized)
            // The answer with `pair` was lost: the same refresh token, within its grace, gives the
            // session a new pair, and `pair` no longer works (one valid pair at a time).
            server.clock.advance(by: 30)
            let again = try await refresh(tokens.refreshToken).decode(SessionTokens.self)
            #expect(try await profileStatus(pair.accessToken) == .unauthorized)
            #expect(try await profileStatus(again.accessToken) == .ok)
            #expect(try await refresh(pair.refreshToken).status == .unauthorized)
            #expect(try await profileStatus(again.accessToken) == .ok, "an unknown refresh token ended the session")
            // After the grace (counted from its first use) it can only be a copy: refused, and the session ends.
            server.clock.advance(by: 31)
            #expect(try await refresh(tokens.refreshToken).errorCode == "invalid_refresh_token")
            #expect(try await profileStatus(again.accessToken) == .unauthorized)
            #expect(try await refresh(again.refreshToken).status == .unauthorized)

            let fresh = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "fritz", password: "fritzpassword")).decode(SessionTokens.self)
            #expect(try await client.post("/api/v1/account/deactivate", token: fresh.accessToken).status == .ok)
            #expect(try await profileStatus(fresh.accessToken) == .unauthorized)
            #expect(try await refresh(fresh.refreshToken).status == .unauthorized, "a deactivated account's session renewed")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "fritz", password: "fritzpassword")).errorCode == "account_deactivated")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "fritz", password: "wrong-password")).errorCode == "invalid_credentials",
                    "a wrong password learns that the account is deactivated")
            #expect(try await client.json(.post, "/api/v1/account/reactivate", body: LoginRequest(login: "fritz", password: "wrong-password")).status == .unauthorized)
            #expect(try await server.store.user(login: "fritz")?.active == false)
            #expect(try await client.json(.post, "/api/v1/account/reactivate", body: LoginRequest(login: "fritz", password: "fritzpassword")).status == .ok)
        }
    }

    @Test("serve takes the token lifetimes in seconds, positive and the access token's shorter; anything else is one line naming both",
          .timeLimit(.minutes(10)))
    func tokenLifetimeOptions() throws {
        let serve = try ServeCommand.parse(["--access-token-lifetime", "3", "--refresh-token-lifetime", "60"])
        #expect(serve.accessTokenLifetime == 3 && serve.refreshTokenLifetime == 60)
        let defaults = try ServeCommand.parse([])
        #expect(defaults.accessTokenLifetime == 3600 && defaults.refreshTokenLifetime == 30 * 24 * 3600)
        for wrong in [["--access-token-lifetime", "0"], ["--refresh-token-lifetime=-5"],
                      ["--access-token-lifetime", "60", "--refresh-token-lifetime", "60"], ["--refresh-token-lifetime", "1800"]] {
            do {
                _ = try ServeCommand.parse(wrong)
                Issue.record("\(wrong) was accepted")
            } catch {
                let message = ServeCommand.message(for: error)
                #expect(message.contains("--access-token-lifetime and --refresh-token-lifetime must be positive"), "\(wrong): \(message)")
                #expect(!message.contains("\n"))
            }
        }
    }

    @Test("a body above the limit gets 413 and unknown routes a JSON 404")
    func limitsAndErrors() async throws {
        let server = try TestServer()
        try await server.run { client in
            let big = ByteBuffer(repeating: UInt8(ascii: "a"), count: ServerLimits.maximumBodyBytes + 10)
            let response = try await client.execute(uri: "/api/v1/account/register", method: .post, body: big) { $0 }
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "body_too_large")
            let missing = try await client.get("/api/v1/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
            #expect(try await client.get("/health").status == .ok)
            let document = try await client.get("/api/v1/openapi.yaml")
            #expect(document.text.contains("openapi: 3"))
        }
    }
}
