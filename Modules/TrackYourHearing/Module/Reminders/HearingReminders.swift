import Foundation
import UNITICore
import UNITIProtocol

/// The hearing reminders (thesis FR6, FR7; 5.2.5 and 6.5): on or off, with or without sound, at
/// most `perDay` a day (1–12, default 12) at random times inside each weekday's window (at
/// least four hours, default 08:00–22:00), each weekday on or off. Turning them off keeps the
/// windows; turning them on again restores them. The times of a day depend only on that day's
/// window and the plan's seed, so changing one day replans that day only.
///
/// When a study gives the person a daily hearing questionnaire whose schedule sets prompt windows
/// or a gap (``StudyQuestionnaire/schedulesDailyPrompts``), the study decides when prompts come
/// (issue 47): its number a day, its windows per weekday, its gap, its first and last day, drawn
/// as the console's preview draws them. Where the study lets participants change their
/// reminders, their own windows count within the study's shift and a lower count is a limit;
/// otherwise changing the windows or the count is refused in one line. Switching reminders off
/// and the sound stay the person's.
struct HearingReminders {
    let context: ModuleContext

    struct Plan: Codable, Equatable {
        /// Nil until the person switches: then on in `track-your-hearing` and whenever a study
        /// gives the person a hearing questionnaire, off in the shell for someone who only has
        /// the bundled one (the shell enables every module offline; twelve prompts a day for a
        /// module nobody chose would be noise).
        var enabled: Bool?
        var sound: Bool
        var perDay: Int
        var days: [DayWindow]
        var seed: UInt64
    }

    static let settingKey = "reminders.plan"
    static let perDayRange = 1...12
    static let shortestWindow = 4 * 60
    static let defaultWindow = try! TimeWindow(start: TimeOfDay(hour: 8, minute: 0), end: TimeOfDay(hour: 22, minute: 0))
    /// A sheet started within this long after a reminder answers that reminder.
    static let answerWindow: TimeInterval = 3600

    /// Whether reminders are on: the person's switch, else the default (see ``Plan/enabled``).
    func isEnabled(_ plan: Plan) throws -> Bool {
        if let enabled = plan.enabled { return enabled }
        if context.program == .standalone { return true }
        return try !context.studyQuestionnaires.questionnaires().isEmpty
    }

    /// The stored plan, or the default one (see ``Plan/enabled``; with sound, twelve a day, every day 08:00–22:00)
    /// with a seed of its own, kept from the first time it is needed.
    func plan() throws -> Plan {
        if let text = try context.moduleSetting(Self.settingKey),
           let stored = try? JSONDecoder().decode(Plan.self, from: Data(text.utf8)) {
            return stored
        }
        let plan = Plan(enabled: nil, sound: true, perDay: 12, days: DayWindow.week(Self.defaultWindow),
                        seed: context.random.nextUInt64())
        try? save(plan)  // a read-only data directory still reminds, with a seed for this run
        return plan
    }

    /// The daily questionnaire a study gives the person here, whose schedule decides when prompts come.
    func studySchedule() throws -> StudyQuestionnaire? {
        try context.studyQuestionnaires.questionnaires().first(where: \.schedulesDailyPrompts)
    }

    /// The person's own days, nil while they are the module's default (nobody chose them).
    static func chosenDays(_ plan: Plan) -> [DayWindow]? {
        plan.days == DayWindow.week(defaultWindow) ? nil : plan.days
    }

    /// Checks a changed plan and stores it; a refused change leaves the stored plan as it was.
    @discardableResult
    func change(_ body: (inout Plan) throws -> Void) throws -> Plan {
        let stored = try plan()
        let study = try studySchedule()
        // Under a study's schedule the person's changes start from the days it plans in; days
        // left as they were stay unchosen, so a later schedule's windows still reach them.
        var before = stored
        if let study { before.days = study.promptDays(chosen: Self.chosenDays(stored)) }
        var plan = before
        try body(&plan)
        if let study {
            if plan.days != before.days || plan.perDay != before.perDay {
                guard study.definition.scheduleChangeable else {
                    throw UNITIError(L("tyh.reminders.studyLocked", ["study": QuestionnaireText(localizer: context.localizer).text(study.studyTitle)]))
                }
                try study.checkWindowShift(days: plan.days)
            }
            if plan.days == before.days { plan.days = stored.days }
        }
        guard Self.perDayRange.contains(plan.perDay) else {
            throw UNITIError(L("tyh.reminders.perDayRange", ["value": "\(plan.perDay)"]))
        }
        for day in plan.days where day.window.length < Self.shortestWindow {
            throw UNITIError(L("tyh.reminders.windowTooShort", [
                "day": day.weekday.localizedName, "start": "\(day.window.start)", "end": "\(day.window.end)",
            ]))
        }
        _ = try random(plan)  // the count must fit every enabled day's window
        try save(plan)
        return plan
    }

    private func save(_ plan: Plan) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try context.setModuleSetting(Self.settingKey, to: String(decoding: try encoder.encode(plan), as: UTF8.self))
    }

    private func random(_ plan: Plan) throws -> RandomReminders {
        try RandomReminders(count: plan.perDay, days: plan.days, minimumGap: RandomReminders.standardGap, seed: plan.seed)
    }

    /// What the person types to answer.
    var command: String { context.program == .integrated ? "tyh fill" : "fill" }

    /// The rule, nil while reminders are off or every day is off.
    func rule() throws -> ReminderRule? {
        let plan = try plan()
        if let study = try studySchedule() {
            guard try isEnabled(plan), var rule = try study.dailyPromptRule(command: command, chosenDays: Self.chosenDays(plan), limit: plan.perDay,
                                                                            timeZone: context.clock.timeZone) else { return nil }
            rule.sound = plan.sound
            rule.skipWhenAnswered = false  // Track Your Hearing asks many times a day
            return rule
        }
        guard try isEnabled(plan), plan.days.contains(where: \.isEnabled) else { return nil }
        // The questionnaire `fill` answers now, so a sheet can answer the prompt and adherence
        // counts it (issue 30); not skipped when answered: Track Your Hearing asks many times a day.
        let answered = try context.studyQuestionnaires.statuses().first { $0.state.isFillable }?.questionnaire.definition.id
        return try ReminderRule(id: "hearing", questionnaireID: answered ?? HearingQuestionnaire.bundledID, command: command, sound: plan.sound,
                                cadence: .daily(DailyReminders(random: random(plan))), skipWhenAnswered: false)
    }

    func source() throws -> ReminderSource {
        ReminderSource(rules: try rule().map { [$0] } ?? [])
    }

    /// The planned reminders between two instants.
    func planned(from start: Date, to end: Date) throws -> [PlannedReminder] {
        try ReminderPlanner(timeZone: context.clock.timeZone).plan(
            ModuleReminderSource(module: context.module, source: source()), from: start, to: end)
    }

    /// The reminder a sheet started now answers: the latest one due within the last hour whose
    /// rule already held at its time (a sheet started just after joining answers no reminder).
    func promptingReminder() throws -> Date? {
        let now = context.clock.now
        let source = ModuleReminderSource(module: context.module, source: try source())
        return try ReminderService(database: context.database, clock: context.clock) { [source] }
            .planned(from: now.addingTimeInterval(-Self.answerWindow), to: now.addingTimeInterval(1)).last?.date
    }
}
