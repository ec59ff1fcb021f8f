import Foundation
import UNITIProtocol

/// The participant's adherence: prompts delivered, answered in time, late, missed, per day of the
/// last ``days`` days (local dates, by each prompt's due time) and overall (every prompt the device
/// recorded), counted by the shared definition (``PromptFlags``) that the coordinator's
/// `uniti-server adherence` uses too, so both give the same numbers from the same events.
public struct AdherenceReport: Encodable, Sendable, Equatable {
    public struct Day: Encodable, Sendable, Equatable {
        public let date: String
        public let counts: AdherenceCounts
    }

    public let timeZone: String
    /// Oldest first, ending today.
    public let days: [Day]
    /// Every recorded prompt that asks for a questionnaire.
    public let overall: AdherenceCounts
    /// The same, by questionnaire id.
    public let questionnaires: [String: AdherenceCounts]

    /// The report at `now`, after recording the windows that ended by then (``PromptLog/expire(at:)``).
    public static func make(_ log: PromptLog, at now: Date, in timeZone: TimeZone, days: Int = 14) throws -> AdherenceReport {
        try log.expire(at: now)
        let today = LocalDate(now, in: timeZone)
        let first = today.adding(days: 1 - days)
        var perDay = [Int: AdherenceCounts]()
        var overall = AdherenceCounts()
        var questionnaires = [String: AdherenceCounts]()
        for prompt in try log.prompts(dueFrom: .distantPast, to: .distantFuture) {
            overall.add(prompt.flags)
            questionnaires[prompt.questionnaireID, default: AdherenceCounts()].add(prompt.flags)
            let day = LocalDate(prompt.dueAt, in: timeZone).dayNumber
            if day >= first.dayNumber, day <= today.dayNumber { perDay[day, default: AdherenceCounts()].add(prompt.flags) }
        }
        return AdherenceReport(timeZone: timeZone.identifier,
                               days: (first.dayNumber...today.dayNumber).map { Day(date: "\(LocalDate(dayNumber: $0))", counts: perDay[$0] ?? AdherenceCounts()) },
                               overall: overall, questionnaires: questionnaires)
    }

    /// One cell of the heat-map (``AdherenceCounts/heatCell``, which the console's participant page draws too).
    public static func cell(_ counts: AdherenceCounts) -> String { counts.heatCell }
}
