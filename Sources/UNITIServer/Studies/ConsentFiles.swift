import Foundation
import UNITIProtocol

/// Reads a study's consent from what `study create|update --consent` is given: files, one per
/// language, named `NAME.<lang>.<ext>` (`consent.de.md`; a name without a language,
/// `consent.md` or `consent.txt`, is English), or one text or JSON object as `--title` takes it.
/// A value that names an existing file is read, whatever its extension; a value that looks like a
/// file name (a path, or a word with an extension) but names none is refused: it is never taken
/// as the consent's text (issue 43: participants were asked to agree to `/path/consent.txt`).
/// Whether every language of the study has its text is the service's rule
/// (``StudyRules/consentProblems(_:languages:)``). A bad value is one line naming it and what is
/// accepted, and nothing is changed.
enum ConsentFiles {
    static func text(_ values: [String]) throws -> LocalizedText {
        var texts: [String: String] = [:]
        for value in values {
            if let (language, text) = try file(value) {
                guard texts.updateValue(text, forKey: language) == nil else {
                    throw refusal("--consent: two files for language '\(language)'; give one per language.")
                }
                continue
            }
            guard !looksLikeFile(value) else {
                throw refusal("--consent \(value.prefix(200)): no such file; give an existing file, or the text itself.")
            }
            guard values.count == 1 else {
                throw refusal("--consent: give files (NAME.<lang>.md), or one text; '\(value.prefix(40))' is neither.")
            }
            return try StudyRules.text(value, field: "--consent")
        }
        return LocalizedText(texts)
    }

    /// Whether a value that names no file was meant as one: a path (it has a `/`), or one word
    /// with an extension (`consent.txt`, `consent.de.md`). A consent text has spaces.
    static func looksLikeFile(_ value: String) -> Bool {
        guard !value.hasPrefix("{"), !value.contains(where: \.isWhitespace), !value.isEmpty else { return false }
        return value.contains("/") || value.wholeMatch(of: #/[^.]+(\.[^.]+)*\.[A-Za-z0-9]{1,8}/#) != nil
    }

    /// The language (from the name) and text (UTF-8, not empty, at most
    /// ``StudyRules/maximumConsentBytes``) of the file `path` names; nil when it names none.
    static func file(_ path: String) throws -> (language: String, text: String)? {
        var isFolder: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        guard !isFolder.boolValue else { throw refusal("--consent \(path): a folder; give a file.") }
        let parts = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".")
        let language = parts.count >= 3 ? String(parts[parts.count - 2]).lowercased() : "en"
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw refusal("--consent \(path): the name's language '\(language)' is not a language code; name it NAME.<lang>.<ext>, e.g. consent.de.md.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw refusal("--consent \(path): the file cannot be read.")
        }
        guard data.count <= StudyRules.maximumConsentBytes else {
            throw refusal("--consent \(path): \(data.count) bytes; a consent has at most \(StudyRules.maximumConsentBytes) bytes.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw refusal("--consent \(path): not UTF-8 text; save it as UTF-8.")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw refusal("--consent \(path): the file is empty.") }
        return (language, trimmed)
    }

    private static func refusal(_ message: String) -> APIError {
        APIError.invalid("consent_file", message)
    }
}
