import Foundation

/// The environment variables UNITI reads, looked up one by one with `getenv`. Foundation's
/// `ProcessInfo.environment` builds a dictionary of every variable, a measurable part of a start
/// that needs only a handful.
public enum ProgramEnvironment {
    /// Every variable the client reads (data directory, language, answers kept while the disk
    /// was full, the console's width, where gpsd listens).
    public static let names = ["UNITI_HOME", "XDG_DATA_HOME", "HOME", "LC_ALL", "LC_MESSAGES", "LANG",
                               "UNITI_RESCUE_DIR", "XDG_RUNTIME_DIR", "COLUMNS", "UNITI_GPSD", clockStart]

    /// Starts the program's clock at this instant (ISO 8601 with an offset) instead of now; for
    /// end-to-end tests in which days pass between runs (``ShiftedClock``).
    public static let clockStart = "UNITI_CLOCK_START"

    /// One variable, nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables UNITI reads, as a dictionary (those not set are absent).
    public static func current() -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = value(name) { values[name] = value }
        }
        return values
    }
}
