/// Where the language comes from: `--lang`, else the stored `language` setting, else `LANG`,
/// else English.
public enum LanguageSetting {
    public static let key = "language"

    public static func resolve(option: Language?, stored: String?, environment: [String: String]) -> Language {
        if let option { return option }
        if let stored, let language = Language(code: stored) { return language }
        return Language.fromEnvironment(environment) ?? .english
    }
}
