import Foundation
import Testing
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

@Suite("TinnitusNavigator: entries check themselves, typed here or pulled from another device", .timeLimit(.minutes(10)))
struct HealthRecordEntryTests {
    @Test("a pulled audiogram with a level that is no hearing level is parked, never stored")
    func pulledInvalidAudiogramParked() throws {
        let fixture = try TNFixture()
        var audiogram = try Audiogram(date: TNFixture.today, thresholds: Audiogram.standardFrequencies.map { EarValues(hz: $0, left: 10, right: 15) },
                                      now: TNFixture.now)
        audiogram.thresholds[0].left = 7
        let outcomes = try fixture.harness.pull(records: [ModuleHarness.record(audiogram, owner: .tn, at: TNFixture.now)])
        guard case .parked(let reason) = outcomes.first else { Issue.record("not parked: \(outcomes)"); return }
        #expect(reason.contains("7 dB HL"))
        #expect(try fixture.store.all(Audiogram.self).isEmpty)
    }

    @Test("a pulled audiogram dated in year 61120 is parked: a day has a four-digit year")
    func pulledAudiogramFromFarFuture() throws {
        let fixture = try TNFixture()
        var audiogram = try Audiogram(date: TNFixture.today, thresholds: Audiogram.standardFrequencies.map { EarValues(hz: $0, left: 10, right: 15) },
                                      now: TNFixture.now)
        audiogram.date = "61120-11-23"
        let outcomes = try fixture.harness.pull(records: [ModuleHarness.record(audiogram, owner: .tn, at: TNFixture.now)])
        guard case .parked(let reason) = outcomes.first else { Issue.record("not parked: \(outcomes)"); return }
        #expect(reason.contains("61120-11-23"))
        #expect(try fixture.store.all(Audiogram.self).isEmpty)
    }

    @Test("a pulled therapy ending before it starts is parked; a valid one is stored")
    func pulledTherapy() throws {
        let fixture = try TNFixture()
        let valid = try Therapy(name: "Hearing aid fitting", type: .hearingAid, start: TNFixture.today, end: nil, note: nil, now: TNFixture.now)
        var broken = try Therapy(name: "TRT", type: .trt, start: TNFixture.today, end: nil, note: nil, now: TNFixture.now)
        broken.end = "2026-01-01"
        let outcomes = try fixture.harness.pull(records: [
            ModuleHarness.record(valid, owner: .tn, at: TNFixture.now), ModuleHarness.record(broken, owner: .tn, at: TNFixture.now),
        ])
        #expect(outcomes.first == .applied)
        guard case .parked = outcomes.last else { Issue.record("not parked: \(outcomes)"); return }
        #expect(try fixture.store.all(Therapy.self).map(\.id) == [valid.id])
    }

    @Test("typed entries are refused in one line naming the problem")
    func typedProblems() throws {
        #expect(throws: UNITIError.self) { try HealthEvent(title: "  ", at: TNFixture.now, type: .other, description: nil, now: TNFixture.now) }
        #expect(throws: UNITIError(L("tn.therapy.error.endBeforeStart", ["start": "2026-11-23", "end": "2026-11-01"]))) {
            try Therapy(name: "x", type: .other, start: TNFixture.today, end: LocalDate(year: 2026, month: 11, day: 1), note: nil, now: TNFixture.now)
        }
        var thresholds = Audiogram.standardFrequencies.map { EarValues(hz: $0, left: 10, right: 10) }
        thresholds.removeLast()
        #expect(throws: UNITIError(L("tn.audiogram.error.missingFrequency", ["hz": "8000"]))) {
            try Audiogram(date: TNFixture.today, thresholds: thresholds, now: TNFixture.now)
        }
        #expect(try HealthEvent.Kind(parsing: "Tinnitusattacke") == .attack)
        #expect(try Therapy.Kind(parsing: "hearing aid") == .hearingAid)
    }
}
