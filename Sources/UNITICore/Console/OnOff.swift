import ArgumentParser
import Foundation

/// A switch the person sets by typing `on` or `off`, or a word of their language
/// (``LocalizedArgumentWords``: `core.switch.words.on` is `an|ein` in German), never matched by
/// hand in a command.
public enum OnOff: String, Sendable, LocalizedArgumentWords {
    case on, off

    public static var wordsKey: String { "core.switch.words" }

    public init(_ isOn: Bool) {
        self = isOn ? .on : .off
    }

    public var isOn: Bool { self == .on }

    /// A word typed by the person outside the argument parser (a question, a setting); an
    /// unknown word throws one line naming every accepted one.
    public init(parsing word: String) throws {
        guard let value = Self(argument: word.trimmingCharacters(in: .whitespaces)) else {
            throw UNITIError(L("core.switch.invalid", ["value": word, "accepted": Self.allValueStrings.joined(separator: ", ")]))
        }
        self = value
    }

    /// The words a refusal names: those of the current language and English, for on, then for
    /// off, each sorted. The other languages' words are accepted too (``words``), but five
    /// languages' worth would not make a one-line answer.
    public static var allValueStrings: [String] {
        let named = Array(Set([CurrentLanguage.value, .english]))
        return allCases.flatMap { $0.words(in: named).sorted() }
    }
}
