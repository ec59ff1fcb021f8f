// The words of the shell (``Localizer``, ``Language``, ``QuestionnaireText``, ``AnswerParser``,
// ``SAMPictograms``) live in UNITIText, which the study server shares for its console preview;
// every module and test that imports UNITICore sees them as before.
@_exported import UNITIText

/// The language currently shown, readable from code that has no context at hand (such as the
/// static help texts of command definitions). The shell sets it at start and on `language`.
public enum CurrentLanguage {
    private static let storage = LockedValue(Language.english)

    /// A language of its own for the current task and its children, when set: lets tests that
    /// switch languages run in parallel without changing each other's texts.
    @TaskLocal public static var scope: LockedValue<Language>?

    public static var value: Language {
        get { scope?.value ?? storage.value }
        set {
            if let scope { scope.value = newValue } else { storage.value = newValue }
        }
    }

    public static var localizer: Localizer { Localizer(language: value) }
}

/// `L("key")`: the text for `key` in the current language. For static command help texts.
public func L(_ key: String, _ arguments: [String: String] = [:]) -> String {
    CurrentLanguage.localizer(key, arguments)
}

/// `L("key", count: n)`: the text of a counted thing in the current language (see
/// ``Localizer/callAsFunction(_:count:_:)``).
public func L(_ key: String, count: Int, _ arguments: [String: String] = [:]) -> String {
    CurrentLanguage.localizer(key, count: count, arguments)
}
