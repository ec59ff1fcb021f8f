import Foundation

/// Synthesized rain: a bright hiss of many distant drops, with near drops as short pings and
/// ticks arriving at random (about 50 per second per ear).
final class RainTexture: ChannelSignal {
    private var random: NoiseRandom
    /// Drop timing and sizes come from their own stream, so the output does not depend on how
    /// the stream is cut into blocks.
    private var events: NoiseRandom
    private let sampleRate: Int
    private let highPass: Biquad
    private let lowPass: Biquad
    private var drops = DecayingSines(capacity: 32)
    private var countdown: Int
    let nominalRMS = 0.131

    init(random: NoiseRandom, sampleRate: Int) {
        var own = random
        self.events = NoiseRandom(seed: own.next(), stream: 11)
        self.random = own
        self.sampleRate = sampleRate
        highPass = Biquad(.highPass, frequency: 600, q: 0.7, sampleRate: sampleRate)
        lowPass = Biquad(.lowPass, frequency: 9000, q: 0.7, sampleRate: sampleRate)
        countdown = samplesUntilNext(rate: 50, sampleRate: sampleRate, random: &events)
    }

    func render(into block: UnsafeMutableBufferPointer<Float>) {
        random.fillUniform(block)
        for i in block.indices {
            let bed = lowPass.tick(highPass.tick(block[i])) * 0.3
            countdown -= 1
            if countdown <= 0 {
                let size = events.unit()
                drops.start(frequency: 1800 + 4200 * events.unit(), octavesPerSecond: 0,
                            amplitude: 0.05 + 0.5 * size * size, decaySeconds: 0.002 + 0.01 * events.unit(),
                            sampleRate: sampleRate)
                countdown = samplesUntilNext(rate: 50, sampleRate: sampleRate, random: &events)
            }
            block[i] = bed + drops.next()
        }
    }
}
