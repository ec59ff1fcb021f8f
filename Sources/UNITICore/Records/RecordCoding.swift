import Foundation
import UNITIProtocol

/// How record payloads are written and read: the wire's ``RecordPayloadCoding`` (JSON with sorted
/// keys, times in UTC with milliseconds), which the study server's portal writes too.
public enum RecordCoding {
    public static var encoder: JSONEncoder { RecordPayloadCoding.encoder }

    public static var decoder: JSONDecoder { RecordPayloadCoding.decoder }

    /// A record as the JSON value that travels in a ``ModuleRecordUpsert``.
    static func payload(_ record: some Encodable) throws -> JSONValue {
        try RecordPayloadCoding.payload(record)
    }

    /// A pulled payload as a record of `type`.
    static func decode<Record: Decodable>(_ type: Record.Type, from payload: JSONValue) throws -> Record {
        try RecordPayloadCoding.decode(type, from: payload)
    }
}
