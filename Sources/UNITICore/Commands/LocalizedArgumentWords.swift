import Foundation
import ArgumentParser

/// The fixed words an argument takes (`allow|refuse`, `on|off`, a sensor's name) as an
/// argument-parser enum, so a command's `run()` receives a value and never matches words.
///
/// The English raw value is always understood, and so is every word the string tables give
/// for the value in any language (`<wordsKey>.<rawValue>`, alternatives separated by `|`, e.g.
/// German `an|ein`): a script written in either language works in both, whatever the
/// person's current language. Anything else is refused by the parser in one line that lists
/// the English values.
public protocol LocalizedArgumentWords: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {
    /// The string-table prefix of the words, e.g. `host.sensors.words`.
    static var wordsKey: String { get }
}

extension LocalizedArgumentWords {
    public init?(argument: String) {
        let typed = argument.lowercased()
        guard let value = Self.allCases.first(where: { $0.words.contains(typed) }) else { return nil }
        self = value
    }

    /// What Tab offers for such an argument: each value's first word in the current language
    /// (`on`, `off`; `an`, `aus`), though every word of ``words`` is accepted.
    public static var offered: CompletionKind { .list(offeredWords) }

    /// Each value's first word in the current language.
    public static var offeredWords: [String] {
        let localizer = CurrentLanguage.localizer
        return allCases.map { value in
            let key = "\(wordsKey).\(value.rawValue)"
            guard localizer.hasKey(key), let first = localizer(key).split(separator: "|").first else { return value.rawValue }
            return first.trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// What help lists as the values (`(values: on, off)`, `(Werte: an, aus)`): the words Tab
    /// offers, in the current language.
    public static var allValueStrings: [String] { offeredWords }

    /// Every word that means this value, in lower case, in every language.
    public var words: Set<String> { words(in: Language.allCases) }

    /// The words that mean this value in `languages` (and its English raw value), in lower case.
    public func words(in languages: [Language]) -> Set<String> {
        let key = "\(Self.wordsKey).\(rawValue)"
        var words: Set<String> = [rawValue.lowercased()]
        for language in languages {
            let localizer = Localizer(language: language)
            guard localizer.hasKey(key) else { continue }
            for word in localizer(key).split(separator: "|") {
                words.insert(word.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return words
    }
}
