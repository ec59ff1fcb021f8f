import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import UNITIResources

/// Builds the study server as a value: the router with every route, ready to run on a socket
/// (`serve`) or to drive in-process in tests.
public enum ServerApplication {
    /// The router with all routes of API version 1, and the participant portal at `/` and the
    /// staff console at `/console` unless `portal` is false (`serve --no-portal`). With
    /// `requestLog`, every request gets its log line and request id (``RequestLogMiddleware``);
    /// with `metrics`, it is counted and timed by route (Hummingbird's `MetricsMiddleware`, read
    /// by ``ServerMetrics``). Tests that drive the router in-process leave both out.
    public static func router(environment: ServerEnvironment, portal: Bool = true, requestLog: Logger? = nil,
                              metrics: Bool = false) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        let portalRoutes = portal ? PortalRoutes(environment: environment) : nil
        if let requestLog { router.add(middleware: RequestLogMiddleware(logger: requestLog)) }
        if metrics { router.add(middleware: MetricsMiddleware()) }
        // First, so every page below (the fallback pages too) knows the client and whether it
        // came over TLS, as a trusted proxy says.
        router.add(middleware: ClientAddressMiddleware(proxies: environment.trustedProxies))
        router.add(middleware: APIErrorMiddleware())
        if let portalRoutes { router.add(middleware: PortalFallbackPages(routes: portalRoutes)) }
        router.add(middleware: TokenInURLGuard())
        router.get("health") { _, _ in StatusMessage(status: "ok") }
        // What anyone may read: the API's description and the module resources.
        let publicAPI = router.group("api/v1")
        let openAPI = Result { try OpenAPIDocument.data(modules: environment.store.modules) }
        publicAPI.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(bytes: try openAPI.get())))
        }
        ModuleResourceRoutes(environment: environment).register(on: publicAPI.group("resources"))
        // Everything else carries a person's data or tokens: no cache keeps it.
        let api = router.group("api/v1").add(middleware: NoStoreMiddleware())
        // Every route but those that lead to a session needs a signed-in caller: the token is
        // resolved once, before the handler, which reads the caller from the context. A route
        // added here without a token answers the JSON 401 (checked by walking the routes).
        let authenticated = api.group()
            .add(middleware: BearerAuthenticator(environment: environment))
            .group(context: APIContext.self)
        AccountRoutes(environment: environment).register(open: api.group("account"), authenticated: authenticated.group("account"))
        StudyRoutes(environment: environment).register(studies: authenticated.group("studies"),
                                                       questionnaires: authenticated.group("questionnaires"))
        SheetRoutes(environment: environment).register(sheets: authenticated.group("sheets"), api: authenticated)
        RecordRoutes(environment: environment).register(on: authenticated.group("records"))
        PromptRoutes(environment: environment).register(on: authenticated.group("prompts"))
        // Each module part's own routes, behind the same token check.
        for part in environment.store.modules.parts(APIRoutesProviding.self) {
            part.registerAPI(on: authenticated, environment: environment)
        }
        portalRoutes?.register(on: router.group())
        // The staff console at /console, on the portal's foundations (with the portal only).
        if portal { ConsoleRoutes(environment: environment).register(on: router) }
        return router
    }

    /// Checks that the files the server serves are in this build (the OpenAPI document; the
    /// portal's templates, style sheet and script, which must also parse, unless `portal` is
    /// false), so that `serve` refuses to start with one line naming what is missing instead
    /// of failing its first request.
    public static func checkResources(portal: Bool, modules: ServerModules) throws {
        _ = try OpenAPIDocument.data.get()
        if portal { _ = try PortalTemplates.with(modules).get() }
    }

    /// The services that run beside the HTTP server: the mail queue (``MailQueue``), started with
    /// it and stopped after it, so that mail of the last requests still goes out, and the alert
    /// rules' checks (``AlertMonitor``), stopped before the queue, so that their mail goes out too.
    public static func services(_ environment: ServerEnvironment) -> [any Service] {
        [environment.mail, AlertMonitor(environment: environment)]
    }

    /// The application listening on `host:port`. SIGTERM and SIGINT shut it down gracefully
    /// (Hummingbird's service lifecycle): it stops accepting, finishes the requests in flight, then
    /// exits; since every write commits before its response, nothing acknowledged is lost.
    /// With `metrics`, the metrics listener runs as a service beside it (``ServerMetrics``).
    public static func application(environment: ServerEnvironment, host: String, port: Int, portal: Bool = true,
                                   logger: Logger, metrics: (any Service)? = nil,
                                   onServerRunning: (@Sendable (Int) async -> Void)? = nil)
        -> some ApplicationProtocol {
        Application(
            router: router(environment: environment, portal: portal, requestLog: logger, metrics: metrics != nil),
            configuration: .init(address: .hostname(host, port: port), serverName: "uniti-server"),
            services: services(environment) + (metrics.map { [$0] } ?? []),
            onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

/// The OpenAPI document the server serves: the committed one of the server's own routes
/// (`Resources/openapi.yaml`, compiled into the program) joined with the installed modules'
/// parts (``APIRoutesProviding/apiDocumentation``).
enum OpenAPIDocument {
    static let data = Result { () throws(MissingResource) in try compiledResources.required("openapi.yaml") }

    /// The document for a server with `modules`.
    static func data(modules: ServerModules) throws -> Data {
        let base = String(decoding: try data.get(), as: UTF8.self)
        return Data(joined(base, with: modules.parts(APIRoutesProviding.self).map(\.apiDocumentation)).utf8)
    }

    /// `document` with each part's paths at the end of its `paths:` (before the top-level
    /// `components:`) and its schemas at the end of `components: schemas:`, in the parts' order.
    static func joined(_ document: String, with parts: [APIDocumentation]) -> String {
        var lines = document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func block(_ text: String) -> [String] {
            text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        }
        let paths = parts.flatMap { block($0.paths) }, schemas = parts.flatMap { block($0.schemas) }
        // Schemas first: their place lies after the paths' and would move with them.
        if let start = lines.firstIndex(of: "  schemas:") {
            let end = lines[(start + 1)...].firstIndex { !$0.isEmpty && !$0.hasPrefix("   ") } ?? lines.endIndex
            lines.insert(contentsOf: schemas, at: end)
        }
        if let components = lines.firstIndex(of: "components:") {
            lines.insert(contentsOf: paths, at: components)
        }
        return lines.joined(separator: "\n")
    }
}

import UNITIProtocol
