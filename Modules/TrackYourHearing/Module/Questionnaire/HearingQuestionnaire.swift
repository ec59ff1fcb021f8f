import Foundation
import UNITICore
import UNITIProtocol

/// Which hearing questionnaire `fill` asks (thesis 5.2.1): the first one the person's studies
/// give to `tyh` that can be answered, loaded fresh from the server when it can be reached;
/// without any, the one bundled with the program (our own words), whose sheets stay on the
/// device.
enum HearingQuestionnaire {
    static let bundledID = "tyh-hearing"

    /// The status to answer (questionnaire `id` when given), after asking the server for the
    /// current list. Notices (a server that cannot be reached, a definition refused) are printed
    /// as one line each.
    static func current(_ context: ModuleContext, id: String? = nil) throws -> StudyQuestionnaireStatus {
        let service = context.studyQuestionnaires
        for notice in service.refresh() { context.console.error(notice) }
        if let id, id != bundledID {
            let status = try service.status(of: id)
            try service.requireFillable(status)
            return status
        }
        if id == bundledID { return try bundled(context) }
        let statuses = try service.statuses()
        if let status = statuses.first(where: { $0.state.isFillable }) { return status }
        if let status = statuses.first {
            // The study has hearing questionnaires, none of which can be answered now: say why.
            try service.requireFillable(status)
        }
        return try bundled(context)
    }

    /// The bundled questionnaire as a study questionnaire of no study: always answerable.
    static func bundled(_ context: ModuleContext) throws -> StudyQuestionnaireStatus {
        let definition = try QuestionnaireLoader.bundled(bundledID)
        let questionnaire = StudyQuestionnaire(studyID: "", studyTitle: definition.title, module: .tyh, isActive: true,
                                               joinedAt: context.clock.now, definition: definition, isBundled: true)
        return StudyQuestionnaireStatus(questionnaire: questionnaire, state: .due(remaining: 1), answers: 0,
                                        lastAnswered: nil, hasDraft: false)
    }
}
