import Synchronization

/// Ctrl-C while a command runs on a terminal. The shell turns SIGINT into this flag instead of
/// ending the process, so that a long-running command (a player, the reminder daemon) can stop
/// cleanly and nothing half-written is lost. Commands that run long poll `isRequested`.
/// A lock-free atomic, so the signal handler may set it.
public enum Interrupt {
    private static let flag = Atomic<Bool>(false)

    public static var isRequested: Bool { flag.load(ordering: .relaxed) }

    /// Clears the flag; called before each command.
    public static func reset() { flag.store(false, ordering: .relaxed) }

    /// Sets the flag (from the signal handler or a key press).
    public static func request() { flag.store(true, ordering: .relaxed) }
}
