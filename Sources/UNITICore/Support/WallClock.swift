import Foundation
import UNITIProtocol

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

/// The real clock moved to start at another instant: `now` is that instant plus the time the
/// process has run. For end-to-end tests that need days to pass between runs of the real
/// programs (`UNITI_CLOCK_START=2026-11-20T09:00:00+01:00`, see ``ProgramEnvironment``); time
/// zone and waiting are the system's.
public struct ShiftedClock: WallClock {
    private let offset: TimeInterval

    public init(startingAt start: Date) {
        offset = start.timeIntervalSinceNow
    }

    /// The clock `UNITI_CLOCK_START` asks for, nil when it is not set; a value that is not an
    /// ISO 8601 time with an offset is one clear error.
    public static func fromEnvironment() throws -> ShiftedClock? {
        guard let text = ProgramEnvironment.value(ProgramEnvironment.clockStart) else { return nil }
        guard let start = OffsetTimestamp(parsing: text) else {
            throw UNITIError(L("core.clock.invalidStart", ["variable": ProgramEnvironment.clockStart, "value": text]))
        }
        return ShiftedClock(startingAt: start.date)
    }

    public var now: Date { Date().addingTimeInterval(offset) }
    public var timeZone: TimeZone { TimeZone.current }
    public func sleep(seconds: TimeInterval) { Thread.sleep(forTimeInterval: seconds) }
}
