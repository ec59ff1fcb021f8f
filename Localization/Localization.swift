/// The string tables in `Localization/Strings/<language>/*.json`.
///
/// Each language is a folder of JSON files, each a flat object from key to text; the files of
/// one language are merged (a key may appear in one file only), so every part of the program
/// (host, core services, each module) keeps its strings in its own file. Keys are namespaced by
/// their owner (`host.`, `core.`, `tyt.`, ...). Adding a language is adding one folder there and
/// one case to `Language` in UNITICore.
///
/// The JSON files are compiled into the program at build time (the GeneratedSourcesPlugin), so
/// a start reads no file for its texts: finding, reading and parsing the tables was a sixth of
/// the work of `uniti -c modules`.
public enum StringTables {
    /// The merged table of a language code such as `en` or `de`; empty for a language without
    /// one (the caller falls back to English).
    public static func table(for languageCode: String) -> [String: String] {
        compiled(languageCode)
    }
}
