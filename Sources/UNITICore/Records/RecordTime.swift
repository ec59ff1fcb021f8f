import Foundation

/// Update times of module records, which decide between two devices' versions of one record:
/// sent, stored by the server and compared to the millisecond, so edits made on two devices
/// within one second are still told apart.
public enum RecordTime {
    /// `date` cut to whole milliseconds, the precision a pulled time has.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    /// Whether a local change at `local` is newer than a pulled version stamped `pulled`. An
    /// equal time is the device's own version coming back, which may be applied again.
    public static func isNewer(_ local: Date?, than pulled: Date) -> Bool {
        guard let local else { return false }
        return truncated(local) > truncated(pulled)
    }
}
