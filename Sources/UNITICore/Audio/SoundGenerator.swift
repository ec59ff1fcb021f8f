import Foundation

/// Renders a `SoundRecipe` as 16-bit interleaved PCM, block by block, in constant memory.
///
/// - Deterministic: a recipe and a seed give the same bytes on every run.
/// - Decorrelated: each channel has its own random stream (tones are the same in both ears).
/// - Levelled: the output has the RMS `levelDBFS` (relative to a full-scale square wave), from
///   each signal's known gain; a soft limiter above −2 dBFS guards against clipping on the
///   rare peaks of the textures.
/// - Continuous: rendering in blocks of any size yields the same stream, so looping a
///   generated sound never has a seam.
public final class SoundGenerator {
    public let recipe: SoundRecipe
    public let format: AudioFormat
    public let seed: UInt64
    public let levelDBFS: Double
    private let signals: [any ChannelSignal]
    private let gains: [Float]
    private var scratch: [Float]
    private static let blockFrames = 4096

    public init(recipe: SoundRecipe, seed: UInt64, format: AudioFormat = .cdStereo, levelDBFS: Double = -20) throws {
        try Self.validate(recipe, format: format)
        guard levelDBFS <= -6, levelDBFS >= -80 else {
            throw UNITIError(L("core.audio.badLevel", ["level": String(levelDBFS)]))
        }
        self.recipe = recipe
        self.format = format
        self.seed = seed
        self.levelDBFS = levelDBFS
        let target = pow(10, levelDBFS / 20)
        var signals: [any ChannelSignal] = []
        for channel in 0..<format.channels {
            signals.append(Self.makeSignal(recipe, seed: seed, channel: channel, sampleRate: format.sampleRate))
        }
        self.signals = signals
        self.gains = signals.map { Float(target / $0.nominalRMS) }
        self.scratch = [Float](repeating: 0, count: Self.blockFrames)
        // Let filters settle (integrator charge, FIR run-in) before the first audible sample.
        for signal in signals {
            scratch.withUnsafeMutableBufferPointer { block in
                var remaining = signal.warmUpFrames
                while remaining > 0 {
                    let count = min(remaining, block.count)
                    signal.render(into: UnsafeMutableBufferPointer(rebasing: block[0..<count]))
                    remaining -= count
                }
            }
        }
    }

    /// Fills `samples` (interleaved; its count a multiple of the channel count) with the next frames.
    public func render(into samples: UnsafeMutableBufferPointer<Int16>) {
        let channels = format.channels
        let frames = samples.count / channels
        var done = 0
        scratch.withUnsafeMutableBufferPointer { scratch in
            while done < frames {
                let count = min(Self.blockFrames, frames - done)
                let block = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
                for channel in 0..<channels {
                    signals[channel].render(into: block)
                    let gain = gains[channel]
                    var index = done * channels + channel
                    for i in 0..<count {
                        samples[index] = Self.toPCM(block[i] * gain)
                        index += channels
                    }
                }
                done += count
            }
        }
    }

    /// The next `frames` frames as a new array (for tests and short renders).
    public func render(frames: Int) -> [Int16] {
        var samples = [Int16](repeating: 0, count: frames * format.channels)
        samples.withUnsafeMutableBufferPointer { render(into: $0) }
        return samples
    }

    /// Limits and converts one sample: the hot path of every render. Below the knee (nearly
    /// every sample) it is a multiply, a round and a store; NaN becomes silence.
    @inline(__always)
    static func toPCM(_ x: Float) -> Int16 {
        let limited = abs(x) > 0.8 ? limit(x) : x
        guard limited == limited else { return 0 }
        // Round to nearest even with the float magic number 1.5 · 2^23: after the addition the
        // low mantissa bits hold the rounded integer in two's complement, so the conversion is
        // one add and a move, with no range checks or libm call (exact for |value| < 2^22).
        let shifted = limited * 32767 + 12_582_912
        return Int16(truncatingIfNeeded: shifted.bitPattern)
    }

    /// Soft knee above 0.8 that never reaches full scale: transparent at normal levels.
    @inline(__always)
    static func limit(_ x: Float) -> Float {
        let magnitude = abs(x)
        guard magnitude > 0.8 else { return x }
        let over = (magnitude - 0.8) / 0.2
        let soft = 0.8 + 0.199 * (over / (1 + over))
        return x < 0 ? -soft : soft
    }

    static func makeSignal(_ recipe: SoundRecipe, seed: UInt64, channel: Int, sampleRate: Int) -> any ChannelSignal {
        let random = NoiseRandom(seed: seed, stream: UInt64(channel) + 1)
        switch recipe {
        case .noise(let color):
            return FilteredNoise(random: random, chainKey: "\(color) \(sampleRate)") {
                Self.filters(for: color, sampleRate: sampleRate)
            }
        case .notched(let base, let centre):
            return FilteredNoise(random: random, chainKey: "notched \(base) \(centre) \(sampleRate)") {
                Self.filters(for: base, sampleRate: sampleRate) + [FIRShaper(sampleRate: sampleRate) { f in
                    let distance = abs(log2(max(f, 1) / centre))
                    return distance <= 0.5 ? 0.003 : 1 // −50 dB across the octave
                }]
            }
        case .narrowBand(let centre):
            return FilteredNoise(random: random, chainKey: "narrow \(centre) \(sampleRate)") {
                [FIRShaper(sampleRate: sampleRate) { f in abs(log2(max(f, 1) / centre)) <= 0.25 ? 1 : 0 }]
            }
        case .modulatedNoise(let color, let rate, let depth):
            let carrier = FilteredNoise(random: random, chainKey: "\(color) \(sampleRate)") {
                Self.filters(for: color, sampleRate: sampleRate)
            }
            return AmplitudeModulatedSignal(carrier: carrier, rate: rate, depth: depth, sampleRate: sampleRate)
        case .modulatedTone(let frequency, let rate, let depth):
            let carrier = ToneSignal(frequency: frequency, sampleRate: sampleRate)
            return AmplitudeModulatedSignal(carrier: carrier, rate: rate, depth: depth, sampleRate: sampleRate)
        case .tone(let frequency):
            return ToneSignal(frequency: frequency, sampleRate: sampleRate)
        case .texture(let texture):
            // The scene (wave timing, gusts) is shared by both ears; the noise is not.
            let scene = NoiseRandom(seed: seed, stream: 0)
            return TextureSignal.make(texture, scene: scene, own: random, sampleRate: sampleRate)
        }
    }

    static func filters(for color: NoiseColor, sampleRate: Int) -> [any SignalFilter] {
        switch color {
        case .white: return []
        case .pink: return [PinkFilter()]
        case .brown: return [IntegratorFilter(sampleRate: sampleRate)]
        case .blue: return [PinkFilter(), DifferentiatorFilter()]
        case .violet: return [DifferentiatorFilter()]
        case .grey:
            return [FIRShaper(sampleRate: sampleRate) { f in
                // Inverse A-weighting, held below 40 Hz and above 16 kHz, faded out below 20 Hz.
                let clamped = min(max(f, 40), 16_000)
                let gain = pow(10, -AWeighting.decibels(at: clamped) / 20)
                return f < 20 ? gain * f / 20 : gain
            }]
        }
    }

    static func validate(_ recipe: SoundRecipe, format: AudioFormat) throws {
        let nyquist = Double(format.sampleRate) / 2
        func check(_ frequency: Double, upper: Double) throws {
            guard frequency.isFinite, frequency >= 50, frequency <= upper else {
                throw UNITIError(L("core.audio.badFrequency", [
                    "frequency": CurrentLanguage.value.number(frequency), "max": String(Int(upper)),
                ]))
            }
        }
        func checkDepth(_ depth: Double, _ rate: Double) throws {
            guard depth >= 0, depth <= 1, rate > 0, rate <= 100 else {
                throw UNITIError(L("core.audio.badModulation", ["depth": String(depth), "rate": String(rate)]))
            }
        }
        switch recipe {
        case .noise, .texture: break
        case .notched(let base, let centre):
            guard base == .white || base == .pink else {
                throw UNITIError(L("core.audio.badNotchBase", ["color": base.rawValue]))
            }
            try check(centre, upper: nyquist * 0.9 / 2.0.squareRoot())
        case .narrowBand(let centre): try check(centre, upper: nyquist * 0.9 / pow(2, 0.25))
        case .tone(let frequency): try check(frequency, upper: nyquist * 0.9)
        case .modulatedTone(let frequency, let rate, let depth):
            try check(frequency, upper: nyquist * 0.9)
            try checkDepth(depth, rate)
        case .modulatedNoise(_, let rate, let depth): try checkDepth(depth, rate)
        }
    }
}
