import Foundation
import GRDB
@testable import TrackYourStress
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// The module in the shared harness: Berlin, Monday 2026-11-23 10:00, scripted input.
struct StressFixture {
    let harness: ModuleHarness
    var services: CoreServices { harness.services }
    var context: ModuleContext { harness.context() }
    var output: CapturedOutput { harness.output }

    static let now = LocalDate(year: 2026, month: 11, day: 23).instant(at: TimeOfDay(hour: 10, minute: 0), in: ModuleHarness.berlin)

    /// Answers to the demo study's one-time questionnaire (age group, gender, occupation
    /// skipped, general stress, pressure, support) and to its daily one; both are one page,
    /// ended with `save`.
    static let aboutYou = ["1", "3", "-", "50", "3", "2", "save"]
    static let daily = ["60", "40", "30", "70", "1,2", "6", "4", "80", "60", "save"]

    init(input: [String] = [], program: ProgramKind = .integrated, now: Date = StressFixture.now) throws {
        harness = try ModuleHarness(TrackYourStressModule(), program: program, input: input, now: now)
    }

    /// Runs a command line and returns what it printed (standard output and errors).
    @discardableResult
    func run(_ line: String) -> (succeeded: Bool, out: String, err: String) { harness.runCapturing(line) }

    /// Joins a server study with these questionnaires (as a sync would store them).
    func joinServerStudy(_ definitions: [(QuestionnaireDefinition, active: Bool)], study: String = "stress-study") throws {
        try services.studies.recordJoined(StudyDescriptor(id: study, title: "Stress study", modules: ["tys"]), at: Self.now)
        let entries = try definitions.map { definition, active in
            AssignedQuestionnaire(id: definition.id, version: definition.version, studyId: study, module: "tys", active: active,
                                  joinedAt: OffsetTimestamp(Self.now, in: ModuleHarness.berlin).text,
                                  definition: try JSONDecoder().decode(JSONValue.self, from: try APIClient.encoder.encode(definition)))
        }
        try services.database.writer.write { db in
            _ = try StudyQuestionnaireStore.apply(AssignedQuestionnaireList(questionnaires: entries), etag: nil, in: db)
        }
    }
}
