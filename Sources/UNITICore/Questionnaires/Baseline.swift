import Foundation
import GRDB
import UNITIProtocol

/// Questionnaires answered once, after the first login (Track Your Tinnitus thesis, FR8/FR9):
/// the shell's shared baseline in the integrated program (owner ``sharedOwner``, questionnaires
/// chosen by the studies), a module's own set in its standalone program.
///
/// Every answer is kept as a synced draft (``SyncedDrafts``), so a person who stops can continue
/// where they stopped, here or on another device. A finished questionnaire is stored and queued
/// for upload in the transaction that drops its draft.
public struct Baseline: Sendable {
    /// The owner of the shared baseline's sheets and drafts.
    public static let sharedOwner = ModuleID.shell

    public let owner: ModuleID
    public let questionnaireIDs: [String]

    public init(owner: ModuleID, questionnaireIDs: [String]) {
        self.owner = owner
        self.questionnaireIDs = questionnaireIDs
    }

    /// The shell's shared baseline, as the active studies define it.
    public static func shared(_ services: CoreServices) throws -> Baseline {
        Baseline(owner: sharedOwner, questionnaireIDs: try services.studies.baselineQuestionnaireIDs())
    }

    /// The questionnaires not finished yet.
    public func open(in services: CoreServices) throws -> [String] {
        let sheets = AnswerSheetStore(database: services.database, clock: services.clock)
        return try questionnaireIDs.filter { id in
            try !sheets.sheets(owner: owner, questionnaireID: id).contains { !$0.isPartial }
        }
    }

    /// The latest finished sheet of one of the questionnaires.
    public func latestSheet(questionnaireID: String, in services: CoreServices) throws -> AnswerSheet? {
        try AnswerSheetStore(database: services.database, clock: services.clock)
            .sheets(owner: owner, questionnaireID: questionnaireID).last { !$0.isPartial }
    }

    /// Asks the questionnaires still open (all with `again`), in order, and prints each one's
    /// scores. Throws `PromptCancelled` when the person stops; what they answered stays as a
    /// synced draft. Returns the finished results.
    @discardableResult
    public func answer(again: Bool, with engine: QuestionnaireEngine) throws -> [QuestionnaireResult] {
        let services = engine.services
        let pending = again ? questionnaireIDs : try open(in: services)
        let sheets = AnswerSheetStore(database: services.database, clock: services.clock)
        let localizer = engine.localizer ?? CurrentLanguage.localizer
        var results: [QuestionnaireResult] = []
        for id in pending {
            let definition = try ServerQuestionnaires(database: services.database).active(id: id)
            let result = try engine.answer(definition, owner: owner, syncsDraft: true) { result, db in
                try sheets.save(result.sheet, owner: owner, in: db)
                try SheetOutbox.enqueue(db, owner: owner, sheet: result.sheet, at: services.clock.now)
            }
            for line in Self.scoreLines(result.scores, of: definition, localizer: localizer) {
                services.console.line(line)
            }
            results.append(result)
        }
        return results
    }

    /// One line per score with a value: its title, the sum and the grade's title.
    public static func scoreLines(_ scores: [ScoreResult], of definition: QuestionnaireDefinition, localizer: Localizer) -> [String] {
        let language = localizer.language.rawValue
        return scores.compactMap { score in
            guard let value = score.value, let rule = definition.scoring?.scores.first(where: { $0.id == score.id }) else { return nil }
            let title = rule.title?.text(in: language) ?? rule.id
            let grade = score.grade.flatMap { grade in rule.bands.first { $0.grade == grade }?.title?.text(in: language) ?? grade }
            let number = value == value.rounded() ? String(Int(value)) : String(value)
            return localizer(grade == nil ? "questionnaire.score" : "questionnaire.score.graded",
                             ["title": title, "value": number, "grade": grade ?? ""])
        }
    }
}
