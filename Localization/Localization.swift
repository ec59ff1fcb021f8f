import Foundation
import UNITIResources

/// Access to the string tables in `Localization/Strings/<language>/*.json`.
///
/// Each language is a folder of JSON files, each a flat object from key to text; the files of
/// one language are merged, so every part of the program (host, core services, each module)
/// keeps its strings in its own file. Keys are namespaced by their owner (`host.`, `core.`,
/// `tyt.`, ...). Adding a language is adding one folder here and one case to `Language` in
/// UNITICore.
///
/// The folder is read with plain POSIX calls: tables are loaded at nearly every start, and
/// FileManager's directory listing with URLs cost several times more.
public enum StringTables {
    /// The merged table of a language code such as `en` or `de`; empty when the folder is
    /// missing (the caller falls back to English). Files are merged in name order.
    public static func table(for languageCode: String) -> [String: String] {
        var table: [String: String] = [:]
        for path in files(for: languageCode) {
            guard let data = FileManager.default.contents(atPath: path),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
            else { continue }
            table.merge(object) { _, new in new }
        }
        return table
    }

    /// The paths of the table files of a language, in name order.
    public static func files(for languageCode: String) -> [String] {
        let folder = stringsFolder + "/" + languageCode
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".json") { names.append(name) }
        }
        return names.sorted().map { folder + "/" + $0 }
    }

    private static let stringsFolder: String =
        (resourceFolderNextToExecutable("UNITI_UNITILocalization.resources") ?? Bundle.module.bundlePath) + "/Strings"
}
