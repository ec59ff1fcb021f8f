import Foundation
import UNITIResources

/// The files of `Configurations/Resources`, compiled into the program (see `CompiledResources`
/// for why): the default study used offline and before any login, and the questionnaires and
/// catalogues that modules ship.
public enum BundledConfiguration {
    /// Every bundled file, by its path under `Configurations/Resources`.
    public static var files: CompiledResources { compiledResources }

    /// The bytes of a bundled file (`default-study.json`, `Questionnaires/tyt-momentary.json`),
    /// or nil when this build lacks it.
    public static func data(_ relativePath: String) -> Data? {
        compiledResources.data(relativePath)
    }
}
