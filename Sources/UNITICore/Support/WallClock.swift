import Foundation

/// The source of "now" for everything that records or plans times. Injected so that tests can
/// fix the time and reminder planning stays deterministic.
public protocol WallClock: Sendable {
    var now: Date { get }
    var timeZone: TimeZone { get }
    /// Waits (a countdown, a retry); a test clock moves on at once instead.
    func sleep(seconds: TimeInterval)
}

/// The real clock in the process's time zone (`TZ`).
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
    public var timeZone: TimeZone { TimeZone.current }
    public func sleep(seconds: TimeInterval) { Thread.sleep(forTimeInterval: seconds) }
}

/// A clock that stays where tests put it.
public final class FixedClock: WallClock, @unchecked Sendable {
    private let current: LockedValue<Date>
    public let timeZone: TimeZone

    public init(_ date: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.current = LockedValue(date)
        self.timeZone = timeZone
    }

    public var now: Date { current.value }

    public func advance(by seconds: TimeInterval) {
        current.withValue { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Moves the clock on instead of waiting.
    public func sleep(seconds: TimeInterval) { advance(by: seconds) }
}
