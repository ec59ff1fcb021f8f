import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Builds the study server as a value: the router with every route, ready to run on a socket
/// (`serve`) or to drive in-process in tests.
public enum ServerApplication {
    /// The router with all routes of API version 1, and the participant portal at `/` and the
    /// staff console at `/console` unless `portal` is false (`serve --no-portal`).
    public static func router(environment: ServerEnvironment, portal: Bool = true) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let portalRoutes = portal ? PortalRoutes(environment: environment) : nil
        router.add(middleware: APIErrorMiddleware())
        if let portalRoutes { router.add(middleware: PortalFallbackPages(routes: portalRoutes)) }
        router.add(middleware: TokenInURLGuard())
        router.add(middleware: ClientAddressMiddleware(proxies: environment.trustedProxies))
        router.get("health") { _, _ in StatusMessage(status: "ok") }
        // What anyone may read: the API's description and the module resources.
        let publicAPI = router.group("api/v1")
        publicAPI.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.data)))
        }
        ModuleResourceRoutes(environment: environment).register(on: publicAPI.group("resources"))
        // Everything else carries a person's data or tokens: no cache keeps it.
        let api = router.group("api/v1").add(middleware: NoStoreMiddleware())
        // Every route but those that lead to a session needs a signed-in caller: the token is
        // resolved once, before the handler, which reads the caller from the context. A route
        // added here without a token answers the JSON 401 (checked by walking the routes).
        let authenticated = api.group()
            .add(middleware: BearerAuthenticator(environment: environment))
            .add(middleware: RequireAuthentication())
        AccountRoutes(environment: environment).register(open: api.group("account"), authenticated: authenticated.group("account"))
        StudyRoutes(environment: environment).register(studies: authenticated.group("studies"),
                                                       questionnaires: authenticated.group("questionnaires"))
        SheetRoutes(environment: environment).register(sheets: authenticated.group("sheets"), api: authenticated)
        RecordRoutes(environment: environment).register(on: authenticated.group("records"))
        PromptRoutes(environment: environment).register(on: authenticated.group("prompts"))
        // Each module part's own routes, behind the same token check.
        for part in environment.store.modules.parts {
            part.registerAPI(on: authenticated, environment: environment)
        }
        portalRoutes?.register(on: router.group())
        // The staff console at /console, on the portal's foundations (with the portal only).
        if portal { ConsoleRoutes(environment: environment).register(on: router) }
        return router
    }

    /// The services that run beside the HTTP server: the mail queue (``MailQueue``), started with
    /// it and stopped after it, so that mail of the last requests still goes out.
    public static func services(_ environment: ServerEnvironment) -> [any Service] {
        [environment.mail]
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
            services: services(environment),
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
