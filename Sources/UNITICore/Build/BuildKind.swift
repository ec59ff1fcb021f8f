/// Whether this binary was compiled as the integrated host or as a standalone program.
///
/// The Shades Of Noise thesis (ch. 5.3) selects the build at compile time with `-DINTEGRATED`;
/// here the flag is the package trait `INTEGRATED`, which SwiftPM passes to the compiler the
/// same way. Code asks `BuildKind.current` (or the constant below) in a few named places only:
/// the launcher's wrong-kind check, the host's account/settings commands, and each module's
/// standalone-only commands.
#if INTEGRATED
public let IS_INTEGRATED_VERSION = true
#else
public let IS_INTEGRATED_VERSION = false
#endif

public enum BuildKind: String, Sendable, Codable {
    case integrated
    case standalone

    /// The kind this binary was compiled as.
    public static let current: BuildKind = IS_INTEGRATED_VERSION ? .integrated : .standalone
}

/// The version shared by the host and all standalone programs.
public enum UNITIVersion {
    public static let string = "0.1.0"
}
