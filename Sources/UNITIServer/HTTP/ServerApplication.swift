import Foundation
import Hummingbird
import Logging

/// Builds the study server as a value: the router with every route, ready to run on a socket
/// (`serve`) or to drive in-process in tests.
public enum ServerApplication {
    /// The router with all routes of API version 1, and the participant portal at `/` unless
    /// `portal` is false (`serve --no-portal`).
    public static func router(environment: ServerEnvironment, portal: Bool = true) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: APIErrorMiddleware())
        router.add(middleware: TokenInURLGuard())
        router.get("health") { _, _ in try JSONResponse.make(StatusMessage(status: "ok")) }
        let api = router.group("api/v1")
        api.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.data)))
        }
        AccountRoutes(environment: environment).register(on: api.group("account"))
        StudyRoutes(environment: environment).register(studies: api.group("studies"), questionnaires: api.group("questionnaires"))
        SheetRoutes(environment: environment).register(sheets: api.group("sheets"), api: api)
        RecordRoutes(environment: environment).register(on: api.group("records"))
        ModuleResourceRoutes(environment: environment).register(on: api.group("resources"))
        RewardRoutes(environment: environment).register(on: api)
        if portal {
            PortalRoutes(environment: environment).register(on: router.group())
        }
        return router
    }

    /// The application listening on `host:port`. SIGTERM and SIGINT shut it down gracefully
    /// (Hummingbird's service lifecycle): it stops accepting, finishes the requests in flight, then
    /// exits; since every write commits before its response, nothing acknowledged is lost.
    public static func application(environment: ServerEnvironment, host: String, port: Int, portal: Bool = true,
                                   logger: Logger, onServerRunning: (@Sendable (Int) async -> Void)? = nil)
        -> some ApplicationProtocol {
        Application(
            router: router(environment: environment, portal: portal),
            configuration: .init(address: .hostname(host, port: port), serverName: "uniti-server"),
            onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

/// The committed OpenAPI document, shipped as a resource of this target.
enum OpenAPIDocument {
    static let data: Data = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let data = try? Data(contentsOf: url) else { return Data("openapi: 3.1.0\n".utf8) }
        return data
    }()
}

import UNITIProtocol
