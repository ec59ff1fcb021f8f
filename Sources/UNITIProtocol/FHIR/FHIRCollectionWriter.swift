import Foundation

/// One entry of a bundle: a resource and the id its `fullUrl` and references use.
public struct FHIRBundleEntry: Sendable {
    public let id: FHIRResourceID
    /// The resource as a JSON object with its `resourceType`; the writer adds `id`.
    public let resource: JSONValue

    public init(id: FHIRResourceID, resource: JSONValue) {
        self.id = id
        self.resource = resource
    }

    /// The resource's `resourceType`.
    public var resourceType: String? {
        if case .string(let type)? = resource["resourceType"] { return type }
        return nil
    }
}

/// Writes a FHIR R4 `Bundle` of type `collection` entry by entry, as pretty-printed JSON with
/// sorted keys, so a record of any size is written with the memory of one entry at a time
/// (the bundle as one JSON tree took several times the size of the file) and the same record
/// always gives the same bytes.
///
/// The text is what `JSONEncoder` with `.prettyPrinted` and `.sortedKeys` would write for the
/// whole bundle: `entry` comes first among the bundle's members, so entries can be written as
/// they come and the other members after them.
public final class FHIRCollectionWriter {
    private let timestamp: String
    private let output: (Data) throws -> Void
    private let encoder: JSONEncoder
    /// Bytes not yet handed on (an array: appending to `Data` byte by byte took most of the time).
    private var buffer: [UInt8] = []
    private static let indent = Array("    ".utf8)
    /// How much is collected before it is handed on: few writes, little memory.
    private static let chunkSize = 1 << 20
    public private(set) var count = 0

    /// - Parameters:
    ///   - timestamp: the bundle's `timestamp`, an instant with its UTC offset.
    ///   - output: receives the text in order, in chunks.
    public init(timestamp: String, output: @escaping (Data) throws -> Void) {
        self.timestamp = timestamp
        self.output = output
        encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        buffer.append(contentsOf: Array("{\n  \"entry\" : [\n".utf8))
    }

    public func append(_ entry: FHIRBundleEntry) throws {
        var resource = entry.resource
        if case .object(var members) = resource {
            members["id"] = .string(entry.id.uuid)
            resource = .object(members)
        }
        let json = try encoder.encode(JSONValue.object(["fullUrl": .string(entry.id.fullURL), "resource": resource]))
        if count > 0 { buffer.append(contentsOf: Array(",\n".utf8)) }
        // Indent the entry's lines by two levels, as it sits inside the bundle's `entry` array.
        buffer.append(contentsOf: Self.indent)
        json.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var start = 0
            for index in bytes.indices where bytes[index] == 0x0A {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...index]))
                buffer.append(contentsOf: Self.indent)
                start = index + 1
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        count += 1
        if buffer.count >= Self.chunkSize { try flush() }
    }

    /// Closes the entry array, writes the bundle's own members and hands on the rest.
    public func finish() throws {
        let quotedTimestamp = String(decoding: try encoder.encode(timestamp), as: UTF8.self)
        buffer.append(contentsOf: Array("""

              ],
              "resourceType" : "Bundle",
              "timestamp" : \(quotedTimestamp),
              "type" : "collection"
            }

            """.utf8))
        try flush()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try output(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
