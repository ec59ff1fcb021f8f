import Foundation
import UNITICore

/// The person's Track Your Tinnitus reminders (thesis FR3, FR13; 5.1): "standard" ones, a
/// number per day at random times inside a window per weekday (default 08:00–22:00 on every
/// day), and "custom" ones at fixed weekday + time entries; both may be combined.
///
/// Kept as one value in the module's settings (`tyt.notify.plan`) so a count of zero still
/// remembers its windows; ``rule(tone:)`` turns it into the rule the core planner plans. Every
/// change is made on a copy and validated before it replaces the stored plan, so a refused
/// change loses nothing.
public struct ReminderPlan: Codable, Sendable, Equatable {
    /// Standard reminders per day; 0 means none.
    public var count: Int
    /// Monday first, seven entries.
    public var days: [DayWindow]
    public var fixed: [FixedReminderTime]
    /// Drawn once; the same seed gives the same times when the day is planned again.
    public var seed: UInt64

    public static let ruleID = "momentary"
    static let settingKey = "notify.plan"

    public init(count: Int = 0, days: [DayWindow] = DayWindow.week(), fixed: [FixedReminderTime] = [], seed: UInt64) {
        self.count = count
        self.days = days
        self.fixed = fixed
        self.seed = seed
    }

    /// The largest number of standard reminders that fits every enabled day's window, at least
    /// 15 minutes apart.
    public var largestCount: Int {
        days.filter(\.isEnabled).map { $0.window.capacity(minimumGap: RandomReminders.standardGap) }.min() ?? 0
    }

    /// Refuses a plan the planner could not fulfil; the message names the largest count that fits.
    public func validate() throws {
        guard count >= 0 else {
            throw UNITIError(L("tyt.notify.negative", ["count": "\(count)", "largest": "\(largestCount)"]))
        }
        if count > 0 { _ = try randomReminders() }
        _ = try DailyReminders(fixed: fixed)
    }

    func randomReminders() throws -> RandomReminders {
        try RandomReminders(count: count, days: days, seed: seed)
    }

    /// The rule for the core planner, nil when there are no reminders.
    ///
    /// Answered periods are not skipped: momentary assessment asks several times a day, and a
    /// check-in at 09:00 says nothing about how the tinnitus is at 15:00, so every planned
    /// prompt is delivered (the core's skip works per day, which would silence all but the
    /// first). A reminder counts as done once a check-in follows it (see ``DueCheckIn``).
    public func rule(tone: String?) throws -> ReminderRule? {
        guard count > 0 || !fixed.isEmpty else { return nil }
        let daily = try DailyReminders(random: count > 0 ? randomReminders() : nil, fixed: fixed)
        return try ReminderRule(id: Self.ruleID, questionnaireID: MomentaryQuestionnaire.id, command: "tyt fill",
                                tone: tone, cadence: .daily(daily), skipWhenAnswered: false)
    }

    // MARK: - The study's schedule (issue 47)

    /// The study's check-in questionnaire (``MomentaryQuestionnaire/id``) when its schedule sets
    /// prompt windows or a gap (``StudyQuestionnaire/schedulesDailyPrompts``): then the study
    /// decides when check-ins are prompted.
    public static func studySchedule(_ context: ModuleContext) throws -> StudyQuestionnaire? {
        try context.studyQuestionnaires.questionnaires().first { $0.id == MomentaryQuestionnaire.id && $0.schedulesDailyPrompts }
    }

    /// The rule under the study's schedule: its number a day, its windows per weekday, its gap and
    /// its first and last day, drawn as the console's preview draws them; where the study lets
    /// participants change their reminders, this plan's windows count within its shift and a
    /// count above 0 is a limit. Custom times do not add to it. Not skipped when answered (see
    /// ``rule(tone:)``).
    public func rule(under study: StudyQuestionnaire, tone: String?, timeZone: TimeZone) throws -> ReminderRule? {
        guard var rule = try study.dailyPromptRule(command: "tyt fill", chosenDays: days == DayWindow.week() ? nil : days,
                                                   limit: count > 0 ? count : nil, timeZone: timeZone) else { return nil }
        rule.tone = tone
        rule.skipWhenAnswered = false
        return rule
    }

    /// A change refused because the study decides (not wrapped into ``change(_:_:)``'s line).
    private struct StudyRefusal: Error {
        let error: UNITIError
    }

    /// Under a study's schedule: a changed count or windows only where the study allows changes,
    /// windows within its shift (unless set back to the module's default); custom times not at all.
    private static func check(_ changed: ReminderPlan, against study: StudyQuestionnaire, before: ReminderPlan, _ context: ModuleContext) throws {
        guard changed != before else { return }
        let title = QuestionnaireText(localizer: context.localizer).text(study.studyTitle)
        guard study.definition.scheduleChangeable else {
            throw StudyRefusal(error: UNITIError(L("tyt.notify.studyLocked", ["study": title])))
        }
        guard changed.fixed == before.fixed else {
            throw StudyRefusal(error: UNITIError(L("tyt.notify.studyNoCustom", ["study": title])))
        }
        do {
            if changed.days != before.days, changed.days != DayWindow.week() { try study.checkWindowShift(days: changed.days) }
        } catch let error as UNITIError {
            throw StudyRefusal(error: error)
        }
    }

    // MARK: - Storage

    public static func load(_ context: ModuleContext) throws -> ReminderPlan {
        guard let text = try context.moduleSetting(settingKey) else {
            return ReminderPlan(seed: context.random.nextUInt64())
        }
        do {
            return try JSONDecoder().decode(ReminderPlan.self, from: Data(text.utf8))
        } catch {
            throw UNITIError(L("tyt.notify.unreadable"))
        }
    }

    /// Validates, then stores; a refused plan leaves the stored one as it was.
    public func save(_ context: ModuleContext) throws {
        try validate()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try context.setModuleSetting(Self.settingKey, to: String(decoding: try encoder.encode(self), as: UTF8.self))
    }

    /// Applies a change to a copy of the stored plan, validates and stores it. Any refusal is
    /// one line naming the problem and the largest count that fits.
    @discardableResult
    public static func change(_ context: ModuleContext, _ body: (inout ReminderPlan) throws -> Void) throws -> ReminderPlan {
        let stored = try load(context)
        let study = try studySchedule(context)
        // Under a study's schedule the person's changes start from the days it plans in; days
        // left as they were stay unchosen, so a later schedule's windows still reach them.
        var before = stored
        if let study { before.days = study.promptDays(chosen: stored.days == DayWindow.week() ? nil : stored.days) }
        var plan = before
        do {
            try body(&plan)
            if let study {
                try check(plan, against: study, before: before, context)
                if plan.days == before.days { plan.days = stored.days }
            }
            try plan.save(context)
        } catch let refusal as StudyRefusal {
            throw refusal.error
        } catch let error as UNITIError {
            if plan.count > plan.largestCount {
                throw error  // the planner's own line already names the largest count that fits
            }
            throw UNITIError(L("tyt.notify.refused", ["problem": error.message, "largest": "\(plan.largestCount)"]))
        }
        return plan
    }
}
