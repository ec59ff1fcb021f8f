import Foundation

/// The languages UNITI speaks: those of the UNITI trial's sites (Germany, Belgium's Flanders,
/// Greece, Spain) and English, which is the fallback for every missing string.
public enum Language: String, CaseIterable, Sendable, Codable {
    case english = "en"
    case german = "de"
    case spanish = "es"
    case greek = "el"
    case dutch = "nl"

    /// Parses a code (`en`, `de`, `es`, `el`, `nl`), a language's name in English or in itself
    /// (`deutsch`, `español`, `ελληνικά`, `nederlands`), or a POSIX locale such as `de_DE.UTF-8`.
    public init?(code: String) {
        let lowered = code.lowercased()
        switch lowered {
        case "english": self = .english; return
        case "german", "deutsch": self = .german; return
        case "spanish", "español", "espanol", "castellano": self = .spanish; return
        case "greek", "ελληνικά", "ελληνικα", "ellinika": self = .greek; return
        case "dutch", "nederlands", "vlaams", "flemish": self = .dutch; return
        default: break
        }
        let prefix = String(lowered.prefix { $0.isLetter })
        guard let language = Language(rawValue: prefix) else { return nil }
        self = language
    }

    /// The plural form a count takes in this language, as CLDR names them. All five have two
    /// for whole numbers: `one` for exactly 1, `other` for everything else (0, 2, 21, ...;
    /// CLDR's Spanish `many` is for a million and more written as words, which no text here
    /// says). A language added here must say which forms it has, and its tables must carry each.
    public func pluralForm(_ count: Int) -> PluralForm {
        switch self {
        case .english, .german, .spanish, .greek, .dutch: return count == 1 ? .one : .other
        }
    }

    /// The language's name in itself, as a list of languages to choose from shows it.
    public var nativeName: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        case .spanish: "Español"
        case .greek: "Ελληνικά"
        case .dutch: "Nederlands"
        }
    }

    /// The language from the `LANG`/`LC_ALL`/`LC_MESSAGES` environment, if it names one we speak.
    public static func fromEnvironment(_ environment: [String: String]) -> Language? {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[key], !value.isEmpty {
                return Language(code: value)
            }
        }
        return nil
    }
}

/// A plural form of a text: a counted text is kept in the string tables under its key with one
/// of these as the last part (`tyh.stats.lastTen.one`, `tyh.stats.lastTen.other`), and chosen
/// with ``Localizer/callAsFunction(_:count:_:)``.
public enum PluralForm: String, CaseIterable, Sendable {
    case one, other
}

extension Language {
    /// `text` in capitals as the language writes them: Greek drops the accent (τόνος) in
    /// capitals, so a headline reads `ΓΕΝΙΚΟ ΙΣΤΟΡΙΚΟ`, not `ΓΕΝΙΚΌ ΙΣΤΟΡΙΚΌ` (the diaeresis stays:
    /// `ΪΥ`); the other languages capitalise letter by letter (`ß` becomes `SS`).
    public func uppercased(_ text: String) -> String {
        let capitals = text.uppercased()
        guard self == .greek else { return capitals }
        let accents: Set<Unicode.Scalar> = ["\u{0301}", "\u{0342}"]
        let bare = String(String.UnicodeScalarView(capitals.decomposedStringWithCanonicalMapping.unicodeScalars.filter { !accents.contains($0) }))
        return bare.precomposedStringWithCanonicalMapping
    }
}

extension Language {
    /// Whether `a` comes before `b` in a list sorted by name in this language: its collation
    /// (Spanish `ñ` after `n`, German `ä` with `a`), ignoring case, numbers by value (`2` before
    /// `10`); not the process's locale, which is the machine's and not the person's.
    public func ordered(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.caseInsensitive, .numeric], range: nil, locale: Locale(identifier: rawValue)) == .orderedAscending
    }
}
