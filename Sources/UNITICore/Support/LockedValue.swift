import Foundation

/// A value guarded by a lock, for the few pieces of process-wide state (current language,
/// interrupt flag) that must be readable from any thread.
public final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) {
        self.stored = value
    }

    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    @discardableResult
    public func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&stored) }
    }
}
