import Foundation
import UNITIProtocol

/// How record payloads are written and read: JSON with sorted keys and dates as ISO 8601 UTC
/// times *with milliseconds* (plain `.iso8601` drops them, and a session pulled on another
/// device would then differ from the one recorded). Reading also accepts times without them.
public enum RecordCoding {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(OffsetTimestamp.utcMilliseconds(date))
        }
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let stamp = OffsetTimestamp(parsing: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text.prefix(40))' is not an ISO 8601 time")
            }
            return stamp.date
        }
        return decoder
    }()

    /// A record as the JSON value that travels in a ``ModuleRecordUpsert``.
    static func payload(_ record: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: encoder.encode(record))
    }

    /// A pulled payload as a record of `type`.
    static func decode<Record: Decodable>(_ type: Record.Type, from payload: JSONValue) throws -> Record {
        try decoder.decode(Record.self, from: JSONEncoder().encode(payload))
    }
}
