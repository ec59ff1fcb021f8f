import Foundation
import UNITIProtocol

/// Where reminder planning (and anything else that draws by chance) gets its randomness.
///
/// Injected so that tests are deterministic: production code uses ``SystemRandomSource``,
/// tests use ``SeededRandomSource`` with a fixed seed and get the same draws on every run.
/// A reference type, so one source can be shared by the services of a process.
public protocol RandomSource: AnyObject, Sendable {
    /// 64 uniformly distributed random bits.
    func nextUInt64() -> UInt64
}

extension RandomSource {
    /// A uniformly distributed integer in `range`, without modulo bias.
    public func integer(in range: ClosedRange<Int>) -> Int {
        var generator = RandomSourceGenerator(source: self)
        return Int.random(in: range, using: &generator)
    }

    /// A uniformly distributed value in `0 ..< 1`.
    public func unitInterval() -> Double {
        Double(nextUInt64() >> 11) * 0x1.0p-53
    }
}

/// Adapts a ``RandomSource`` to the standard library's `RandomNumberGenerator`, so the
/// standard library's unbiased range draws (`Int.random(in:using:)`) can use it.
public struct RandomSourceGenerator: RandomNumberGenerator {
    public let source: any RandomSource

    public init(source: any RandomSource) {
        self.source = source
    }

    public mutating func next() -> UInt64 {
        source.nextUInt64()
    }
}

/// The operating system's random numbers, for production.
public final class SystemRandomSource: RandomSource {
    public init() {}

    public func nextUInt64() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

/// A seeded, deterministic source: SplitMix64 (Steele, Lea, Flood 2014), small, fast and
/// well distributed for a 64-bit state. The same seed always yields the same sequence, on
/// every platform. Thread-safe through a lock, so it may be shared.
public final class SeededRandomSource: RandomSource, @unchecked Sendable {
    private let state: LockedValue<UInt64>

    public init(seed: UInt64) {
        self.state = LockedValue(seed)
    }

    public func nextUInt64() -> UInt64 {
        state.withValue { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            return Self.mix(state)
        }
    }

    /// The SplitMix64 output function (``PromptDraw/mix(_:)``, shared with the server): also a
    /// good way to derive an independent seed from structured input.
    public static func mix(_ value: UInt64) -> UInt64 { PromptDraw.mix(value) }
}
