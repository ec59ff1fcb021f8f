import Foundation
import UNITICore
import TrackYourTinnitusShared
import UNITIProtocol

/// Which momentary questionnaire is active (thesis FR2, FR11): the server's version when it is
/// newer than the bundled one, else the bundled one. Results keep the version they answered.
public struct MomentaryQuestionnaire: Sendable {
    public static let id = "tyt-momentary"
    /// The placeholder in item 8 replaced by the chosen worst symptom.
    public static let symptomPlaceholder = WorstSymptomText.placeholder

    let database: AppDatabase

    public init(database: AppDatabase) {
        self.database = database
    }

    /// The active definition, unpersonalized.
    public func active() throws -> QuestionnaireDefinition {
        let bundled = try QuestionnaireLoader.bundled(Self.id)
        if let server = try ServerQuestionnaires(database: database).newest(id: Self.id), server.version > bundled.version {
            return server
        }
        return bundled
    }

    /// The active definition with `{worstSymptom}` replaced in every language by the symptom
    /// (a neutral phrase when there is none).
    public func personalized(for symptom: WorstSymptom?) throws -> QuestionnaireDefinition {
        let symptom = symptom ?? .none
        return WorstSymptomText.personalized(try active()) { symptom.phrase(in: $0) }
    }

    /// The eight stored values of a finished sheet in question order, or nil when one is
    /// missing (saving needs all eight). A yes/no answer is already 0 = yes, 1 = no.
    public static func values(of sheet: AnswerSheet) -> [Int]? {
        let values = MomentaryResult.itemLabels.compactMap { label in sheet.values[label]?.number.map { Int($0.rounded()) } }
        return values.count == MomentaryResult.itemLabels.count ? values : nil
    }
}
