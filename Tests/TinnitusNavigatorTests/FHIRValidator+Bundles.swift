import Foundation
import UNITIProtocol
import UNITITesting

extension FHIRValidator {
    /// Writes entries as a bundle to a temporary file and returns its path.
    static func writeBundle(_ entries: [FHIRBundleEntry], timestamp: String = "2026-11-23T10:00:00+01:00") throws -> String {
        let path = NSTemporaryDirectory() + "fhir-\(UUID().uuidString).json"
        var text = Data()
        let writer = FHIRCollectionWriter(timestamp: timestamp) { text.append($0) }
        for entry in entries { try writer.append(entry) }
        try writer.finish()
        try text.write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Reading exported JSON in tests.
extension JSONValue {
    var arrayItems: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Every value of `key` anywhere below this value.
    func all(_ key: String) -> [JSONValue] {
        switch self {
        case .object(let members):
            return (members[key].map { [$0] } ?? []) + members.values.flatMap { $0.all(key) }
        case .array(let items):
            return items.flatMap { $0.all(key) }
        default:
            return []
        }
    }
}
