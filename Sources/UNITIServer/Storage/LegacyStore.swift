import Foundation
import UNITIProtocol

/// The parts of the store not yet written once for both stores (the sheet intake with the
/// comparison's sums, the comparison itself): each store keeps its own,
/// reached through this protocol from ``ServerStore``.
protocol LegacyStore: Sendable {
    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome]
    /// Each current member's (status `member` in `studyId`, the questionnaire's study) mean of the
    /// numeric answers to `label` in sheets started within the period. Someone who left, or
    /// answered a public study's questionnaire without joining, is not counted.
    func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                          now: Date) async throws -> [Int64: Double]
    /// The comparison's figures of ``participantMeans`` for the participant `userId`.
    func comparisonFigures(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                           userId: Int64, now: Date) async throws -> ComparisonFigures
    /// Recomputes the comparison's running sums from the stored answers (`uniti-server
    /// maintenance rebuild-comparison`: after answers were loaded into the database directly).
    func rebuildComparisonSums() async throws
    /// Keeps the comparison's copy of memberships current, in the transaction that changed one.
    func membershipChanged(_ db: any SQLExecutor, studyId: String, userId: Int64, member: Bool) async throws

}

extension LegacyStore {
    func comparisonFigures(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                           userId: Int64, now: Date) async throws -> ComparisonFigures {
        ComparisonFigures(means: try await participantMeans(questionnaireId: questionnaireId, studyId: studyId, label: label,
                                                            from: from, to: to, now: now), userId: userId)
    }
}

extension ServerStore {
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        try await legacy.storeSheets(userId: userId, sheets: sheets, receivedAt: receivedAt)
    }

    func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                          now: Date) async throws -> [Int64: Double] {
        try await legacy.participantMeans(questionnaireId: questionnaireId, studyId: studyId, label: label, from: from, to: to, now: now)
    }

    func comparisonFigures(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?,
                           userId: Int64, now: Date) async throws -> ComparisonFigures {
        try await legacy.comparisonFigures(questionnaireId: questionnaireId, studyId: studyId, label: label, from: from, to: to,
                                           userId: userId, now: now)
    }

    func rebuildComparisonSums() async throws {
        try await legacy.rebuildComparisonSums()
    }
}
