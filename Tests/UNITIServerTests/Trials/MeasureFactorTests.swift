import Foundation
import Testing
import TinnitusNavigatorShared
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Issue 48: a stratification factor computed by a module from the participant's own data, the
/// hearing-aid indication from TinnitusNavigator's audiogram (better-ear pure-tone average ≥ 25
/// dB HL), on both stores.
@Suite("Trials: factors from a module's measure", .timeLimit(.minutes(10)))
struct MeasureFactorTests {
    static let design = #"""
        {"arms": [{"id": "a", "label": "A", "ratio": 1}, {"id": "b", "label": "B", "ratio": 1}],
         "factors": [{"id": "hearing", "levels": ["no-aid", "aid"], "measure": {"name": "tn.better-ear-pta", "cuts": [25]}}],
         "method": "blocks"}
        """#

    /// Stores an audiogram of the person as the shell syncs one: `left` and `right` at 500, 1000,
    /// 2000 and 4000 Hz (nil: that ear not measured at 4000 Hz).
    static func audiogram(_ store: ServerStore, userId: Int64, date: String, left: [Int], right: [Int?], at stamp: Date) async throws {
        let rows = zip(PureToneAverage.frequencies, zip(left, right)).map { EarValues(hz: $0, left: $1.0, right: $1.1) }
            + [125, 250, 8000].map { EarValues(hz: $0, left: 10, right: 10) }
        let entry = Audiogram(id: UUID().uuidString.lowercased(), date: date, thresholds: rows, createdAt: stamp, updatedAt: stamp)
        let upsert = ModuleRecordUpsert(moduleId: "tn", clientId: HealthRecordCoding.clientID(kind: Audiogram.recordKind, id: entry.id),
                                        updatedAt: Timestamps.formatMilliseconds(stamp), deleted: nil, payload: try RecordPayloadCoding.payload(entry))
        _ = try await store.applyRecords(userId: userId, changes: [RecordChange(upsert: upsert, updatedAt: stamp)])
    }

    @Test("no audiogram, or one ear's average unknown: the factor is missing; the newest audiogram's better ear decides the band; a measure no module computes is refused at set-up", arguments: StoreKind.allCases)
    func hearingAidIndication(_ kind: StoreKind) async throws {
        try await kind.with { opened in
            let store = opened.store, now = TestTime.now
            let members = try await TrialStoreTests().study(store, members: 3, answering: false)
            let trials = TrialService(administration: StudyAdministration(store: store, actor: .operator, now: now))
            let unknown = Self.design.replacingOccurrences(of: "tn.better-ear-pta", with: "tn.nothing")
            await #expect(throws: TrialError.self) { _ = try await trials.setUp(studyId: "trial", design: Data(unknown.utf8)) }
            _ = try await trials.setUp(studyId: "trial", design: Data(Self.design.utf8))

            let (first, second, third) = (members[0], members[1], members[2])
            var ready = try await trials.readiness(studyId: "trial", pseudonym: first.1, entered: [:]).1
            #expect(ready.missing == [.measure(factor: "hearing", name: "tn.better-ear-pta")])
            // Right ear unknown at 4000 Hz: the better ear cannot be told.
            try await Self.audiogram(store, userId: first.0, date: "2027-01-10", left: [20, 25, 30, 35], right: [10, 10, 10, nil], at: now)
            ready = try await trials.readiness(studyId: "trial", pseudonym: first.1, entered: [:]).1
            #expect(ready.missing.count == 1)
            // A newer audiogram: left 30, right 26.25 → better ear 26.25 ≥ 25: aid.
            try await Self.audiogram(store, userId: first.0, date: "2027-02-01", left: [30, 30, 30, 30], right: [20, 25, 30, 30],
                                     at: now.addingTimeInterval(60))
            ready = try await trials.readiness(studyId: "trial", pseudonym: first.1, entered: [:]).1
            #expect(ready.missing.isEmpty && ready.levels == ["hearing": "aid"])
            // Better ear 20 < 25: no aid; entering the level by hand is refused.
            try await Self.audiogram(store, userId: second.0, date: "2027-01-10", left: [20, 20, 20, 20], right: [40, 40, 40, 40], at: now)
            await #expect(throws: TrialError.self) { _ = try await trials.readiness(studyId: "trial", pseudonym: second.1, entered: ["hearing": "aid"]) }
            let made = try await trials.randomise(studyId: "trial", pseudonym: second.1, entered: [:])
            #expect(made.stratum == "hearing=no-aid")
            await #expect(throws: TrialError.self, "no audiogram: not randomised") {
                _ = try await trials.randomise(studyId: "trial", pseudonym: third.1, entered: [:])
            }
        }
    }
}
