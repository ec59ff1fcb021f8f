/// A module whose program may open with the start screen (log in, register, forgot password,
/// or continue as a guest) when nobody is logged in, as the Track Your Tinnitus and Shades Of
/// Noise apps did. The shell asks only on a terminal and only in a standalone program.
public protocol GuestStartOffering: UNITIModule {
    func offersGuestStart(in program: ProgramKind) -> Bool
}
