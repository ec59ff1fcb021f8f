import Crypto
import Foundation
import Hummingbird

/// A payload answered with an ETag: the tag is a hash of the exact body, so it changes exactly
/// when the content does (Track Your Stress thesis, 6.1: the client keeps one ETag per route and
/// sends it back in `If-None-Match`; an unchanged route costs a 304 and no body). The body is
/// encoded with ``JSONCoding`` (the context's response settings), whose sorted keys keep the
/// tag stable.
package struct ETagged<Value: Encodable>: ResponseGenerator {
    let value: Value

    package init(_ value: Value) { self.value = value }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONCoding.data(value)
        let tag = "\"" + SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        if let sent = request.headers[.ifNoneMatch], Self.matches(sent, tag) {
            return Response(status: .notModified, headers: [.eTag: tag])
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .eTag: tag],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func matches(_ header: String, _ tag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }
}
