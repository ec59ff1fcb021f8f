import Foundation

/// Synthesized surf: waves every 7–12 s. Each swells for about a third of its period and
/// washes out slowly; the noise opens up (brighter, louder) as the wave breaks. Wave timing
/// comes from the shared scene, so both ears hear the same wave.
final class SurfTexture: ChannelSignal {
    private var scene: NoiseRandom
    private var random: NoiseRandom
    private var rumbleRandom: NoiseRandom
    private let sampleRate: Int
    private let rumble: IntegratorFilter
    private let brightness: Biquad
    private var control = 0
    private var waveSample = 0
    private var waveLength = 1
    private var crest = 1.0
    private var level: Float = 0
    private var rumbleBlock = [Float]()
    let nominalRMS = 0.0476

    init(scene: NoiseRandom, random: NoiseRandom, sampleRate: Int) {
        self.scene = scene
        var own = random
        self.rumbleRandom = NoiseRandom(seed: own.next(), stream: 13)
        self.random = own
        self.sampleRate = sampleRate
        rumble = IntegratorFilter(sampleRate: sampleRate, corner: 40)
        brightness = Biquad(.lowPass, frequency: 400, q: 0.6, sampleRate: sampleRate)
        nextWave()
    }

    private func nextWave() {
        waveSample = 0
        waveLength = Int((7 + 5 * scene.unit()) * Double(sampleRate))
        crest = 0.6 + 0.4 * scene.unit()
    }

    /// Wave envelope 0…1: a raised-cosine swell over the first 35 %, then an exponential wash.
    private func envelope() -> Double {
        let x = Double(waveSample) / Double(waveLength)
        let value = x < 0.35 ? 0.5 - 0.5 * cos(Double.pi * x / 0.35) : exp(-(x - 0.35) * 4.5)
        return 0.12 + 0.88 * value * crest
    }

    func render(into block: UnsafeMutableBufferPointer<Float>) {
        if rumbleBlock.count != block.count { rumbleBlock = [Float](repeating: 0, count: block.count) }
        random.fillUniform(block)
        rumbleBlock.withUnsafeMutableBufferPointer { rumbleBuffer in
            rumbleRandom.fillUniform(rumbleBuffer)
            rumble.process(rumbleBuffer)
            for i in block.indices {
                if control == 0 {
                    let e = envelope()
                    brightness.tune(frequency: 250 + 3500 * pow(e, 1.5), q: 0.6)
                    level = Float(e)
                    control = TextureSignal.controlInterval
                }
                control -= 1
                waveSample += 1
                if waveSample >= waveLength { nextWave() }
                let mix = block[i] * 0.6 + rumbleBuffer[i] * 0.02
                block[i] = brightness.tick(mix) * level
            }
        }
    }
}
