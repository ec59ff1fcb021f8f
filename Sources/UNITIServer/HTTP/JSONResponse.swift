import Crypto
import Foundation
import Hummingbird

/// Building JSON responses, with optional ETag handling: the tag is a hash of the exact body, so
/// it changes exactly when the content does (Track Your Stress thesis, 6.1: the client keeps one
/// ETag per route and sends it back in `If-None-Match`; an unchanged route costs a 304 and no body).
enum JSONResponse {
    static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONCoding.data(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func withETag<T: Encodable>(_ value: T, request: Request) throws -> Response {
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

extension Request {
    /// Decodes the JSON body (at most the context's upload limit), reporting what was wrong.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: ServerRequestContext) async throws -> T {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        do {
            return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, "invalid_body", APIErrorMiddleware<ServerRequestContext>.describe(error))
        }
    }

    /// An integer query parameter within bounds, or the default when absent.
    func queryInt(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = uri.queryParameters[Substring(name)] else { return value }
        guard let number = Int(raw), range.contains(number) else {
            throw APIError.badRequest("invalid_query", "'\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    func queryString(_ name: String) -> String? {
        uri.queryParameters[Substring(name)].map(String.init)
    }
}
