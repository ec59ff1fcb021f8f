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
        group.get(":moduleId/:name") { _, context in try await show(context) }
    }

    private func show(_ context: ServerRequestContext) async throws -> ETagged<JSONValue> {
        guard let moduleId = context.parameters.get("moduleId").flatMap(ModuleID.init(rawValue:)),
              let name = context.parameters.get("name"), ModuleResourceRules.isValidName(name),
              let resource = try await store.resource(moduleId: moduleId, name: name)
        else {
            throw APIError.notFound("No such module resource.")
        }
        return ETagged(resource.content)
    }
}
