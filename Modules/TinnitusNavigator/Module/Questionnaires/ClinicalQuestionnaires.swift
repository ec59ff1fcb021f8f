import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// The clinical questionnaires of the health record (TinnitusNavigator thesis, FR7, FR8, 4.1.3
/// and the outlook in ch. 8): the study questionnaires this module presents (a joined study's,
/// or the bundled `tn-clinical` study's while none is joined), answered through the core
/// engine, and kept as ``CompletedQuestionnaire`` records once completed.
///
/// The thesis' rules, and how they are kept here:
/// - a questionnaire is saved only when every question is answered, whatever its definition
///   marks (``RequiredAnswers/everyQuestion``; a question of a type this version does not know
///   is shown as not supported and skipped, NFR5);
/// - a completed questionnaire cannot be filled out again, and carries a check mark: a one-time
///   questionnaire is locked for good; a repeating one (the monthly distress and worst-symptom
///   measures, so their scores show a course) is locked for its period and answered again in
///   the next as a new entry. A completed sheet is never edited;
/// - the completed record is kept in the transaction that keeps the sheet, so neither exists
///   without the other; a record pulled from another device brings its sheet along
///   (``CompletedQuestionnaire/merge(_:in:)``), so the states agree on every device.
struct ClinicalQuestionnaires {
    let context: ModuleContext

    var service: StudyQuestionnaires { context.studyQuestionnaires }
    var store: HealthRecordStore { HealthRecordStore(context) }

    /// One questionnaire with its state today and its completed entries.
    struct Entry {
        var status: StudyQuestionnaireStatus
        /// Completed entries, newest first.
        var completions: [CompletedQuestionnaire]

        var id: String { status.id }
        var definition: QuestionnaireDefinition { status.questionnaire.definition }
        var isCompleted: Bool { !completions.isEmpty || status.state == .done }
        /// When it was last completed: the newest record, or the newest sheet from another
        /// source (a sheet a study server sent without a record).
        var lastCompleted: Date? { completions.first?.completedAt ?? status.lastAnswered }

        /// Whether filling it out now is refused because it is completed: one-time and done, or
        /// repeating and answered as often as the current period asks.
        var isLocked: Bool {
            switch status.state {
            case .done: return true
            case .answered: return isCompleted
            default: return false
            }
        }

        /// For a repeating questionnaire, the first day it can be answered (today when due);
        /// nil when that is not a date (one-time, waiting for the one-time ones, deactivated, ended).
        func nextFrom(today: LocalDate) -> LocalDate? {
            guard status.questionnaire.isRepeating else { return nil }
            switch status.state {
            case .due: return today
            case .answered(let next): return next
            case .notDueUntil(let day), .notStarted(let day): return day
            default: return nil
            }
        }
    }

    /// Every questionnaire of this module, in offering order.
    func entries() throws -> [Entry] {
        let completed = Dictionary(grouping: try completions(), by: \.questionnaireID)
        return try service.statuses().map { Entry(status: $0, completions: completed[$0.id] ?? []) }
    }

    /// One questionnaire; one line naming the ids there are when `id` is none of them.
    func entry(_ id: String) throws -> Entry {
        let status = try service.status(of: id)
        return Entry(status: status, completions: try completions(of: id))
    }

    /// Completed entries, newest first, of one questionnaire or of all.
    func completions(of questionnaireID: String? = nil) throws -> [CompletedQuestionnaire] {
        try store.database.writer.read { db in
            var request = CompletedQuestionnaire.order(Column("completedAt").desc, Column("id"))
            if let questionnaireID { request = request.filter(Column("questionnaireID") == questionnaireID) }
            return try request.fetchAll(db)
        }
    }

    /// Whether each completed entry's sheet has reached the study server, by entry id (thesis
    /// FR8): a completed questionnaire says whether it was sent, and why not yet.
    func uploads() throws -> [String: SheetUpload] {
        Dictionary(try service.sheets().map { ($0.sheet.id.uuidString.lowercased(), $0.upload) }, uniquingKeysWith: { first, _ in first })
    }

    /// Throws the one line that refuses a completed questionnaire.
    func requireUnlocked(_ entry: Entry) throws {
        guard entry.isLocked else { return }
        let timeZone = context.clock.timeZone
        let title = QuestionnaireText(localizer: context.localizer).text(entry.definition.title)
        let date = entry.lastCompleted.map { "\(LocalDate($0, in: timeZone))" } ?? "—"
        if case .answered(let next?) = entry.status.state {
            throw UNITIError(L("tn.fill.lockedUntil", ["title": title, "date": date, "next": "\(next)"]))
        }
        throw UNITIError(L("tn.fill.locked", ["title": title, "date": date]))
    }

    /// Answers a questionnaire (every question required) and keeps the sheet and its completed
    /// record in one transaction. Nil when `id` is nil and nothing is due.
    func fill(_ id: String?, with engine: QuestionnaireEngine) throws -> (entry: Entry, result: QuestionnaireResult)? {
        let entry: Entry
        if let id {
            entry = try self.entry(id)
        } else {
            guard let next = try service.next() else { return nil }
            entry = Entry(status: next, completions: try completions(of: next.id))
        }
        try requireUnlocked(entry)
        let records = context.records
        let result = try service.fill(entry.status, with: engine, requiring: .everyQuestion) { result, db in
            try records.save(CompletedQuestionnaire(sheet: result.sheet), in: db)
        }
        return (entry, result)
    }

    /// The definition a completed sheet answered (its own version where known).
    func definition(of completed: CompletedQuestionnaire) throws -> QuestionnaireDefinition? {
        try service.definition(answeredBy: completed.sheet)
    }
}
