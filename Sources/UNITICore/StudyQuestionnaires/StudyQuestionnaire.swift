import Foundation
import UNITIProtocol

/// One questionnaire of a study the person takes part in, as this device knows it: from the
/// server's list for the joined studies, or from a study bundled with the program while no
/// server study is joined (see ``StudyQuestionnaires``).
public struct StudyQuestionnaire: Sendable, Hashable {
    public var studyID: String
    public var studyTitle: LocalizedText
    /// The module that presents it.
    public var module: ModuleID
    /// False once the study deactivated it: listed, not fillable.
    public var isActive: Bool
    /// When the person joined the study; a schedule's `startOnDay` counts from its local date.
    public var joinedAt: Date
    public var definition: QuestionnaireDefinition
    /// True for a questionnaire of a study bundled with the program (no server knows it): its
    /// sheets stay on this device.
    public var isBundled: Bool

    public var id: String { definition.id }
    public var version: Int { definition.version }
    public var isRepeating: Bool { definition.kind == .repeating }

    public init(studyID: String, studyTitle: LocalizedText, module: ModuleID, isActive: Bool, joinedAt: Date,
                definition: QuestionnaireDefinition, isBundled: Bool = false) {
        self.studyID = studyID
        self.studyTitle = studyTitle
        self.module = module
        self.isActive = isActive
        self.joinedAt = joinedAt
        self.definition = definition
        self.isBundled = isBundled
    }

    /// The schedule's calendar for this person, nil without a schedule (answered any time).
    public func calendar(in timeZone: TimeZone) -> ScheduleCalendar? {
        definition.schedule.map { ScheduleCalendar($0, joinedOn: LocalDate(joinedAt, in: timeZone)) }
    }
}
