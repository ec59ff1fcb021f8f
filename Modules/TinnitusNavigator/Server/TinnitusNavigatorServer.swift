import Foundation
import Hummingbird
import UNITIProtocol
import UNITIResources
import UNITIServer

/// TinnitusNavigator on the study server: the health record in the participant portal (`/record`:
/// events, therapies, audiograms, the same synced records the shell keeps) and its FHIR download
/// (`/data/record.fhir.json`), beside the generic record sync every module has (`/api/v1/records`).
package struct TinnitusNavigatorServerPart: PortalPagesProviding {
    package init() {}

    package var id: ModuleID { .tn }

    package func registerPortal(on signedIn: RouterGroup<ParticipantContext>, portal: PortalRoutes) {
        portal.registerRecordPages(on: signedIn)
        signedIn.get("data/record.fhir.json") { _, context in try await portal.exportFHIR(context) }
    }

    package var portalTemplates: CompiledResources { compiledResources.folder("Portal") }

    package var portalNavigation: [PortalLink] {
        [PortalLink(href: "/record", id: "nav-record", labelKey: "portal.nav.record")]
    }

    package var portalDownloads: [PortalLink] {
        [PortalLink(href: "/data/record.fhir.json", id: "download-fhir", labelKey: "portal.data.downloadFHIR",
                    explanationKey: "portal.data.downloadFHIRExplained")]
    }
}
