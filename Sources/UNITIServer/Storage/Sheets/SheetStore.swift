import Foundation
import UNITIProtocol

/// Where answer sheets are kept, and what is read from all of them: the participant means behind
/// the comparison with all users and the study export. Part of every ``ServerStore``.
///
/// Each sheet is kept as it was sent (the JSON of ``AnswerSheet``, so fields such as `owner` come
/// back unchanged) beside its answers one per row for the aggregates.
public protocol SheetStore: Sendable {
    /// Stores the batch in one transaction; a client id the user already sent is reported as duplicate.
    func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome]
    /// The user's sheets, newest start first, and how many there are.
    func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int)
    /// The user's sheets stored after `cursor` (a sequence number the store gives each stored sheet
    /// and returns as the new cursor), oldest first. The sequence only grows and is given in commit
    /// order, so a sheet stored later never appears behind a cursor already handed out.
    func sheetChanges(userId: Int64, after cursor: Int64, limit: Int) async throws -> (sheets: [StoredAnswerSheet], cursor: Int64, more: Bool)
    /// Each participant's mean of the numeric answers to `label` in sheets started within the period.
    func participantMeans(questionnaireId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double]
    /// A study's answers, one row each, by participant pseudonym, then sheet start, then answer time.
    func exportRows(studyId: String) async throws -> [ExportRow]
}

/// A sheet that passed validation against its questionnaire version, ready to store.
public struct ValidatedSheet: Sendable {
    public var sheet: AnswerSheet
    public var studyId: String
}

/// One row of the study export: one answer.
public struct ExportRow: Sendable, Codable, Hashable {
    public var participant: String
    public var sheetId: String
    public var questionnaireId: String
    public var questionnaireVersion: Int
    public var label: String
    /// The answer as text: a number, option values joined by commas, or the free text.
    public var value: String
    /// Client times with the participant's UTC offset.
    public var answeredAt: String
    public var startedAt: String
    public var endedAt: String?
    /// Server time (UTC).
    public var receivedAt: String
}
