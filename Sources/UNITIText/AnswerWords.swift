/// The words a person types for yes and for no, in every language UNITI speaks, in lower case:
/// whatever the shell's current language, `y` and `n` always work, and so does each language's
/// own word and its first letter (`ja`/`j`, `sí`/`s`, `ναι`/`ν`, `nee`), also without accents.
/// Greek's no is `όχι`, its first letter `ο` (omicron); `n` stays no in every language.
public enum AnswerWords {
    public static let yes: Set<String> = ["y", "yes", "j", "ja", "s", "sí", "si", "ν", "ναι", "ναί"]
    public static let no: Set<String> = ["n", "no", "nein", "nee", "ο", "όχι", "οχι", "o"]
}
