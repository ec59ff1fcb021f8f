import Foundation
import UNITICore
import UNITIProtocol

/// One check-in (thesis FR2, FR6): answers the active momentary questionnaire through the core
/// engine and stores the result with its upload in one transaction. Nothing is stored unless
/// all eight items are answered.
///
/// The ambient noise level is the core's: the questionnaire declares the `microphoneLevel`
/// sensor, the engine measures it while the person answers when they allowed the microphone
/// (`tyt settings noise on`, `sensors allow microphone`) and writes it into the sheet; the
/// check-in copies it from there into its `noiseDBFS` column.
struct MomentaryCheckIn {
    let context: ModuleContext

    /// Answers and stores; returns the stored result. `recording` is a WAV file whose level is
    /// measured instead of the microphone's, for this answer only.
    func run(recording: String?) throws -> MomentaryResult {
        let noise = try NoiseSettings.load(context)
        let symptom = try WorstSymptom.chosen(context.services)
        let definition = try MomentaryQuestionnaire(database: context.database).personalized(for: symptom)
        var sensors = context.sensors
        if let recording { sensors = try sensors.replacingMicrophone(withRecording: recording) }

        // The result is stored in the transaction that drops the draft, so a crash at any
        // moment leaves the answers either in the draft or in the results.
        var stored: MomentaryResult?
        _ = try QuestionnaireEngine(services: context.services, sensors: sensors).answer(definition, owner: context.module.id) { answered, db in
            let sheet = answered.sheet
            guard let values = MomentaryQuestionnaire.values(of: sheet) else {
                throw UNITIError(L("tyt.fill.incomplete"))
            }
            let end = sheet.endedAt ?? OffsetTimestamp(context.clock.now, in: context.clock.timeZone)
            let result = MomentaryResult(id: sheet.id.uuidString, answeredAt: end.date, utcOffset: end.offsetSeconds,
                                         questionnaireID: definition.id, questionnaireVersion: definition.version,
                                         values: values, noiseDBFS: sheet.sensors?.microphone?.dbfs)
            try ResultStore.save(result, sheet: sheet, in: db)
            stored = result
        }
        guard let result = stored else { throw UNITIError(L("tyt.fill.incomplete")) }
        if let level = result.noiseDBFS {
            context.console.line(L("tyt.fill.noiseLevel", ["level": noise.describe(level)]))
        }
        return result
    }
}
