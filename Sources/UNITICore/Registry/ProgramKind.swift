/// Which kind of program is running: the integrated host `uniti` with every module, or one
/// module's standalone program (`track-your-tinnitus`, ...).
///
/// The kind is decided once, at launch, from the compile-time flag (the Shades Of Noise thesis,
/// ch. 5.3, selects the build with `-DINTEGRATED`; here it is the package trait `INTEGRATED`,
/// read by the launcher alone). Modules learn it from ``ModuleContext/program`` and
/// ``UNITIModule/commands(for:)``, never from the flag, so a test can run a module's
/// standalone command set in the default build.
public enum ProgramKind: String, Sendable, Codable, CaseIterable {
    /// The host owns registration, login, profile, language, about pages, study membership and
    /// the shared baseline; modules offer their own features only.
    case integrated
    /// A module's own program brings its account commands, settings and entry questionnaire.
    case standalone

    /// The kind's name in the current language ("integrated", "eigenständig").
    public var localizedName: String { L("core.buildKind.\(rawValue)") }
}

/// The version shared by the host and all standalone programs.
public enum UNITIVersion {
    public static let string = "0.2.0"
}
