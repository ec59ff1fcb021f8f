import UNITICore

/// The one place where Track Your Tinnitus asks which build it runs in (see the module README).
///
/// What differs: after a saved check-in the standalone program ends while the integrated shell
/// returns to its prompt (thesis 3, FR2); the baseline questionnaires are the module's own in
/// the standalone program and the shell's shared ones in the integrated build; the standalone
/// program opens with the start screen (log in, register, forgot password, or no account).
enum TinnitusBuild {
    static var isIntegrated: Bool { IS_INTEGRATED_VERSION }
}
