import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: password-reset codes work once", .timeLimit(.minutes(10)))
struct ResetCodeTests {
    @Test("asking for a new reset code cancels the older one; a code works once")
    func newerCodeCancelsOlder() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("rita", on: server)
            let first = try await server.resetCode(client, "rita@example.org")
            let second = try await server.resetCode(client, "rita@example.org")
            #expect(first != second)
            let old = try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                            body: PasswordResetConfirmation(token: first, newPassword: "taken over"))
            #expect(old.errorCode == "invalid_token", "the older code was cancelled by the newer one")
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: second, newPassword: "rita's new one")).status == .ok)
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: second, newPassword: "again again")).errorCode == "invalid_token")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "rita", password: "rita's new one")).status == .ok)
        }
    }

    @Test("changing the password, through the API or the portal, cancels every open reset code")
    func passwordChangeCancelsCodes() async throws {
        let server = try TestServer()
        try await server.run { client in
            let token = try await client.signUp("sven", on: server)
            let before = try await server.resetCode(client, "sven@example.org")
            #expect(try await client.json(.post, "/api/v1/account/password", token: token,
                                          body: PasswordChangeRequest(currentPassword: "correct horse", newPassword: "second horse")).status == .ok)
            let late = try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                             body: PasswordResetConfirmation(token: before, newPassword: "taken over"))
            #expect(late.errorCode == "invalid_token")

            let browser = PortalBrowser(client)
            try await browser.logIn(server, "sven", password: "second horse")
            let portalBefore = try await server.resetCode(client, "sven@example.org")
            let changed = try await browser.submit("/profile", to: "/profile/password",
                                                   ["currentPassword": "second horse", "password": "third horse", "passwordRepeat": "third horse"])
            #expect(changed.status == .seeOther)
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: portalBefore, newPassword: "taken over")).errorCode == "invalid_token")
            #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "sven", password: "third horse")).status == .ok)
        }
    }

    @Test("the person's data download shows no reset code as still open once a newer one was used")
    func downloadShowsNoOpenCode() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("tara", on: server)
            _ = try await server.resetCode(client, "tara@example.org")
            let used = try await server.resetCode(client, "tara@example.org")
            #expect(try await client.json(.post, "/api/v1/account/password-reset/confirm",
                                          body: PasswordResetConfirmation(token: used, newPassword: "tara's new one")).status == .ok)
        }
        let account = try #require(try await server.store.user(login: "tara"))
        let json = try #require(try await PersonalDataExport(environment: server.environment).json(userId: account.id))
        let document = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let codes = try #require(document["mailedCodes"] as? [[String: Any]]).filter { $0["purpose"] as? String == "passwordReset" }
        #expect(codes.count == 2)
        let open = codes.filter { $0["usedAt"] == nil && $0["cancelledAt"] == nil }
        #expect(open.isEmpty, "open reset codes in the download: \(open)")
    }
}

// MARK: 2 and 7. Registration and reset requests
