import Foundation
import TinnitusNavigatorShared
import UNITIProtocol
import UNITIServer

/// TinnitusNavigator's measure a randomised study may stratify by (issue 48): the better ear's
/// pure-tone average (``PureToneAverage``, dB HL) of the participant's newest audiogram, as the
/// UNITI trial stratified by hearing-aid indication (a better-ear average of 25 dB HL or more).
/// Unknown (nil) without an audiogram, or when the newest one lacks one of the four frequencies
/// in either ear: with one ear unknown, the better ear cannot be told (``HearingLossGrade``).
extension TinnitusNavigatorServerPart: StratificationMeasuring {
    package var stratificationMeasures: [StratificationMeasure] {
        [StratificationMeasure(name: "tn.better-ear-pta",
                               text: LocalizedText(["en": "the better ear's pure-tone average (dB HL, 500–4000 Hz) of the newest audiogram",
                                                    "de": "der Tonschwellen-Mittelwert des besseren Ohrs (dB HL, 500–4000 Hz) im neuesten Audiogramm",
                                                    "es": "el promedio tonal del mejor oído (dB HL, 500–4000 Hz) del audiograma más reciente",
                                                    "el": "ο μέσος όρος καθαρών τόνων του καλύτερου αυτιού (dB HL, 500–4000 Hz) στο πιο πρόσφατο ακοόγραμμα",
                                                    "nl": "het toongemiddelde van het beste oor (dB HL, 500–4000 Hz) in het nieuwste audiogram"])) { store, userId in
            try await Self.betterEarAverage(store: store, userId: userId)
        }]
    }

    /// The newest audiogram (by its day, then when it was last changed) and its better ear's average.
    static func betterEarAverage(store: ServerStore, userId: Int64) async throws -> Double? {
        let record = PortalHealthRecord(store: store, clock: SystemServerClock(), userId: userId)
        guard let newest = try await record.entries(Audiogram.self).max(by: { ($0.date, $0.updatedAt) < ($1.date, $1.updatedAt) }),
              let left = PureToneAverage.of(newest, ear: .left), let right = PureToneAverage.of(newest, ear: .right) else { return nil }
        return min(left, right)
    }
}
