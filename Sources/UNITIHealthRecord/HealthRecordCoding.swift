import Foundation
import UNITIProtocol

/// Where the health record travels: module `tn`, one kind per entry type, client id
/// `<kind>:<id>` (the shell's ``RecordAddress``), payloads as JSON with sorted keys and times
/// as ISO 8601 UTC with milliseconds (the shell's `RecordCoding`, which the server cannot
/// import). A payload written here is read by the shell and the other way round; tests on both
/// sides prove it.
public enum HealthRecordCoding {
    public static let moduleID = "tn"

    /// The client id of an entry on the wire.
    public static func clientID(kind: String, id: String) -> String { "\(kind):\(id)" }

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

    /// An entry as the JSON value of a ``ModuleRecordUpsert``.
    public static func payload(_ entry: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: encoder.encode(entry))
    }

    /// A payload as an entry of `type`.
    public static func decode<Entry: Decodable>(_ type: Entry.Type, from payload: JSONValue) throws -> Entry {
        try decoder.decode(Entry.self, from: JSONEncoder().encode(payload))
    }
}
