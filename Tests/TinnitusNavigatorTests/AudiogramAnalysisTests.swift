import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore

/// Audiograms for the analysis tests: every standard frequency, left and right given.
enum AudiogramSamples {
    static func audiogram(left: [Int?], right: [Int?], date: LocalDate = TNFixture.today, now: Date = TNFixture.now,
                          extra: [EarValues] = []) throws -> Audiogram {
        let thresholds = zip(Audiogram.standardFrequencies, zip(left, right)).map { EarValues(hz: $0.0, left: $0.1.0, right: $0.1.1) }
        return try Audiogram(date: date, thresholds: thresholds + extra, now: now)
    }

    /// Seven values whose 500–4000 Hz average is exactly `average` (the same level at each).
    static func flat(_ level: Int?) -> [Int?] { Array(repeating: level, count: 7) }
}

@Suite("TinnitusNavigator: pure-tone average, WHO 2021 grade and comparison of audiograms", .timeLimit(.minutes(10)))
struct AudiogramAnalysisTests {
    @Test("the pure-tone average is the mean of 500, 1000, 2000 and 4000 Hz, per ear; other frequencies do not count")
    func pureToneAverage() throws {
        // 125, 250, 500, 1000, 2000, 4000, 8000
        let audiogram = try AudiogramSamples.audiogram(left: [90, 90, 10, 15, 20, 50, 90], right: [0, 0, 20, 20, 30, 35, 100])
        #expect(PureToneAverage.of(audiogram, ear: .left) == 23.75)
        #expect(PureToneAverage.of(audiogram, ear: .right) == 26.25)
    }

    @Test("an ear missing one of the four frequencies has no average, and no grade")
    func missingFrequency() throws {
        let audiogram = try AudiogramSamples.audiogram(left: [10, 10, 10, nil, 10, 10, 10], right: AudiogramSamples.flat(10))
        #expect(PureToneAverage.of(audiogram, ear: .left) == nil)
        #expect(HearingLossGrade.of(audiogram, ear: .left) == nil)
        #expect(PureToneAverage.of(audiogram, ear: .right) == 10)
        #expect(HearingLossGrade.overall(audiogram) == nil)
        // A missing 8000 Hz does not matter.
        let high = try AudiogramSamples.audiogram(left: [10, 10, 10, 10, 10, 10, nil], right: AudiogramSamples.flat(10))
        #expect(PureToneAverage.of(high, ear: .left) == 10)
    }

    @Test("WHO 2021 grades: each lower bound belongs to its grade, just below it to the grade before",
          arguments: [
            (-10.0, HearingLossGrade.normal), (19.99, .normal), (20, .mild), (34.99, .mild), (35, .moderate), (49.99, .moderate),
            (50, .moderatelySevere), (64.99, .moderatelySevere), (65, .severe), (79.99, .severe), (80, .profound),
            (94.99, .profound), (95, .complete), (120, .complete),
          ])
    func gradeBoundaries(average: Double, grade: HearingLossGrade) {
        #expect(HearingLossGrade(average: average) == grade)
    }

    @Test("the person's grade is the better ear's; each ear keeps its own")
    func betterEar() throws {
        let audiogram = try AudiogramSamples.audiogram(left: AudiogramSamples.flat(70), right: AudiogramSamples.flat(35))
        #expect(HearingLossGrade.of(audiogram, ear: .left) == .severe)
        #expect(HearingLossGrade.of(audiogram, ear: .right) == .moderate)
        #expect(HearingLossGrade.overall(audiogram) == .moderate)
        // Averages between the 5 dB steps: 18.75 is normal, 20 is mild.
        let nearly = try AudiogramSamples.audiogram(left: [0, 0, 15, 20, 20, 20, 0], right: [0, 0, 20, 20, 20, 20, 0])
        #expect(PureToneAverage.of(nearly, ear: .left) == 18.75)
        #expect(HearingLossGrade.overall(nearly) == .normal)
        #expect(HearingLossGrade.of(nearly, ear: .right) == .mild)
    }

    @Test("the comparison gives the change per frequency and ear, later minus earlier, whichever order they come in")
    func comparison() throws {
        let may = try AudiogramSamples.audiogram(left: [10, 10, 15, 20, 25, 30, 40], right: [5, 5, 10, 10, 20, 40, 50],
                                                 date: LocalDate(year: 2026, month: 5, day: 4))
        let november = try AudiogramSamples.audiogram(left: [10, 15, 15, 25, 25, 45, nil], right: [5, 0, 10, 10, 20, 30, 50],
                                                      extra: [EarValues(hz: 6000, left: 50, right: nil)])
        for comparison in [AudiogramComparison(may, november), AudiogramComparison(november, may)] {
            #expect(comparison.beforeID == may.id && comparison.afterID == november.id)
            #expect(comparison.rows.map(\.hz) == [125, 250, 500, 1000, 2000, 4000, 6000, 8000])
            let row4000 = try #require(comparison.rows.first { $0.hz == 4000 })
            #expect(row4000.left.change == 15 && row4000.right.change == -10)
            let row250 = try #require(comparison.rows.first { $0.hz == 250 })
            #expect(row250.left.change == 5 && row250.right.change == -5)
            // A frequency measured only once has no change.
            let row6000 = try #require(comparison.rows.first { $0.hz == 6000 })
            #expect(row6000.left == AudiogramComparison.Change(before: nil, after: 50) && row6000.left.change == nil)
            #expect(comparison.rows.first { $0.hz == 8000 }?.left.change == nil)
            // Left: (15+25+25+45)/4 − (15+20+25+30)/4 = 27.5 − 22.5; right: 17.5 − 20.
            #expect(comparison.ptaChangeLeft == 5)
            #expect(comparison.ptaChangeRight == -2.5)
        }
        #expect(AudiogramComparison.previous(of: november, among: [november, may]) == may)
        #expect(AudiogramComparison.previous(of: may, among: [november, may]) == nil)
    }

    @Test("levels read as people write them: +5, −10, 23.8, a dash for nothing")
    func text() {
        #expect(AudiogramText.change(5) == "+5")
        #expect(AudiogramText.change(-10) == "−10")
        #expect(AudiogramText.change(-2.5) == "−2.5")
        #expect(AudiogramText.change(0) == "0")
        #expect(AudiogramText.change(nil) == "–")
        #expect(AudiogramText.decibels(23.75) == "23.8")
        #expect(AudiogramText.decibels(30) == "30")
    }
}
