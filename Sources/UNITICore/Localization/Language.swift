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
