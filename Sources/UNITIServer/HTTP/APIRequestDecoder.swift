import Foundation
import Hummingbird

/// How API routes read a JSON body (`request.decode(as:context:)`): at most the context's upload
/// limit (past it, 413 `body_too_large`), and a body that does not fit the type answered as 400
/// `invalid_body` with one line naming the field, so a client's developer sees what to fix.
public struct APIRequestDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try Self.decode(type, from: Data(buffer.readableBytesView))
    }

    /// A body whose fields all have defaults may be left out: an empty body is `empty`.
    static func decode<T: Decodable>(_ type: T.Type, orEmpty empty: T, from request: Request, context: some RequestContext) async throws -> T {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return buffer.readableBytes == 0 ? empty : try decode(type, from: Data(buffer.readableBytesView))
    }

    private static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONCoding.decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw APIError(.badRequest, "invalid_body", Self.describe(error))
        }
    }

    /// One line for a decoding error: the missing field, or the path where the type is wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "the body" : names.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "Missing field '\(key.stringValue)'" + (parent == "the body" ? "." : " in \(parent).")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "Wrong type at \(path(context))."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "Invalid value at \(path(context))."
        @unknown default:
            return "The body could not be read."
        }
    }
}
