import Foundation
import UNITIProtocol

/// Runs `Scripts/fhir-validate` (fhir.resources' FHIR R4 4.0.1 models) with the interpreter of
/// the venv Scripts/bootstrap makes. A missing venv fails the test loudly: a skipped validation
/// would look like a passed one.
enum FHIRValidator {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    struct Result {
        let status: Int32
        let out: String
        let err: String
    }

    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func validate(_ file: String) throws -> Result {
        let python = root.appendingPathComponent(".build-venv/tools/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Missing(description: "\(python) is missing: run Scripts/bootstrap (it installs fhir.resources from Scripts/python-requirements.txt)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("Scripts/fhir-validate").path, file]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so a long report cannot fill a pipe and stall the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                      err: String(decoding: errData, as: UTF8.self))
    }

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
