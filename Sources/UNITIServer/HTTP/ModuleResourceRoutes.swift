import Foundation
import Hummingbird
import UNITIProtocol

/// `GET /api/v1/resources/{moduleId}/{name}`: the newest version of a module resource (such as
/// the Shades Of Noise sound catalogue), with an ETag; `If-None-Match` with the current tag
/// gives 304 without a body. Public: a resource is the same for everyone and holds nothing
/// personal.
struct ModuleResourceRoutes: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    func register(on group: RouterGroup<ServerRequestContext>) {
        group.get(":moduleId/:name") { request, context in try await show(request, context) }
    }

    private func show(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard let moduleId = context.parameters.get("moduleId").flatMap(ModuleID.init(rawValue:)),
              let name = context.parameters.get("name"), ModuleResourceRules.isValidName(name),
              let resource = try await store.resource(moduleId: moduleId, name: name)
        else {
            throw APIError.notFound("No such module resource.")
        }
        return try JSONResponse.withETag(resource.content, request: request)
    }
}
