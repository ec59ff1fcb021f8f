/// Where the language comes from: `--lang`, else the stored `language` setting, else `LANG`,
/// else English.
public enum LanguageSetting {
    public static let key = "language"

    public static func resolve(option: Language?, stored: String?, environment: [String: String]) -> Language {
        if let option { return option }
        if let stored, let language = Language(code: stored) { return language }
        return Language.fromEnvironment(environment) ?? .english
    }

    /// Switches to the language `code` at once and keeps it (`language de`, a standalone
    /// program's settings); an unknown code gets one line with the accepted ones.
    @discardableResult
    public static func switchTo(_ code: String, settings: SettingsStore) throws -> Language {
        guard let language = Language(code: code) else {
            throw UNITIError(L("host.language.unknown", [
                "code": code, "accepted": Language.allCases.map(\.rawValue).joined(separator: ", "),
            ]))
        }
        try settings.set(key, to: language.rawValue)
        CurrentLanguage.value = language
        return language
    }
}
