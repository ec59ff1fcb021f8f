import Foundation
import UNITIProtocol

/// How answer sheets enter the server, whoever sends them: the API's `POST /api/v1/sheets` and
/// the web portal's finished questionnaires take this one path, so the same rules apply to both
/// (the questionnaire version must exist in a study the person may answer, a deactivated
/// questionnaire refuses sheets started since, ``SheetValidation`` with the shared
/// `AnswerSheetValidator`), a sheet id already stored is reported as a duplicate and kept once,
/// and the store does what storing a sheet does (the comparison's totals).
struct SheetIntake: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// Checks every sheet of the batch, then stores them in one transaction; throws the first
    /// sheet's problem as an ``APIError`` (nothing is stored then).
    func accept(_ sheets: [AnswerSheet], userId: Int64) async throws -> (stored: ServerStore.StoredBatch, receivedAt: Date) {
        var questionnaires: [String: QuestionnaireDocument] = [:]
        var access: [String: Bool] = [:]
        var consentMissing: [String: Int] = [:]
        var links: [String: QuestionnaireLink?] = [:]
        var seenIds: Set<UUID> = []
        var validated: [ValidatedSheet] = []
        for sheet in sheets {
            let id = sheet.id.uuidString.lowercased()
            guard seenIds.insert(sheet.id).inserted else {
                throw APIError.invalid("duplicate_sheet_id", "Sheet \(id) appears twice in this batch.")
            }
            let key = "\(sheet.questionnaireID)#\(sheet.questionnaireVersion)"
            if questionnaires[key] == nil {
                guard let document = try await store.questionnaire(id: sheet.questionnaireID, version: sheet.questionnaireVersion) else {
                    throw SheetValidation.unavailable(sheet)
                }
                questionnaires[key] = document
            }
            let document = questionnaires[key]!
            // Both read once per upload, in one statement, and never kept longer: the coordinator
            // changes memberships and deactivates questionnaires from another process.
            if access[document.studyId] == nil || links[document.id] == nil {
                let (membership, link, missing) = try await store.sheetAccess(questionnaireId: document.id, studyId: document.studyId,
                                                                              userId: userId)
                access[document.studyId] = StudyPresenter.mayAnswer(membership: membership)
                links[document.id] = .some(link)
                consentMissing[document.studyId] = missing
            }
            // Unknown and not-yet-joined look the same, so the answer tells nothing about other studies.
            guard access[document.studyId] == true else { throw SheetValidation.unavailable(sheet) }
            // A member who has not agreed to the current consent: the sheet waits on the device.
            if let version = consentMissing[document.studyId] {
                throw SheetValidation.consentRequired(studyId: document.studyId, version: version)
            }
            if let link = links[document.id] ?? nil, !link.accepts(sheetStartedAt: sheet.startedAt.date) {
                throw SheetValidation.deactivated(sheet, link: link)
            }
            validated.append(try SheetValidation.validate(sheet, against: document))
        }
        let receivedAt = environment.clock.now()
        return (try await store.storeSheets(userId: userId, sheets: validated, receivedAt: receivedAt), receivedAt)
    }
}
