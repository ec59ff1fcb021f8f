import Foundation

/// JSON text for the columns that hold structured values, with sorted keys so that equal values
/// give equal text (ETags and "same content" checks rely on that).
///
/// One encoder and one decoder serve the whole process: Foundation's coders may be used from
/// several threads at once, and making one costs about as much as encoding a small sheet, which
/// every upload did for the sheet and each answer.
enum JSONCoding {
    static func string<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    static func data<T: Encodable>(_ value: T) throws -> Data {
        try encoder.encode(value)
    }

    /// The one set of encoding settings, for the columns and for the API's response bodies
    /// (``ServerRequestContext/responseEncoder``).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// For the columns and the API's request bodies (``APIRequestDecoder``).
    static let decoder = JSONDecoder()

    static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }
}
