import Foundation

/// Where the server's idea of "now" comes from, injected so that token expiry, throttling and
/// receive times are deterministic in tests.
public protocol ServerClock: Sendable {
    func now() -> Date
}

/// The real clock.
public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock tests move by hand.
public final class ManualServerClock: ServerClock, @unchecked Sendable {
    // Guarded by `lock`.
    private var current: Date
    private let lock = NSLock()

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.current = start
    }

    public func now() -> Date {
        lock.withLock { current }
    }

    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }
}
