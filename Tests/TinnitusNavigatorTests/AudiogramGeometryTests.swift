import Foundation
import Testing
@testable import TinnitusNavigator

@Suite("TinnitusNavigator: the audiogram picture's geometry follows the clinical convention", .timeLimit(.minutes(10)))
struct AudiogramGeometryTests {
    let geometry = AudiogramGeometry(frequencies: [125, 250, 1000, 8000], width: 640)

    @Test("125 Hz lies at the left edge of the plot and 8000 Hz at the right")
    func edges() {
        #expect(abs(geometry.x(hz: 125) - geometry.plotLeft) < 1e-9)
        #expect(abs(geometry.x(hz: 8000) - geometry.plotRight) < 1e-9)
        #expect(geometry.lowestHz == 125 && geometry.highestHz == 8000)
        #expect(geometry.octaveFrequencies == [125, 250, 500, 1000, 2000, 4000, 8000])
    }

    @Test("every octave is equally wide, and 3000 Hz lies between 2000 and 4000, nearer 4000 on the log scale")
    func octaves() {
        let xs = geometry.octaveFrequencies.map { geometry.x(hz: $0) }
        let widths = zip(xs, xs.dropFirst()).map { $1 - $0 }
        #expect(widths.allSatisfy { abs($0 - geometry.octaveWidth) < 1e-9 })
        let x3000 = geometry.x(hz: 3000)
        #expect(x3000 > geometry.x(hz: 2000) && x3000 < geometry.x(hz: 4000))
        #expect(abs(x3000 - (geometry.x(hz: 2000) + log2(1.5) * geometry.octaveWidth)) < 1e-9)
        #expect(x3000 - geometry.x(hz: 2000) > geometry.octaveWidth / 2)
    }

    @Test("hearing level grows downwards: −10 dB at the top, 0 above 50, 120 at the bottom")
    func levelsDownwards() {
        #expect(abs(geometry.y(db: -10) - geometry.plotTop) < 1e-9)
        #expect(abs(geometry.y(db: 120) - geometry.plotBottom) < 1e-9)
        #expect(geometry.y(db: 0) < geometry.y(db: 50))
        #expect(geometry.levelTicks.first == -10 && geometry.levelTicks.last == 120 && geometry.levelTicks.count == 14)
    }

    @Test("one octave is as wide as 20 dB are high, and the picture holds the plot with room for labels and legend")
    func aspect() {
        #expect(abs((geometry.y(db: 20) - geometry.y(db: 0)) - geometry.octaveWidth) < 1e-9)
        #expect(geometry.plotBottom < geometry.height - 80)
        #expect(geometry.plotLeft > 40 && geometry.plotRight < geometry.width)
        let point = geometry.point(hz: 1000, db: 40)
        #expect(point.x == geometry.x(hz: 1000) && point.y == geometry.y(db: 40))
    }

    @Test("frequencies outside 125–8000 Hz widen the axis by whole octaves")
    func widened() {
        let wide = AudiogramGeometry(frequencies: [100, 1000, 12_000], width: 640)
        #expect(wide.lowestHz == 62.5 && wide.highestHz == 16_000)
        #expect(wide.octaveFrequencies.count == 9)
        #expect(abs(wide.x(hz: 12_000) - wide.plotRight) > 1)
        #expect(wide.x(hz: 12_000) < wide.plotRight)
        // Within the standard range nothing widens.
        #expect(AudiogramGeometry(frequencies: [750, 6000]).lowestHz == 125)
        #expect(AudiogramGeometry(frequencies: []).highestHz == 8000)
    }
}
