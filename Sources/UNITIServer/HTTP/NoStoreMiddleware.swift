import Hummingbird

/// `Cache-Control: no-store` on the responses of a route group that carry a person's data or
/// tokens (the API but its description and the module resources; the portal has its own in
/// ``SecurityHeaders``): no browser or proxy cache keeps a profile, answers or a login's tokens
/// where the next user of the machine could find them. A response that says its own
/// `Cache-Control` keeps it.
struct NoStoreMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
