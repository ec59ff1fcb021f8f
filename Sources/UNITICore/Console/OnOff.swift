import ArgumentParser
import Foundation

/// A switch the person sets by typing `on` or `off`, or a word of their language.
///
/// The words come from the string tables (`core.switch.on.words`: "an, ein" in German), never
/// from code, so a language brings its own words without touching a command. The English words
/// are accepted in every language (scripts and documentation use them); case does not matter.
/// As an argument-parser value (`@Argument var value: OnOff`), the accepted words are listed in
/// help and completion; ``init(parsing:)`` gives the one-line error of the string tables for
/// words read elsewhere.
public enum OnOff: String, Sendable, CaseIterable, ExpressibleByArgument {
    case on, off

    public init(_ isOn: Bool) {
        self = isOn ? .on : .off
    }

    public var isOn: Bool { self == .on }

    /// A word typed by the person; an unknown word throws one line naming every accepted one.
    public init(parsing word: String) throws {
        guard let value = Self(argument: word) else {
            throw UNITIError(L("core.switch.invalid", ["value": word, "accepted": Self.allValueStrings.joined(separator: ", ")]))
        }
        self = value
    }

    public init?(argument: String) {
        let word = argument.trimmingCharacters(in: .whitespaces).lowercased()
        guard let value = Self.allCases.first(where: { $0.words.contains(word) }) else { return nil }
        self = value
    }

    /// Every accepted word in the current language: the words for on, then those for off.
    public static var allValueStrings: [String] {
        allCases.flatMap(\.words)
    }

    /// The words for this value: its name, the English table's words, the current language's.
    var words: [String] {
        var words = [rawValue]
        for localizer in [Localizer(language: .english), CurrentLanguage.localizer] {
            let list = self == .on ? localizer("core.switch.on.words") : localizer("core.switch.off.words")
            for word in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
            where !word.isEmpty && !words.contains(word) {
                words.append(word)
            }
        }
        return words
    }
}
