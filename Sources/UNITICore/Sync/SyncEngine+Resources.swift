import Foundation
import GRDB
import UNITIProtocol

extension SyncEngine {
    /// Pulls the resources modules declare (``ServerResourceConsuming/serverResources``) with one ETag per
    /// route, so an unchanged resource costs a 304. New content goes to the module, which checks
    /// it; content it refuses leaves its previous version in place and becomes one line in the
    /// report. The ETag is stored only with content that was taken over, so a refused resource
    /// is offered again (and reported again) until the server has a usable one.
    func pullResources(_ report: inout SyncReport) throws {
        let etags = ETagStore(database: services.database)
        for module in modules.compactMap({ $0 as? any ServerResourceConsuming }) {
            for name in module.serverResources {
                let route = "resources/\(module.descriptor.id)/\(name)"
                let answer: Conditional<JSONValue>
                do {
                    answer = try client.conditionalGet(route, etag: try etags.etag(for: route), as: JSONValue.self)
                } catch APIError.rejected(let status, _, _) where status == 404 {
                    continue  // the server has no newer version of this resource
                } catch APIError.server(let status, _) where status == 200 {
                    report.resourceProblems.append(L("core.sync.resourceUnreadable", ["module": module.descriptor.id.rawValue, "name": name]))
                    continue
                }
                guard case .modified(let value, let etag) = answer else { continue }
                let data = try APIClient.encoder.encode(value)
                do {
                    try services.database.writer.write { db in
                        try module.acceptServerResource(named: name, data: data, receivedAt: services.clock.now, in: db)
                        try ETagStore.store(db, etag: etag, for: route)
                    }
                    report.resourcesUpdated += 1
                } catch let error as UNITIError {
                    report.resourceProblems.append(L("core.sync.resourceRefused", [
                        "module": module.descriptor.id.rawValue, "name": name, "reason": error.message,
                    ]))
                }
            }
        }
    }
}
