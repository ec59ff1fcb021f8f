import Foundation

/// Access to the string tables in `Localization/Strings/<language>.json`.
///
/// One file per language, a flat JSON object from key to text. Keys are namespaced by the part
/// of the program that owns them (`host.`, `core.`, `tyt.`, ...). Adding a language is adding
/// one file here and one case to `Language` in UNITICore.
public enum StringTables {
    /// The table for a language code such as `en` or `de`; empty when the file is missing or
    /// unreadable (the caller falls back to English).
    public static func table(for languageCode: String) -> [String: String] {
        guard let url = tableURL(for: languageCode),
              let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        else { return [:] }
        return object
    }

    /// Where the table for a language lives, if it exists.
    public static func tableURL(for languageCode: String) -> URL? {
        let url = Bundle.module.bundleURL
            .appendingPathComponent("Strings")
            .appendingPathComponent("\(languageCode).json")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
