import Foundation
@testable import TinnitusNavigator
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// Scripted answers to the bundled `tn-clinical` study's questionnaires (each one page, ended
/// with `save`), and a server study for definitions the program does not bundle.
enum QuestionnaireAnswers {
    /// Age group 3, gender 1, noisy work 1, seen a specialist (3).
    static let profile = ["3", "1", "1", "3", "save"]
    /// Every one of the 16 questions answered.
    static let caseHistory = ["2019-03-01", "2", "1", "2", "2", "5", "2", "1,3", "1", "y", "1", "2", "y", "n", "n", "1", "save"]
    /// Raw 2+1+0+1+2+0+1+2+1+1+0+2 = 13, with `cope-well` (0) reversed to 2: total 15, "severe";
    /// emotional (first six) 2+1+0+1+2+2 = 8; sleep and hearing (last six) 1+2+1+1+0+2 = 7.
    static let distressSevere = ["2", "1", "0", "1", "2", "0", "1", "2", "1", "1", "0", "2", "save"]
    /// Every statement 1 (`cope-well` reversed stays 1): total 12, "moderate"; 6 and 6.
    static let distressModerate = Array(repeating: "1", count: 12) + ["save"]
    /// Tinnitus troubles most, burden 7.
    static let worstSymptom = ["1", "7", "save"]

    /// Both one-time questionnaires, which come before the repeating ones.
    static let oneTime = profile + caseHistory

    /// Joins a server study whose questionnaires tn presents (as a sync would store them).
    static func joinServerStudy(_ fixture: TNFixture, _ definitions: [QuestionnaireDefinition], study: String = "clinic") throws {
        try fixture.services.studies.recordJoined(StudyDescriptor(id: study, title: "Clinic", modules: ["tn"]), at: TNFixture.now)
        let entries = try definitions.map { definition in
            AssignedQuestionnaire(id: definition.id, version: definition.version, studyId: study, module: "tn", active: true,
                                  joinedAt: OffsetTimestamp(TNFixture.now, in: ModuleHarness.berlin).text,
                                  definition: try JSONDecoder().decode(JSONValue.self, from: try APIClient.encoder.encode(definition)))
        }
        try fixture.services.database.writer.write { db in
            _ = try StudyQuestionnaireStore.apply(AssignedQuestionnaireList(questionnaires: entries), etag: nil, in: db)
        }
    }

    /// A server definition with an item the definition leaves optional and a required item of a
    /// type no version of UNITI knows, as a newer study server might send it.
    static func withUnknownType() throws -> QuestionnaireDefinition {
        try QuestionnaireDefinition.load(from: Data("""
            {"id": "clinic-check", "version": 1, "title": "Clinic check", "kind": "oneTime",
             "items": [
               {"type": "scale", "label": "loudness", "text": "How loud is it today?", "min": 0, "max": 10},
               {"type": "drawing", "label": "sketch", "required": true, "text": "Draw where you hear it."}
             ]}
            """.utf8))
    }

    /// The JSON rows of a command's `--json`.
    static func rows(_ json: String) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
    }
}
