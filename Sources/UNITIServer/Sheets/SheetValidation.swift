import Foundation
import UNITIProtocol

/// Checks an uploaded sheet against the questionnaire version it answers, with the shared
/// `AnswerSheetValidator` (the client runs the same checks before it saves). Any problem is
/// reported as 422 naming the sheet and the items.
enum SheetValidation {
    /// A sheet for a questionnaire this user cannot answer yet: unknown on the server, or owned by a
    /// study the user has not joined. Not a fault of the sheet (it was answered offline, before the
    /// join), so it is 409 with its own code and the client keeps it waiting instead of rejecting it.
    static func unavailable(_ sheet: AnswerSheet) -> APIError {
        APIError(.conflict, AnswerSheetBatchResult.questionnaireUnavailableCode,
                 "Questionnaire '\(sheet.questionnaireID.prefix(64))' version \(sheet.questionnaireVersion) is not available to you; join the study it belongs to, then sync again.")
    }

    /// A member's sheet for a study whose current consent version they have not agreed to (a
    /// new version, or one from before consent was recorded). Not a fault of the sheet: 409 with
    /// its own code, and the client keeps it waiting until the person agrees
    /// (`POST /api/v1/studies/{id}/consent`); nothing is stored before.
    static func consentRequired(studyId: String, version: Int) -> APIError {
        APIError(.conflict, AnswerSheetBatchResult.consentRequiredCode,
                 "Study '\(studyId)' asks for your consent to its version \(version) before it takes your answers; read and agree to it (uniti: study consent \(studyId) --agree), then sync again.")
    }

    /// The error code (with 422) of a sheet started at or after its questionnaire was deactivated.
    static let deactivatedCode = APIErrorCode.questionnaireDeactivated.rawValue

    /// A sheet started once its questionnaire was deactivated: the study no longer takes answers to
    /// it, so the sheet is refused for good (422), unlike an early one. Sheets started before the
    /// deactivation are stored: answers are never lost for a delay in sync.
    static func deactivated(_ sheet: AnswerSheet, link: QuestionnaireLink) -> APIError {
        let since = link.deactivatedAt.map { " on \(Timestamps.format($0))" } ?? ""
        return APIError.invalid(deactivatedCode,
                                "Sheet \(sheet.id.uuidString.lowercased()): questionnaire '\(link.questionnaireId)' was deactivated\(since) by the study team; sheets started since then are not accepted.")
    }

    static func validate(_ sheet: AnswerSheet, against document: QuestionnaireDocument) throws -> ValidatedSheet {
        let id = sheet.id.uuidString.lowercased()
        if let ended = sheet.endedAt, ended.date < sheet.startedAt.date {
            throw APIError.invalid("invalid_time", "Sheet \(id): endedAt is before startedAt.")
        }
        if let late = sheet.answers.first(where: { $0.value.answeredAt.date < sheet.startedAt.date.addingTimeInterval(-1) }) {
            throw APIError.invalid("invalid_time", "Sheet \(id): item '\(late.key)' was answered before the sheet was started.")
        }
        guard sheet.clientVersion.count <= 100, (sheet.language?.count ?? 0) <= 16 else {
            throw APIError.invalid("invalid_sheet", "Sheet \(id): clientVersion is at most 100 and language at most 16 characters.")
        }
        let problems = AnswerSheetValidator.validate(sheet, against: document.definition)
        guard problems.isEmpty else {
            let code = problems.contains { $0.code == .unknownLabel } ? "unknown_item" : "invalid_answer"
            let details = problems.prefix(5).map { problem in
                problem.label.map { "item '\($0)' \(problem.message)" } ?? problem.description
            }.joined(separator: "; ")
            throw APIError.invalid(code, "Sheet \(id) (\(document.id) version \(document.version)): \(details).")
        }
        return ValidatedSheet(sheet: sheet, studyId: document.studyId)
    }
}

/// A sheet that passed validation against its questionnaire version, ready to store.
public struct ValidatedSheet: Sendable {
    public var sheet: AnswerSheet
    public var studyId: String
}
