import Foundation
import GRDB
import UNITIProtocol

/// One answered momentary questionnaire: when, which version, the eight values in question order
/// and the ambient noise level (thesis 4.2). Item 1 is stored as the thesis did: yes = 0, no = 1.
///
/// A row of `tyt_results`, mapped by column name: the eight values are columns (not JSON) so
/// that ten years of check-ins load for the charts in one indexed scan.
public struct MomentaryResult: Sendable, Hashable {
    public var id: String
    public var answeredAt: Date
    /// Seconds east of UTC at the time of answering, so the local time can be shown as it was.
    public var utcOffset: Int
    public var questionnaireID: String
    public var questionnaireVersion: Int
    /// perceived, loudness, distress, mood, arousal, stress, concentration, worst symptom.
    public var values: [Int]
    /// RMS level in dBFS, nil when none was measured.
    public var noiseDBFS: Double?

    public init(id: String, answeredAt: Date, utcOffset: Int, questionnaireID: String,
                questionnaireVersion: Int, values: [Int], noiseDBFS: Double?) {
        self.id = id
        self.answeredAt = answeredAt
        self.utcOffset = utcOffset
        self.questionnaireID = questionnaireID
        self.questionnaireVersion = questionnaireVersion
        self.values = values
        self.noiseDBFS = noiseDBFS
    }

    /// The result a finished sheet of the momentary questionnaire records; nil when one of the
    /// eight values is missing.
    public init?(sheet: AnswerSheet) {
        guard let values = MomentaryQuestionnaire.values(of: sheet) else { return nil }
        let end = sheet.endedAt ?? sheet.startedAt
        self.init(id: sheet.id.uuidString, answeredAt: end.date, utcOffset: end.offsetSeconds,
                  questionnaireID: sheet.questionnaireID, questionnaireVersion: sheet.questionnaireVersion,
                  values: values, noiseDBFS: sheet.sensors?.microphone?.dbfs)
    }

    /// The labels of the eight items in the bundled questionnaire, in question order; a newer
    /// version from the server must keep them to be stored here. They are also the columns.
    public static let itemLabels = ["perceived", "loudness", "distress", "mood", "arousal", "stress", "concentration", "worst-symptom"]

    /// The column of each item (SQL names cannot hold `-`).
    static let itemColumns = ["perceived", "loudness", "distress", "mood", "arousal", "stress", "concentration", "worstSymptom"]
}

extension MomentaryResult: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "tyt_results"

    public enum Columns {
        public static let id = Column("id")
        public static let answeredAt = Column("answeredAt")
    }

    public init(row: Row) {
        id = row["id"]
        // Stored as seconds since 1970 (REAL), which the range queries compare directly.
        answeredAt = Date(timeIntervalSince1970: row["answeredAt"])
        utcOffset = row["utcOffset"]
        questionnaireID = row["questionnaireID"]
        questionnaireVersion = row["questionnaireVersion"]
        values = Self.itemColumns.map { row[$0] }
        noiseDBFS = row["noiseDBFS"]
    }

    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["answeredAt"] = answeredAt.timeIntervalSince1970
        container["utcOffset"] = utcOffset
        container["questionnaireID"] = questionnaireID
        container["questionnaireVersion"] = questionnaireVersion
        for (column, value) in zip(Self.itemColumns, values) { container[column] = value }
        container["noiseDBFS"] = noiseDBFS
    }
}
