import UNITICore

/// The one place where Shades Of Noise asks which build it runs in (see the module README).
///
/// Integrated (thesis 6.5): the host owns login, profile, questionnaires and settings, so the
/// module offers the player and the statistics only. Standalone (thesis 6.4): the program opens
/// with the start screen (log in, register, forgot password, guest) and adds the tinnitus
/// profile questionnaire and the settings pages.
enum SonBuild {
    static var isIntegrated: Bool { IS_INTEGRATED_VERSION }
}
