import Foundation

/// Building blocks of the natural textures: a factory, a slowly wandering control value and
/// short decaying sine events (drops, bubbles).
///
/// The textures are synthesized, not recorded: noise beds shaped by filters whose settings
/// drift the way rain, water, surf and wind drift, plus random events. Their `nominalRMS` was
/// measured once on 40 s of output (seed 1); the generator's soft limiter catches the
/// rare peaks.
public enum TextureSignal {
    static func make(_ texture: NaturalTexture, scene: NoiseRandom, own: NoiseRandom, sampleRate: Int) -> any ChannelSignal {
        switch texture {
        case .rain: return RainTexture(random: own, sampleRate: sampleRate)
        case .stream: return WaterTexture(.stream, scene: scene, random: own, sampleRate: sampleRate)
        case .waterfall: return WaterTexture(.waterfall, scene: scene, random: own, sampleRate: sampleRate)
        case .surf: return SurfTexture(scene: scene, random: own, sampleRate: sampleRate)
        case .wind: return WindTexture(scene: scene, random: own, sampleRate: sampleRate)
        }
    }

    /// Samples between updates of the textures' slowly changing settings.
    static let controlInterval = 32
}

/// A value that glides between random targets in [0, 1], a new target every `period` seconds
/// (±50 %), with a raised-cosine path so that nothing jumps.
struct WanderingValue {
    private var random: NoiseRandom
    private let meanSteps: Double
    private var from: Double
    private var to: Double
    private var step = 0
    private var steps: Int

    init(random: NoiseRandom, period: Double, stepsPerSecond: Double) {
        self.random = random
        self.meanSteps = period * stepsPerSecond
        self.from = self.random.unit()
        self.to = self.random.unit()
        self.steps = max(1, Int(meanSteps))
    }

    /// Advances one control step and returns the current value.
    mutating func next() -> Double {
        if step >= steps {
            from = to
            to = random.unit()
            step = 0
            steps = max(1, Int(meanSteps * (0.5 + random.unit())))
        }
        let x = Double(step) / Double(steps)
        step += 1
        return from + (to - from) * (0.5 - 0.5 * cos(Double.pi * x))
    }
}

/// Short decaying sines: raindrops (steady pitch) and bubbles (pitch rising as they form).
/// A fixed pool keeps the memory constant; an event arriving while the pool is full is skipped.
struct DecayingSines {
    private struct Event { var phase: Double; var increment: Double; var chirp: Double; var amplitude: Float; var decay: Float }
    private var events: [Event] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        events.reserveCapacity(capacity)
    }

    mutating func start(frequency: Double, octavesPerSecond: Double, amplitude: Double, decaySeconds: Double, sampleRate: Int) {
        guard events.count < capacity else { return }
        let rate = Double(sampleRate)
        events.append(Event(phase: 0, increment: 2 * .pi * frequency / rate,
                            chirp: pow(2, octavesPerSecond / rate),
                            amplitude: Float(amplitude), decay: Float(exp(-1 / (decaySeconds * rate)))))
    }

    /// The sum of all sounding events for one sample.
    mutating func next() -> Float {
        guard !events.isEmpty else { return 0 }
        var sum: Float = 0
        var i = 0
        while i < events.count {
            sum += events[i].amplitude * Float(sin(events[i].phase))
            events[i].phase += events[i].increment
            events[i].increment *= events[i].chirp
            events[i].amplitude *= events[i].decay
            if events[i].amplitude < 1e-4 { events.swapAt(i, events.count - 1); events.removeLast() } else { i += 1 }
        }
        return sum
    }
}

/// Poisson arrivals: the number of samples until the next event at `rate` per second.
func samplesUntilNext(rate: Double, sampleRate: Int, random: inout NoiseRandom) -> Int {
    let u = max(random.unit(), 1e-12)
    return max(1, Int(-log(u) / rate * Double(sampleRate)))
}
