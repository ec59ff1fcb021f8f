import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import UNITIProtocol
@testable import UNITIServer

@Suite("Security: the login throttle", .timeLimit(.minutes(10)))
struct LoginThrottleSecurityTests {
    @Test("failed logins count per account, whichever name is used")
    func perAccount() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.signUp("frank", on: server)
            for login in ["frank", "frank", "frank", "frank@example.org", "FRANK@example.org"] {
                #expect(try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: login, password: "wrong one")).status == .unauthorized)
            }
            for login in ["frank", "frank@example.org"] {
                let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: login, password: "correct horse"))
                #expect(held.status == .tooManyRequests, "\(login)")
            }
        }
    }

    @Test("one client address guessing at many accounts is slowed after 30 failures; another address is not")
    func perClientAddress() async throws {
        let server = try TestServer()
        try await runLive(server.environment) { client in
            _ = try await client.signUp("gina", on: server)
            for index in 0..<30 {
                let wrong = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "victim\(index)", password: "guess"),
                                                  headers: forwarded("192.0.2.77"))
                #expect(wrong.status == .unauthorized)
            }
            let held = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "gina", password: "correct horse"),
                                             headers: forwarded("192.0.2.77"))
            #expect(held.status == .tooManyRequests)
            #expect(Int(held.headers[.retryAfter] ?? "") ?? 0 > 0)
            let elsewhere = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "gina", password: "correct horse"),
                                                  headers: forwarded("192.0.2.78"))
            #expect(elsewhere.status == .ok)
        }
    }
}
