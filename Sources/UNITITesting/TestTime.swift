import Foundation

/// The fixed instant tests of stored data run at (2027-01-15 08:00 UTC), so a test's times are
/// the same in every run and no test depends on today's date.
public enum TestTime {
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)
}
