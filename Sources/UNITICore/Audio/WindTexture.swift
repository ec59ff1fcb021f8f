import Foundation

/// Synthesized wind: noise through a resonant band whose pitch, sharpness and loudness follow
/// gusts (a wandering value shared by both ears), over a low rumble.
final class WindTexture: ChannelSignal {
    private var random: NoiseRandom
    private var gusts: WanderingValue
    private var flutter: WanderingValue
    private let howl: Biquad
    private let rumble: Biquad
    private var control = 0
    private var level: Float = 0
    let nominalRMS = 0.0393

    init(scene: NoiseRandom, random: NoiseRandom, sampleRate: Int) {
        var own = random
        let steps = Double(sampleRate) / Double(TextureSignal.controlInterval)
        gusts = WanderingValue(random: scene, period: 3, stepsPerSecond: steps)
        flutter = WanderingValue(random: NoiseRandom(seed: own.next(), stream: 99), period: 0.4, stepsPerSecond: steps)
        self.random = own
        howl = Biquad(.bandPass, frequency: 500, q: 2, sampleRate: sampleRate)
        rumble = Biquad(.lowPass, frequency: 150, q: 0.7, sampleRate: sampleRate)
    }

    func render(into block: UnsafeMutableBufferPointer<Float>) {
        random.fillUniform(block)
        for i in block.indices {
            if control == 0 {
                let gust = gusts.next()
                let detail = flutter.next()
                howl.tune(frequency: 250 + 700 * gust + 80 * detail, q: 1.5 + 3 * gust)
                level = Float(0.25 + 0.75 * gust * (0.85 + 0.15 * detail))
                control = TextureSignal.controlInterval
            }
            control -= 1
            let x = block[i]
            block[i] = howl.tick(x) * level + rumble.tick(x) * 0.3
        }
    }
}
