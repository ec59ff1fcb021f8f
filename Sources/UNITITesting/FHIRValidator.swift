import Foundation

/// Runs `Scripts/fhir-validate` (fhir.resources' FHIR R4 4.0.1 models) with the interpreter of
/// the venv Scripts/bootstrap makes. A missing venv fails the test loudly: a skipped validation
/// would look like a passed one.
public enum FHIRValidator {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public struct Result: Sendable {
        public let status: Int32
        public let out: String
        public let err: String
    }

    public static var root: URL { Repository.root }

    public static func validate(_ file: String) throws -> Result {
        let python = root.appendingPathComponent(".build-venv/tools/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Missing(description: "\(python) is missing: run Scripts/bootstrap --tests (it installs fhir.resources from Scripts/python-requirements.txt)")
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
}
