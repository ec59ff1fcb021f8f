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
