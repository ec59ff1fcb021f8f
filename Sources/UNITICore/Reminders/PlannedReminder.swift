import Foundation

/// One concrete reminder: this module, this rule, at this instant.
///
/// ``id`` is stable (module, rule, local date and the wall-clock time asked for), so the
/// delivery log, the calendar export (its UID) and repeated planning all agree on which
/// reminder is which.
public struct PlannedReminder: Sendable, Hashable, Codable, Identifiable {
    public let id: String
    public let moduleID: String
    public let moduleName: String
    public let ruleID: String
    public let questionnaireID: String?
    /// The instant the reminder is due.
    public let date: Date
    /// The local date and wall-clock time it was planned for (before any daylight-saving shift).
    public let localDate: LocalDate
    public let localTime: TimeOfDay
    /// What the person types, e.g. `tyt fill`.
    public let command: String
    public let tone: String?
    public let sound: Bool
    /// What the reminder is about when it is not a check-in (``ReminderRule/message``).
    public let message: String?

    public init(moduleID: String, moduleName: String, ruleID: String, questionnaireID: String?, date: Date,
                localDate: LocalDate, localTime: TimeOfDay, command: String, tone: String?, sound: Bool,
                message: String? = nil) {
        self.id = "\(moduleID)/\(ruleID)/\(localDate)T\(localTime)"
        self.moduleID = moduleID
        self.moduleName = moduleName
        self.ruleID = ruleID
        self.questionnaireID = questionnaireID
        self.date = date
        self.localDate = localDate
        self.localTime = localTime
        self.command = command
        self.tone = tone
        self.sound = sound
        self.message = message
    }
}
