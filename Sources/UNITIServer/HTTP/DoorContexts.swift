import Foundation
import Hummingbird
import NIOCore

/// The request context of one door (the authenticated API, the portal, the console): a child of
/// ``ServerRequestContext`` (Hummingbird's `ChildRequestContext`) that carries the identity its
/// route group has made sure of as a value that is never optional, so a handler reads
/// `context.user`, `context.participant` or `context.study` without asking again. The group's
/// gate resolves the identity on the parent context; the child's `init(context:)` takes it, and
/// throws (the door's own refusal) where a route was put in the wrong group.
package protocol DoorContext: RequestContext, RemoteAddressRequestContext {
    /// The server's values of the request: client address, TLS, logger.
    var server: ServerRequestContext { get }
}

extension DoorContext {
    /// Who sent the request (``ServerRequestContext/clientAddress``).
    package var clientAddress: ClientAddress? { server.clientAddress }
    /// Whether the request came over TLS (``ServerRequestContext/overTLS``).
    package var overTLS: Bool { server.overTLS }
    package var remoteAddress: SocketAddress? { server.remoteAddress }
}

/// The authenticated API's routes: the caller is known (``BearerAuthenticator`` resolved the
/// token on the parent context; without one, this context is not made and the answer is the
/// JSON 401).
package struct APIContext: ChildRequestContext, DoorContext {
    package var coreContext: CoreRequestContextStorage
    package let server: ServerRequestContext
    /// The caller.
    package let user: AuthenticatedUser

    package init(context: ServerRequestContext) throws {
        guard let identity = context.identity else { throw APIError.unauthorized }
        coreContext = context.coreContext
        server = context
        user = identity
    }

    package var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
    package var requestDecoder: APIRequestDecoder { APIRequestDecoder() }
    package var responseEncoder: JSONEncoder { JSONCoding.encoder }
}
