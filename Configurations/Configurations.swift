import Foundation
import UNITIResources

/// Access to the files bundled under `Configurations/Resources`: the default study used offline
/// and before any login, and the questionnaires and catalogues that modules ship.
public enum BundledConfiguration {
    /// The URL of a bundled file, e.g. `resource("default-study.json")`.
    public static func resource(_ relativePath: String) -> URL? {
        let path = resourcesFolder + "/" + relativePath
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path) : nil
    }

    /// The bytes of a bundled file, or nil when it is missing.
    public static func data(_ relativePath: String) -> Data? {
        FileManager.default.contents(atPath: resourcesFolder + "/" + relativePath)
    }

    /// Found next to the executable without Foundation's Bundle (see UNITIResources).
    static let resourcesFolder: String =
        (resourceFolderNextToExecutable("UNITI_UNITIConfigurations.resources") ?? Bundle.module.bundlePath) + "/Resources"
}
