import Foundation
import UNITIConfigurations
import UNITIProtocol

/// Reads definitions from files and from the questionnaires bundled under
/// `Configurations/Resources/Questionnaires`, turning every failure into one line a person can
/// act on.
public enum QuestionnaireLoader {
    public static func load(path: String) throws -> QuestionnaireDefinition {
        try decode(readFile(path), source: path)
    }

    /// The bytes of a definition file, or a one-line error naming the file and the reason.
    public static func readFile(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UNITIError(L("questionnaire.error.unreadableFile", ["path": path, "reason": reasonText(error)]))
        }
    }

    /// A bundled definition by file name without `.json` (`tinnitus-distress-12`).
    public static func bundled(_ name: String) throws -> QuestionnaireDefinition {
        guard let data = BundledConfiguration.data("Questionnaires/\(name).json") else {
            throw UNITIError(L("questionnaire.error.notBundled", ["name": name]))
        }
        return try decode(data, source: name)
    }

    public static func decode(_ data: Data, source: String) throws -> QuestionnaireDefinition {
        do {
            return try QuestionnaireDefinition.load(from: data)
        } catch let error as QuestionnaireFormatError {
            throw UNITIError("\(source): \(error.message)")
        }
    }

    private static func reasonText(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.code == NSFileReadNoSuchFileError { return String(cString: strerror(ENOENT)) }
        return nsError.localizedDescription
    }
}
