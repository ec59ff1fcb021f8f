import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import UNITIProtocol
@testable import UNITIServer

/// The authenticated route group (issue 28.3): every API route but those that lead to a session
/// gets its caller from ``BearerAuthenticator`` and refuses a request without one, whoever wrote
/// the handler. Walking the router's routes makes a route added later outside the group fail here.
/// A route of a router as the route-walking tests name and call it: "METHOD /path", and the path
/// with its parameters filled in.
struct NamedRoute {
    var name: String
    var method: HTTPRequest.Method
    var uri: String

    static func all(_ router: Router<ServerRequestContext>) -> [NamedRoute] {
        router.routes.map { route in
            let uri = "/" + route.path.components.map { $0.description.hasPrefix("{") ? "1" : $0.description }.joined(separator: "/")
            return NamedRoute(name: "\(route.method) \(route.path)", method: route.method, uri: uri)
        }
    }
}

@Suite("The authenticated API group", .timeLimit(.minutes(5)))
struct AuthenticatedRouteTests {
    /// The routes anyone may call: the ones that lead to a session, the API's description, the
    /// module resources and the health check. A new entry here is a decision, not a default.
    static let open: Set<String> = [
        "POST /api/v1/account/register", "POST /api/v1/account/activate", "POST /api/v1/account/login",
        "POST /api/v1/account/refresh", "POST /api/v1/account/password-reset", "POST /api/v1/account/password-reset/confirm",
        "POST /api/v1/account/reactivate", "GET /api/v1/openapi.yaml", "GET /api/v1/resources/{moduleId}/{name}", "GET /health",
    ]

    /// The API's routes (the portal has its own sign-in), as "METHOD /path" with the path's
    /// parameters filled in.
    static func routes(_ environment: ServerEnvironment) -> [NamedRoute] {
        NamedRoute.all(ServerApplication.router(environment: environment, portal: false))
    }

    @Test("every API route outside the open ones answers a missing, unknown or non-bearer token with the JSON 401")
    func everyOtherRouteNeedsAToken() async throws {
        let server = try TestServer()
        let routes = Self.routes(server.environment)
        #expect(Self.open.isSubset(of: Set(routes.map(\.name))), "an open route named here no longer exists")
        let guarded = routes.filter { !Self.open.contains($0.name) }
        #expect(guarded.count >= 19, "\(guarded.map(\.name))")
        try await server.run { client in
            _ = try await client.signUp("walker", on: server)
            let refusals: [HTTPFields] = [[:], [.authorization: "Bearer not-a-token-this-server-gave"], [.authorization: "Basic d2Fsa2VyOmNvcnJlY3QgaG9yc2U="]]
            for route in guarded {
                for headers in refusals {
                    let response = try await client.execute(uri: route.uri, method: route.method, headers: headers,
                                                            body: ByteBuffer(string: "{}")) { $0 }
                    #expect(response.status == .unauthorized, "\(route.name) with \(headers)")
                    #expect(response.errorCode == "unauthorized", "\(route.name) with \(headers)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(route.name)")
                }
            }
        }
    }

    @Test("with a valid token every route of the group gets past the gate: the identity reaches the handler")
    func identityReachesEveryHandler() async throws {
        let server = try TestServer()
        // Deactivation ends the account, so it goes last.
        let guarded = Self.routes(server.environment).filter { !Self.open.contains($0.name) }
            .sorted { ($0.name.hasSuffix("/deactivate") ? 1 : 0) < ($1.name.hasSuffix("/deactivate") ? 1 : 0) }
        try await server.run { client in
            _ = try await client.signUp("holder", on: server)
            for route in guarded {
                // A fresh session per route: logout revokes the one it is called with.
                let login = try await client.json(.post, "/api/v1/account/login", body: LoginRequest(login: "holder", password: "correct horse"))
                let token = try login.decode(SessionTokens.self).accessToken
                let response = try await client.execute(uri: route.uri, method: route.method,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: ByteBuffer(string: "{}")) { $0 }
                #expect(response.status != .unauthorized, "\(route.name): \(response.text)")
                #expect(response.status.code < 500, "\(route.name): \(response.text)")
            }
        }
    }
}
