import Foundation
import UNITIProtocol

/// The parts of the store not yet written once for both stores (the sheet intake with the
/// comparison's sums, the comparison itself, the throttles' counts): each store keeps its own,
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

    /// In one step: when `login` must still wait by `rule`, the seconds to wait (nothing is
    /// counted); else counts this attempt as a failure and returns nil. ``clearLoginFailures(login:)``
    /// takes it back when the password was right. Checking and counting at once is what keeps
    /// simultaneous guesses from all passing one check before any of them is counted.
    func startLoginAttempt(login: String, rule: ThrottleRule, now: Date) async throws -> Int?
    /// Forgets the count of `login` (a successful login).
    func clearLoginFailures(login: String) async throws
    /// Starts one study-password attempt of a person under `rule`: when the person must still
    /// wait, returns the seconds and counts nothing; else counts the attempt as a failure (until
    /// ``clearStudyPasswordFailures(userId:studyId:)`` says it was right) and returns nil. Check
    /// and count are one transaction, so guesses sent at once cannot all slip past the check;
    /// the count is in the store, so every server process and a restart see it.
    func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, now: Date) async throws -> Int?
    func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws
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

    func startLoginAttempt(login: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        try await legacy.startLoginAttempt(login: login, rule: rule, now: now)
    }

    func clearLoginFailures(login: String) async throws {
        try await legacy.clearLoginFailures(login: login)
    }

    func startStudyPasswordAttempt(userId: Int64, studyId: String, rule: ThrottleRule, now: Date) async throws -> Int? {
        try await legacy.startStudyPasswordAttempt(userId: userId, studyId: studyId, rule: rule, now: now)
    }

    func clearStudyPasswordFailures(userId: Int64, studyId: String) async throws {
        try await legacy.clearStudyPasswordFailures(userId: userId, studyId: studyId)
    }
}
