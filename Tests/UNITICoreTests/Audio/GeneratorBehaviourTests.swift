import Foundation
import Testing
@testable import UNITICore

@Suite("Sound generator", .timeLimit(.minutes(10)))
struct GeneratorBehaviourTests {
    @Test("the same seed renders the same bytes; another seed does not")
    func determinism() throws {
        for recipe in [SoundRecipe.noise(.pink), .noise(.grey), .texture(.surf)] {
            let a = try AudioTest.render(recipe, frames: 4096, seed: 7)
            let b = try AudioTest.render(recipe, frames: 4096, seed: 7)
            let c = try AudioTest.render(recipe, frames: 4096, seed: 8)
            let repeatable = a == b, distinct = a != c
            #expect(repeatable, "same seed differs for \(recipe)")
            #expect(distinct, "seeds 7 and 8 agree for \(recipe)")
        }
    }

    @Test("left and right are decorrelated", arguments: [NoiseColor.white, .pink, .brown])
    func channelsDecorrelated(color: NoiseColor) throws {
        let samples = try AudioTest.render(.noise(color), frames: 1 << 15)
        // Compared sample to sample change: the slow swings of pink and brown noise would
        // make two independent excerpts look correlated by chance.
        let rho = AudioTest.correlation(AudioTest.differences(AudioTest.channel(samples, 0)),
                                        AudioTest.differences(AudioTest.channel(samples, 1)))
        #expect(abs(rho) < 0.05, "correlation \(rho)")
    }

    @Test("rendering in blocks of any size gives one continuous stream (no seam)")
    func blockSizeIndependence() throws {
        for recipe in [SoundRecipe.noise(.brown), .notched(base: .pink, centre: 3000), .texture(.rain)] {
            let whole = try SoundGenerator(recipe: recipe, seed: 3).render(frames: 12_000)
            let pieces = try SoundGenerator(recipe: recipe, seed: 3)
            var joined: [Int16] = []
            for size in [1, 777, 4096, 5000, 2126] { joined += pieces.render(frames: size) }
            let same = joined == whole
            #expect(same, "blocks differ for \(recipe)")
        }
    }

    @Test("natural textures stay near the level and never clip", arguments: NaturalTexture.allCases)
    func texturesLevel(texture: NaturalTexture) throws {
        let samples = try AudioTest.render(.texture(texture), frames: 44_100)
        let left = AudioTest.channel(samples, 0)
        let level = AudioTest.rmsDBFS(left)
        #expect(level > -32 && level < -14, "\(texture) at \(level) dBFS")
        #expect(samples.allSatisfy { $0 > -32_768 && $0 < 32_767 })
        let rho = AudioTest.correlation(left, AudioTest.channel(samples, 1))
        #expect(abs(rho) < 0.3, "\(texture) channels correlated \(rho)")
    }

    @Test("the soft limiter keeps peaks below full scale and leaves normal levels alone")
    func limiter() {
        #expect(SoundGenerator.limit(0.5) == 0.5)
        #expect(SoundGenerator.limit(-0.79) == -0.79)
        #expect(SoundGenerator.limit(5) < 1)
        #expect(SoundGenerator.limit(-50) > -1)
        #expect(SoundGenerator.limit(0.9) > SoundGenerator.limit(0.85))
    }
}
