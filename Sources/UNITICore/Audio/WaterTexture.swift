import Foundation

/// Synthesized running water. A stream is a murmuring mid-frequency bed with distinct bubbles
/// (sines whose pitch rises as a bubble forms); a waterfall is a dense, darker roar in which
/// the bubbles merge.
final class WaterTexture: ChannelSignal {
    enum Kind { case stream, waterfall }
    private let kind: Kind
    private var random: NoiseRandom
    private var events: NoiseRandom // bubbles, apart from the noise (block-size independence)
    private let sampleRate: Int
    private let bed = PinkFilter()
    private let colour: Biquad
    private var surge: WanderingValue
    private var bubbles = DecayingSines(capacity: 48)
    private var countdown: Int
    private var control = 0
    private var level: Float = 1
    private let bubbleRate: Double
    private let bedGain: Float
    let nominalRMS: Double

    init(_ kind: Kind, scene: NoiseRandom, random: NoiseRandom, sampleRate: Int) {
        self.kind = kind
        var own = random
        self.events = NoiseRandom(seed: own.next(), stream: 12)
        self.random = own
        self.sampleRate = sampleRate
        switch kind {
        case .stream:
            colour = Biquad(.bandPass, frequency: 900, q: 0.6, sampleRate: sampleRate)
            bubbleRate = 30
            bedGain = 0.12
            nominalRMS = 0.0844
        case .waterfall:
            colour = Biquad(.lowPass, frequency: 2500, q: 0.6, sampleRate: sampleRate)
            bubbleRate = 250
            bedGain = 0.25
            nominalRMS = 0.322
        }
        surge = WanderingValue(random: scene, period: 0.8,
                               stepsPerSecond: Double(sampleRate) / Double(TextureSignal.controlInterval))
        countdown = samplesUntilNext(rate: bubbleRate, sampleRate: sampleRate, random: &events)
    }

    func render(into block: UnsafeMutableBufferPointer<Float>) {
        random.fillUniform(block)
        bed.process(block)
        for i in block.indices {
            if control == 0 {
                level = Float(0.7 + 0.3 * surge.next())
                control = TextureSignal.controlInterval
            }
            control -= 1
            countdown -= 1
            if countdown <= 0 {
                let size = events.unit()
                switch kind {
                case .stream:
                    bubbles.start(frequency: 500 + 1400 * size, octavesPerSecond: 6 + 9 * events.unit(),
                                  amplitude: 0.04 + 0.1 * events.unit(), decaySeconds: 0.006 + 0.02 * events.unit(),
                                  sampleRate: sampleRate)
                case .waterfall:
                    bubbles.start(frequency: 300 + 1500 * size, octavesPerSecond: 10,
                                  amplitude: 0.01 + 0.03 * events.unit(), decaySeconds: 0.004 + 0.01 * events.unit(),
                                  sampleRate: sampleRate)
                }
                countdown = samplesUntilNext(rate: bubbleRate, sampleRate: sampleRate, random: &events)
            }
            block[i] = colour.tick(block[i]) * level * bedGain + bubbles.next()
        }
    }
}
