import Foundation
import Hummingbird

/// What every portal page's context holds: the visit (``PortalSessionMiddleware`` resolved it).
package protocol PortalPageContext: DoorContext {
    var visit: PortalVisit { get }
}

/// The portal's pages for anyone (login, registration, activation, password reset): the visit,
/// with a session or none.
package struct PortalContext: ChildRequestContext, PortalPageContext {
    package var coreContext: CoreRequestContextStorage
    package let server: ServerRequestContext
    package let visit: PortalVisit

    package init(context: ServerRequestContext) throws {
        guard let visit = context.portalVisit else { throw PortalSignInRequired() }
        coreContext = context.coreContext
        server = context
        self.visit = visit
    }

    package var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}

/// The portal's signed-in pages (``RequirePortalSignIn`` sent anyone else to the login page):
/// the visit and the person's session.
package struct ParticipantContext: ChildRequestContext, PortalPageContext {
    package var coreContext: CoreRequestContextStorage
    package let server: ServerRequestContext
    package let visit: PortalVisit
    /// The signed-in person.
    package let participant: PortalSession

    package init(context: ServerRequestContext) throws {
        guard let visit = context.portalVisit, let session = visit.session else { throw PortalSignInRequired() }
        coreContext = context.coreContext
        server = context
        self.visit = visit
        participant = session
    }

    package var maxUploadSize: Int { ServerLimits.maximumBodyBytes }
}
