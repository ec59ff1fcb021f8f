import Hummingbird

/// Refuses any request that carries a credential in its query string. Tokens in URLs end up in
/// logs, proxies and browser history, so the server accepts them only in `Authorization`.
struct TokenInURLGuard<Context: RequestContext>: RouterMiddleware {
    static var forbiddenNames: Set<String> {
        ["token", "access_token", "accesstoken", "refresh_token", "refreshtoken", "bearer", "auth", "authorization", "api_key", "apikey"]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let names = request.uri.queryParameters.map { String($0.key).lowercased() }
        if names.contains(where: Self.forbiddenNames.contains) {
            throw APIError(.badRequest, "token_in_url", "Credentials are not accepted in the URL; send the token as 'Authorization: Bearer <token>'.")
        }
        return try await next(request, context)
    }
}
