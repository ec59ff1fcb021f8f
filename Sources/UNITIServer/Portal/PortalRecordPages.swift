import Foundation
import Hummingbird
import UNITIProtocol

/// The TinnitusNavigator health record in the browser: events, therapies and audiograms as the
/// same synced records the shell keeps.
extension PortalRoutes {
    func registerRecordPages(on group: RouterGroup<ServerRequestContext>) {}
}
