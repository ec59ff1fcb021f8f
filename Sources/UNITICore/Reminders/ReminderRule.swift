import Foundation

/// One thing a module wants to be reminded of, and when: the unit a module declares and the
/// core plans (see ``UNITIModule/reminderSource(_:)``).
///
/// A rule is a value the module keeps in its own settings (``ReminderRuleStore``). Changes go
/// through ``edit(_:)``, which refuses them while a study locks the schedule and validates the
/// result before anything is replaced, so a refused change leaves the old rule in force.
public struct ReminderRule: Sendable, Hashable, Codable, Identifiable {
    /// Stable within its module, e.g. `daily` or `q42`.
    public let id: String
    /// The questionnaire this reminder asks for, if any; used to skip answered periods.
    public var questionnaireID: String?
    /// What the person types, e.g. `tyt fill`.
    public var command: String
    /// The module's tone for this reminder, e.g. `low-pulse`: rendered by the module
    /// (`UNITIModule.reminderTone(named:)`) and played when the reminder falls due.
    public var tone: String?
    /// Whether the reminder makes a sound (Track Your Hearing lets people turn this off).
    public var sound: Bool
    public private(set) var cadence: ReminderCadence
    /// Whether a reminder is skipped when the questionnaire was already answered in the
    /// cadence's period (day, week, month). Momentary-assessment rules that want every prompt
    /// set this to false.
    public var skipWhenAnswered: Bool
    /// Set by a study that fixes this schedule: the reason shown when a change is refused.
    public var lockReason: String?
    /// The days a study's schedule runs (start, end, skipped periods): reminders fall only on
    /// these. Nil reminds on every day. Not stored: whoever builds the rule from a schedule
    /// sets it each time, so a changed schedule takes effect at once.
    public var activeDays: ScheduleCalendar?
    /// What the reminder is about, in the person's language, when it is not a check-in (a
    /// therapy that ends soon). Not stored: the module words it each time it builds the rule.
    public var message: String?

    public init(id: String, questionnaireID: String? = nil, command: String, tone: String? = nil,
                sound: Bool = true, cadence: ReminderCadence, skipWhenAnswered: Bool = true,
                lockReason: String? = nil, activeDays: ScheduleCalendar? = nil, message: String? = nil) throws {
        try cadence.validate()
        self.id = id
        self.questionnaireID = questionnaireID
        self.command = command
        self.tone = tone
        self.sound = sound
        self.cadence = cadence
        self.skipWhenAnswered = skipWhenAnswered
        self.lockReason = lockReason
        self.activeDays = activeDays
        self.message = message
    }

    public var isLocked: Bool { lockReason != nil }

    /// Changes the schedule: refused with the study's reason while locked; the new cadence is
    /// validated on a copy and only then replaces the old one.
    public mutating func edit(_ body: (inout ReminderCadence) throws -> Void) throws {
        if let lockReason {
            throw UNITIError(L("reminders.error.locked", ["rule": id, "reason": lockReason]))
        }
        var copy = cadence
        try body(&copy)
        try copy.validate()
        cadence = copy
    }

    /// Moves the single reminder of a weekly or monthly rule to another time (the only change
    /// those rules allow). Refused for daily rules, which have their own editors.
    public mutating func setSingleTime(_ time: TimeOfDay) throws {
        let id = self.id
        try edit { cadence in
            switch cadence {
            case .weekly(var weekly):
                weekly.time = time
                cadence = .weekly(weekly)
            case .monthly(var monthly):
                monthly.time = time
                cadence = .monthly(monthly)
            case .daily:
                throw UNITIError(L("reminders.error.notSingle", ["rule": id]))
            }
        }
    }

    /// Edits the daily part of a daily rule (random windows, counts, fixed entries).
    public mutating func editDaily(_ body: (inout DailyReminders) throws -> Void) throws {
        let id = self.id
        try edit { cadence in
            guard case .daily(var daily) = cadence else {
                throw UNITIError(L("reminders.error.single", ["rule": id]))
            }
            try body(&daily)
            cadence = .daily(daily)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, questionnaireID, command, tone, sound, cadence, skipWhenAnswered, lockReason
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(id: c.decode(String.self, forKey: .id),
                      questionnaireID: c.decodeIfPresent(String.self, forKey: .questionnaireID),
                      command: c.decode(String.self, forKey: .command),
                      tone: c.decodeIfPresent(String.self, forKey: .tone),
                      sound: c.decodeIfPresent(Bool.self, forKey: .sound) ?? true,
                      cadence: c.decode(ReminderCadence.self, forKey: .cadence),
                      skipWhenAnswered: c.decodeIfPresent(Bool.self, forKey: .skipWhenAnswered) ?? true,
                      lockReason: c.decodeIfPresent(String.self, forKey: .lockReason))
    }
}
