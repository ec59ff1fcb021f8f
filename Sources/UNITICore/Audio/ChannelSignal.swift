import Foundation

/// One channel of a generated sound, rendered block by block into floats.
///
/// A signal owns all of its state (random generator, filter memories, oscillator phases), so a
/// sound rendered in blocks of any size is one continuous stream, and two channels built from
/// different random streams are independent.
public protocol ChannelSignal: AnyObject {
    /// Writes the next `block.count` samples.
    func render(into block: UnsafeMutableBufferPointer<Float>)
    /// The RMS the raw output has on average; the generator divides by it to reach its level.
    var nominalRMS: Double { get }
}

/// White noise from a `NoiseRandom`, shaped by a chain of linear filters. Its level is exact:
/// the variance of uniform noise times the energy of the chain's impulse response.
public final class FilteredNoise: ChannelSignal {
    private var random: NoiseRandom
    private let filters: [any SignalFilter]
    public let nominalRMS: Double

    /// - Parameter makeFilters: builds the chain; called twice (once to measure its gain).
    public init(random: NoiseRandom, makeFilters: () -> [any SignalFilter]) {
        self.random = random
        self.filters = makeFilters()
        let energy = makeFilters().isEmpty ? 1 : impulseEnergy(makeFilters)
        self.nominalRMS = (NoiseRandom.uniformVariance * energy).squareRoot()
    }

    public func render(into block: UnsafeMutableBufferPointer<Float>) {
        random.fillUniform(block)
        for filter in filters { filter.process(block) }
    }
}

/// A sine at a fixed frequency with a continuous phase.
public final class ToneSignal: ChannelSignal {
    private let increment: Double
    private var phase: Double = 0
    public let nominalRMS = 0.5.squareRoot()

    public init(frequency: Double, sampleRate: Int) {
        increment = 2 * Double.pi * frequency / Double(sampleRate)
    }

    public func render(into block: UnsafeMutableBufferPointer<Float>) {
        for i in block.indices {
            block[i] = Float(sin(phase))
            phase += increment
            if phase >= 2 * .pi { phase -= 2 * .pi }
        }
    }
}

/// Multiplies a carrier by 1 + depth·sin(2π·rate·t): the amplitude-modulated sounds (10 Hz).
/// The modulator starts at phase 0 in every channel, so both ears pulse together.
public final class AmplitudeModulatedSignal: ChannelSignal {
    private let carrier: any ChannelSignal
    private let depth: Double
    private let increment: Double
    private var phase: Double = 0
    public let nominalRMS: Double

    /// - Parameter depth: 0 (none) to 1 (the envelope touches silence).
    public init(carrier: any ChannelSignal, rate: Double, depth: Double, sampleRate: Int) {
        self.carrier = carrier
        self.depth = depth
        self.increment = 2 * Double.pi * rate / Double(sampleRate)
        // E[(1 + d sin)²] = 1 + d²/2.
        self.nominalRMS = carrier.nominalRMS * (1 + depth * depth / 2).squareRoot()
    }

    public func render(into block: UnsafeMutableBufferPointer<Float>) {
        carrier.render(into: block)
        for i in block.indices {
            block[i] *= Float(1 + depth * sin(phase))
            phase += increment
            if phase >= 2 * .pi { phase -= 2 * .pi }
        }
    }
}
