import Foundation
import UNITICore
import UNITIProtocol

/// One check-in (thesis FR2, FR6): answers the active momentary questionnaire through the core
/// engine, measures the ambient noise when asked to, and stores the result with its upload in
/// one transaction. Nothing is stored unless all eight items are answered.
struct MomentaryCheckIn {
    let context: ModuleContext

    /// Answers and stores; returns the stored result. `recording` measures a WAV file instead of
    /// the microphone.
    func run(recording: String?) throws -> MomentaryResult {
        let console = context.console
        let noise = try NoiseSettings.load(context)
        let symptom = try WorstSymptom.chosen(context.services)
        let definition = try MomentaryQuestionnaire(database: context.database).personalized(for: symptom)

        var level: Double?
        var microphone: MicrophoneLevelRecording?
        var noLevelReason: String?
        if let recording {
            level = try NoiseLevel.ofRecording(path: recording)
        } else if noise.isEnabled {
            do {
                microphone = try MicrophoneLevelRecording.start()
            } catch let error as UNITIError {
                noLevelReason = error.message
            }
        }

        // The result is stored in the transaction that drops the draft, so a crash at any
        // moment leaves the answers either in the draft or in the results.
        var stored: MomentaryResult?
        do {
            _ = try context.questionnaires.answer(definition, owner: context.module.id) { answered, db in
                if let recorder = microphone {
                    microphone = nil
                    level = recorder.stop()
                }
                var sheet = answered.sheet
                guard let values = MomentaryQuestionnaire.values(of: sheet) else {
                    throw UNITIError(L("tyt.fill.incomplete"))
                }
                let end = sheet.endedAt ?? OffsetTimestamp(context.clock.now, in: context.clock.timeZone)
                if let level {
                    sheet.sensors = SensorReadings(microphone: MicrophoneReading(dbfs: level, measuredAt: end))
                }
                let result = MomentaryResult(id: sheet.id.uuidString, answeredAt: end.date, utcOffset: end.offsetSeconds,
                                             questionnaireID: definition.id, questionnaireVersion: definition.version,
                                             values: values, noiseDBFS: level)
                try ResultStore.save(result, sheet: sheet, in: db)
                stored = result
            }
        } catch {
            _ = microphone?.stop()
            throw error
        }
        guard let result = stored else { throw UNITIError(L("tyt.fill.incomplete")) }

        if let level {
            console.line(L("tyt.fill.noiseLevel", ["level": noise.describe(level)]))
        } else if let noLevelReason {
            console.line(L("tyt.fill.noLevel", ["reason": noLevelReason]))
        }
        return result
    }
}
