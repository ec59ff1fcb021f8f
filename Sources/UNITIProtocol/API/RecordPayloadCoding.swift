import Foundation

/// How the payload of a module record (``ModuleRecordUpsert/payload``) is written and read, on
/// every side that writes one: the shell's synced records and the study server's portal, which
/// edits the health record in the browser. JSON with sorted keys and dates as ISO 8601 UTC times
/// *with milliseconds* (plain `.iso8601` drops them, and a record pulled on another device would
/// then differ from the one recorded); reading also accepts times without them.
public enum RecordPayloadCoding {
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
    public static func payload(_ record: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: encoder.encode(record))
    }

    /// A payload as a record of `type`.
    public static func decode<Record: Decodable>(_ type: Record.Type, from payload: JSONValue) throws -> Record {
        try decoder.decode(Record.self, from: JSONEncoder().encode(payload))
    }
}
