/// A module whose program opens with the start screen when nobody is logged in: log in,
/// register, forgot password, and, where the app allowed it, continue as a guest (Track Your
/// Tinnitus and Shades Of Noise did; Track Your Stress needs an account). The shell asks only on
/// a terminal.
public protocol StartScreenOffering: UNITIModule {
    /// The choices of the start screen in this kind of program; nil for no start screen.
    func startScreen(in program: ProgramKind) -> StartScreenChoices?
}

/// What the start screen offers.
public enum StartScreenChoices: Sendable, Equatable {
    /// Log in, register, forgot password, or continue as a guest (data stays on the device).
    case accountOrGuest
    /// Log in, register or forgot password; the program is used with an account only.
    case accountOnly
}
