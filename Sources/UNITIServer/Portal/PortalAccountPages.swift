import Foundation
import Hummingbird
import UNITIProtocol

/// The person's own pages: profile, password, deactivation, studies (join and leave) and the
/// download of everything stored about them.
extension PortalRoutes {
    func registerAccountPages(on group: RouterGroup<ServerRequestContext>) {}
}
