import ArgumentParser
import Foundation
import UNITIProtocol

/// Reads a study's consent from what `study create|update --consent` is given: Markdown files,
/// one per language, named `NAME.<lang>.md` (`NAME.md` is English), or one text or JSON object as
/// `--title` takes. Every language of the study's title needs its consent text, so nobody joins
/// reading a language the study does not speak; a bad file is one line naming it and what is
/// accepted, and nothing is changed.
enum ConsentFiles {
    /// The largest consent file taken: a consent is read in full before joining.
    static let maximumBytes = 64 * 1024

    static func text(_ values: [String], languages: Set<String>) throws -> LocalizedText {
        var texts: [String: String] = [:]
        for value in values {
            guard value.hasSuffix(".md") else {
                guard values.count == 1 else {
                    throw ValidationError("--consent: give Markdown files (NAME.<lang>.md), or one text; '\(value.prefix(40))' is neither.")
                }
                texts = try StudyCommand.Fields.text(value, option: "--consent").values
                break
            }
            let (language, text) = try file(value)
            guard texts.updateValue(text, forKey: language) == nil else {
                throw ValidationError("--consent: two files for language '\(language)'; give one per language.")
            }
        }
        let missing = languages.subtracting(texts.keys).sorted()
        guard missing.isEmpty else {
            throw ValidationError("--consent: the study is in \(languages.sorted().joined(separator: ", ")); give the consent in \(missing.joined(separator: ", ")) as well (e.g. consent.\(missing[0]).md).")
        }
        return LocalizedText(texts)
    }

    /// One file's language (from its name) and text (UTF-8, not empty, at most ``maximumBytes``).
    static func file(_ path: String) throws -> (language: String, text: String) {
        let parts = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".")
        let language = parts.count >= 3 ? String(parts[parts.count - 2]).lowercased() : "en"
        guard language.count >= 2, language.count <= 3, language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw ValidationError("--consent \(path): the name's language '\(language)' is not a language code; name it NAME.<lang>.md, e.g. consent.de.md.")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("--consent \(path): no such file, or it cannot be read.")
        }
        guard data.count <= maximumBytes else {
            throw ValidationError("--consent \(path): \(data.count) bytes; a consent has at most \(maximumBytes) bytes.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("--consent \(path): not UTF-8 text; save it as UTF-8 Markdown.")
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ValidationError("--consent \(path): the file is empty.") }
        return (language, trimmed)
    }
}
