import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// What the report for the doctor holds, gathered from the health record for a period
/// (thesis FR9–FR11 and the questionnaires of FR7/FR8): the audiograms measured in it, the
/// therapies running during any part of it with their notes as outcome, the events in it, and
/// the clinical questionnaires completed in it with their scores. Pseudonymous: no name, no
/// e-mail, no account, only what the person entered about their health.
struct DoctorReport {
    /// One completed questionnaire and its scores (empty when its definition is not on this
    /// device, so the scores cannot be computed).
    struct Completion {
        struct Score {
            let title: String
            let value: Double?
            let grade: String?
        }

        let completedAt: Date
        let scores: [Score]
        let hasDefinition: Bool
    }

    /// Every completion of one questionnaire in the period, oldest first: its scores over time.
    struct QuestionnaireHistory {
        let id: String
        let title: String
        let completions: [Completion]
    }

    let from: LocalDate
    let to: LocalDate
    let generatedAt: Date
    let timeZone: TimeZone
    /// Oldest first, as the doctor reads a history.
    let audiograms: [Audiogram]
    let therapies: [Therapy]
    let events: [HealthEvent]
    let questionnaires: [QuestionnaireHistory]

    /// The report of `from…to` (both days included; without them, from the first entry of
    /// the record to today).
    static func gather(in context: ModuleContext, from: LocalDate?, to: LocalDate?) throws -> DoctorReport {
        let store = HealthRecordStore(context)
        let zone = context.clock.timeZone
        let today = LocalDate(context.clock.now, in: zone)
        let audiograms = try store.all(Audiogram.self, orderedBy: [Column("date"), Column("createdAt")])
        let therapies = try store.all(Therapy.self, orderedBy: [Column("start"), Column("createdAt")])
        let events = try store.all(HealthEvent.self, orderedBy: [Column("at")])
        let completed = try store.all(CompletedQuestionnaire.self, orderedBy: [Column("completedAt")])

        let end = to ?? today
        let firstEntry = (audiograms.map(\.localDate) + therapies.map(\.startDate) + events.map { LocalDate($0.at, in: zone) }
            + completed.map { LocalDate($0.completedAt, in: zone) }).min()
        let start = from ?? min(firstEntry ?? end, end)
        guard start <= end else {
            throw UNITIError(L("tn.report.error.period", ["from": start.description, "to": end.description]))
        }
        let period = start...end
        func inPeriod(_ date: Date) -> Bool { period.contains(LocalDate(date, in: zone)) }

        var histories: [String: [Completion]] = [:]
        var titles: [String: String] = [:]
        let language = CurrentLanguage.value.rawValue
        for entry in completed where inPeriod(entry.completedAt) {
            let definition = try? context.studyQuestionnaires.definition(answeredBy: entry.sheet)
            if let definition { titles[entry.questionnaireID] = titles[entry.questionnaireID] ?? definition.title.text(in: language) }
            let scores = definition.map { Self.scores(of: entry.sheet, by: $0, language: language) } ?? []
            histories[entry.questionnaireID, default: []].append(
                Completion(completedAt: entry.completedAt, scores: scores, hasDefinition: definition != nil))
        }
        let questionnaires = histories.keys.sorted().map { id in
            QuestionnaireHistory(id: id, title: titles[id] ?? id, completions: histories[id] ?? [])
        }

        return DoctorReport(
            from: start, to: end, generatedAt: context.clock.now, timeZone: zone,
            audiograms: audiograms.filter { period.contains($0.localDate) },
            therapies: therapies.filter { $0.startDate <= end && ($0.endDate.map { $0 >= start } ?? true) },
            events: events.filter { inPeriod($0.at) },
            questionnaires: questionnaires)
    }

    /// The scores of a sheet by its definition's rules (the core's scoring), with the rules'
    /// and grades' titles in `language`.
    static func scores(of sheet: AnswerSheet, by definition: QuestionnaireDefinition, language: String) -> [Completion.Score] {
        QuestionnaireScorer.scores(for: definition, answers: sheet.values).map { result in
            let rule = definition.scoring?.scores.first { $0.id == result.id }
            let band = rule?.bands.first { $0.grade == result.grade }
            let grade: String? = result.grade.map { band?.title?.text(in: language) ?? $0 }
            return Completion.Score(title: rule?.title?.text(in: language) ?? result.id, value: result.value, grade: grade)
        }
    }
}
