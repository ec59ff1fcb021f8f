import Foundation

/// Access to the files bundled under `Configurations/Resources`: the default study used offline
/// and before any login, and the questionnaires and catalogues that modules ship.
public enum BundledConfiguration {
    /// The URL of a bundled file, e.g. `resource("default-study.json")`.
    public static func resource(_ relativePath: String) -> URL? {
        let url = Bundle.module.bundleURL
            .appendingPathComponent("Resources")
            .appendingPathComponent(relativePath)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The bytes of a bundled file, or nil when it is missing.
    public static func data(_ relativePath: String) -> Data? {
        resource(relativePath).flatMap { try? Data(contentsOf: $0) }
    }
}
