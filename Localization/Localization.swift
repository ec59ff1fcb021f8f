/// The string tables in `Localization/Strings/<language>/*.json`.
///
/// Each language is a folder of JSON files, each a flat object from key to text; the files of
/// one language are merged (a key may appear in one file only), so every part of the program
/// (host, core services, each module) keeps its strings in its own file. Keys are namespaced by
/// their owner (`host.`, `core.`, `tyt.`, ...). Adding a language is adding one folder there and
/// one case to `Language` in UNITICore.
///
/// The JSON files are compiled into the program at build time (the GeneratedSourcesPlugin) as
/// sorted arrays, so a start reads, parses and hashes nothing for its texts: loading the tables
/// was a sixth of the work of `uniti -c modules`.
public enum StringTables {
    /// The text of `key` in a language code such as `en` or `de`; nil when the language has no
    /// table or no such key (the caller falls back to English).
    public static func text(_ key: String, language code: String) -> String? {
        guard let table = compiled(code) else { return nil }
        var low = 0
        var high = table.keys.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = table.keys[middle]
            if candidate == key { return table.texts[middle] }
            if candidate < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The whole table of a language, for checks over every key (tests, tools).
    public static func table(for code: String) -> [String: String] {
        guard let table = compiled(code) else { return [:] }
        return Dictionary(uniqueKeysWithValues: zip(table.keys, table.texts))
    }
}
