import Foundation

/// Access to the string tables in `Localization/Strings/<language>/*.json`.
///
/// Each language is a folder of JSON files, each a flat object from key to text; the files of
/// one language are merged, so every part of the program (host, core services, each module)
/// keeps its strings in its own file. Keys are namespaced by their owner (`host.`, `core.`,
/// `tyt.`, ...). Adding a language is adding one folder here and one case to `Language` in
/// UNITICore.
public enum StringTables {
    /// The merged table of a language code such as `en` or `de`; empty when the folder is
    /// missing (the caller falls back to English). Files are merged in name order.
    public static func table(for languageCode: String) -> [String: String] {
        var table: [String: String] = [:]
        for url in files(for: languageCode) {
            guard let data = try? Data(contentsOf: url),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
            else { continue }
            table.merge(object) { _, new in new }
        }
        return table
    }

    /// The table files of a language, in name order.
    public static func files(for languageCode: String) -> [URL] {
        let folder = Bundle.module.bundleURL
            .appendingPathComponent("Strings")
            .appendingPathComponent(languageCode)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
    }
}
