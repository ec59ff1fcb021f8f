/// The languages UNITI speaks. English is the fallback for every missing string.
public enum Language: String, CaseIterable, Sendable, Codable {
    case english = "en"
    case german = "de"

    /// Parses `en`, `de`, `english`, `deutsch`, or a POSIX locale such as `de_DE.UTF-8`.
    public init?(code: String) {
        let lowered = code.lowercased()
        switch lowered {
        case "english": self = .english; return
        case "german", "deutsch": self = .german; return
        default: break
        }
        let prefix = String(lowered.prefix { $0.isLetter })
        guard let language = Language(rawValue: prefix) else { return nil }
        self = language
    }

    /// The plural form a count takes in this language, as CLDR names them. English and German
    /// have two: `one` for exactly 1, `other` for everything else (0, 2, 21, ...). A language
    /// added here must say which forms it has, and its tables must carry each of them.
    public func pluralForm(_ count: Int) -> PluralForm {
        switch self {
        case .english, .german: return count == 1 ? .one : .other
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
