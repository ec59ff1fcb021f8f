import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tn export --fhir FILE.json`: the whole health record as one FHIR R4 bundle, for a doctor's
/// system or a study (issue 14). The format is an option rather than implied, so other export
/// formats can join it; without one the command says what to type.
///
/// The file is written next to its destination under a temporary name and renamed over it
/// when complete, so an interrupted export never leaves half a bundle where a good one was.
struct ExportCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "export", abstract: L("tn.export.abstract"))
    }

    @Option(name: .customLong("fhir"), help: ArgumentHelp(L("tn.export.fhir"), valueName: "file"))
    var fhir: String?

    func run(in context: ModuleContext) throws {
        guard let path = fhir, !path.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UNITIError(L("tn.export.error.usage"))
        }
        let bundle = try FHIRBundleBuilder(context: context).bundle()
        let count = try AtomicFile.write(path) { output in
            let writer = FHIRCollectionWriter(timestamp: bundle.timestamp, output: output)
            try bundle.forEachEntry { try writer.append($0) }
            try writer.finish()
            return writer.count
        }
        context.console.line(context.localizer("tn.export.done", count: count, ["path": path]))
    }
}

/// Writes a file through a temporary one beside it, renamed over the destination at the end
/// (rename within a directory is atomic); the temporary file is removed on any failure.
enum AtomicFile {
    static func write<Result>(_ path: String, _ body: (_ output: @escaping (Data) throws -> Void) throws -> Result) throws -> Result {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw failure(path, reason: String(cString: strerror(errno)))
        }
        do {
            let result = try body { data in
                do { try handle.write(contentsOf: data) } catch { throw failure(path, reason: error.localizedDescription) }
            }
            do { try handle.close() } catch { throw failure(path, reason: error.localizedDescription) }
            guard rename(temporary.path, url.path) == 0 else { throw failure(path, reason: String(cString: strerror(errno))) }
            return result
        } catch {
            // Whatever went wrong (writing, or reading the record), the destination is untouched.
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    private static func failure(_ path: String, reason: String) -> UNITIError {
        UNITIError(L("tn.export.error.cannotWrite", ["path": path, "reason": reason]))
    }
}
