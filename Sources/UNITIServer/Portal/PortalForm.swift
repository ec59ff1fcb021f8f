import Foundation
import Hummingbird

/// The fields of a posted HTML form (`application/x-www-form-urlencoded`). A body of another
/// type reads as an empty form, which no CSRF check passes.
package struct PortalForm {
    /// Room for a questionnaire page with its free-text answers (the size a synced record may
    /// have, which is what a questionnaire's draft becomes).
    package static let maximumBytes = ServerLimits.maximumRecordPayloadBytes
    package var fields: [String: String]

    package subscript(_ name: String) -> String { fields[name] ?? "" }

    /// The form of a request; its body is collected into `request`, so a second read (the
    /// handler's, after ``CSRFCheck``) costs no I/O.
    package static func read(_ request: inout Request) async throws -> PortalForm {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else { return PortalForm(fields: [:]) }
        let body = try await request.collectBody(upTo: maximumBytes)
        let text = String(buffer: body)
        let fields = (try? URLEncodedFormDecoder().decode([String: String].self, from: text)) ?? [:]
        return PortalForm(fields: fields)
    }

    package static func read(_ request: Request) async throws -> PortalForm {
        var request = request
        return try await read(&request)
    }
}
