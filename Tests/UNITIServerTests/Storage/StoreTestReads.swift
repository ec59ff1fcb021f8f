import Foundation
import Synchronization
import UNITIProtocol
@testable import UNITIServer

/// What only tests need: every participant's mean, and a whole study's export at once (its
/// rows, its CSV text). The server itself asks for one participant's figures
/// (``ServerStore/comparisonFigures(questionnaireId:studyId:label:from:to:userId:)``) and streams
/// the export (``ServerStore/exportSheets(studyId:_:)``); these read through the same statements.
extension ServerStore {
    /// Each current member's (status `member` in `studyId`, the questionnaire's study) mean of the
    /// numeric answers to `label` in sheets started in `[from, to)` (either end open when nil).
    /// Someone who left, or answered a public study's questionnaire without joining, is not counted.
    func participantMeans(questionnaireId: String, studyId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        let item = ComparisonSums.Item(questionnaireId: questionnaireId, label: label, studyId: studyId)
        let (from, to) = (from?.timeIntervalSince1970, to?.timeIntervalSince1970)
        let side = try await comparisonSide(item, from: from, to: to)
        var means: [Int64: Double] = [:]
        for row in try await database.rows(ComparisonSums.means(item, from: from, to: to, side: side) + "SELECT user_id, mean FROM means") {
            let (userId, mean): (Int64, Double) = (try row["user_id"], try row["mean"])
            means[userId] = mean
        }
        return means
    }

    /// A study's answers, one row each (a sheet without answers one row with empty label, value and
    /// answer time), by participant pseudonym, then sheet start, then answer time.
    func exportRows(studyId: String) async throws -> [ExportRow] {
        let rows = Mutex<[ExportRow]>([])
        try await exportSheets(studyId: studyId) { exported in rows.withLock { $0 += exported.rows } }
        return rows.withLock { $0 }
    }
}

extension StudyExport {
    /// The whole CSV text of `rows`, line by line as the export command writes it.
    static func csv(_ rows: [ExportRow]) -> String {
        CSV.line(header) + rows.map { CSV.line(fields($0)) }.joined()
    }
}

extension StoredSheetJSON {
    /// The sheet decoded, as the server would answer it (the server passes the JSON on as it is).
    func decoded() throws -> StoredAnswerSheet {
        StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: json), studyId: studyId, receivedAt: receivedAt)
    }
}
