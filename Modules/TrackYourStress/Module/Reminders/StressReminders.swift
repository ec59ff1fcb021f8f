import Foundation
import UNITICore
import UNITIProtocol

/// The reminders of Track Your Stress (thesis FR16, FR17, 5.3.7–5.3.9): one per repeating
/// questionnaire that runs, following its schedule (daily, weekly or monthly, `amount` per
/// period, from its first to its last day) and, where the study allows changes
/// (`scheduleChangeable`), the person's choice: standard (random times within each weekday's
/// window) or custom (fixed times; a weekly or monthly questionnaire has exactly one).
///
/// The rules are built from the schedule every time, so a study's new schedule (its windows per
/// weekday, the gap between prompts, its first and last day) applies at the next sync; only the
/// person's choice is stored (module setting `reminders.<questionnaire id>`), and a choice the
/// new schedule no longer allows (a window moved further than `windowShiftMinutes`) gives way to
/// the study's standard reminders.
struct StressReminders {
    let context: ModuleContext

    /// What the person chose for one questionnaire.
    struct Choice: Codable, Equatable {
        enum Mode: String, Codable {
            /// Random times inside each enabled weekday's window.
            case standard
            /// Fixed times.
            case custom
        }

        var mode: Mode
        /// Reminders per day of a daily questionnaire in standard mode (nil: the schedule's amount).
        var count: Int?
        /// Custom times: several for a daily questionnaire, exactly one for weekly and monthly.
        var times: [TimeOfDay]
        /// The weekday planner of a daily questionnaire, Monday first.
        var days: [DayWindow]

        /// Random times in the study's windows.
        static func standard(_ questionnaire: StudyQuestionnaire) -> Choice {
            Choice(mode: .standard, count: nil, times: [], days: questionnaire.studyDays)
        }
    }

    static func settingKey(_ id: String) -> String { "reminders.\(id)" }
    /// The time of a weekly or monthly reminder nobody changed.
    static let defaultTime = TimeOfDay(hour: 18, minute: 0)

    /// The person's choice, or the standard one (also when the study allows no changes).
    func choice(for questionnaire: StudyQuestionnaire) throws -> Choice {
        guard questionnaire.definition.scheduleChangeable,
              let text = try context.moduleSetting(Self.settingKey(questionnaire.id)),
              let stored = try? JSONDecoder().decode(Choice.self, from: Data(text.utf8)) else { return .standard(questionnaire) }
        return stored
    }

    /// Changes the person's choice for a questionnaire: refused in one line when the study does
    /// not allow it; the new choice must make a valid rule before it is stored.
    @discardableResult
    func change(_ questionnaire: StudyQuestionnaire, _ body: (inout Choice) throws -> Void) throws -> ReminderRule {
        guard questionnaire.isRepeating, questionnaire.definition.schedule != nil else {
            throw UNITIError(L("tys.reminders.notRepeating", ["id": questionnaire.id]))
        }
        guard questionnaire.definition.scheduleChangeable else {
            throw UNITIError(L("tys.reminders.locked", ["id": questionnaire.id]))
        }
        var choice = try self.choice(for: questionnaire)
        try body(&choice)
        guard let rule = try rule(for: questionnaire, choice: choice) else {
            throw UNITIError(L("tys.reminders.notRepeating", ["id": questionnaire.id]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try context.setModuleSetting(Self.settingKey(questionnaire.id),
                                     to: String(decoding: try encoder.encode(choice), as: UTF8.self))
        return rule
    }

    /// Forgets the person's choice: the standard reminders of the schedule apply again.
    func reset(_ questionnaire: StudyQuestionnaire) throws {
        guard questionnaire.definition.scheduleChangeable else {
            throw UNITIError(L("tys.reminders.locked", ["id": questionnaire.id]))
        }
        try context.setModuleSetting(Self.settingKey(questionnaire.id), to: nil)
    }

    /// The rule of a questionnaire with the person's current choice; nil when it has none (a
    /// one-time questionnaire, or a deactivated one).
    func rule(for questionnaire: StudyQuestionnaire) throws -> ReminderRule? {
        try rule(for: questionnaire, choice: choice(for: questionnaire))
    }

    func rule(for questionnaire: StudyQuestionnaire, choice: Choice) throws -> ReminderRule? {
        guard questionnaire.isActive, questionnaire.isRepeating, let schedule = questionnaire.definition.schedule,
              let calendar = questionnaire.calendar(in: context.clock.timeZone) else { return nil }
        let time = choice.mode == .custom ? (choice.times.first ?? Self.defaultTime) : Self.defaultTime
        let frequency: QuestionnaireReminderPlan.Frequency
        let option: QuestionnaireReminderPlan.Option
        switch schedule.frequency {
        case .daily:
            frequency = .daily
            option = choice.mode == .custom ? .fixed(choice.times) : .random(amount: choice.count ?? calendar.amount)
        case .weekly:
            frequency = .weekly(calendar.firstDay.weekday)
            option = .random(amount: 1)
        case .monthly:
            frequency = .monthly(day: calendar.firstDay.day)
            option = .random(amount: 1)
        }
        // The person's own days and times stay within what the study allows them to move.
        if schedule.frequency == .daily, choice != .standard(questionnaire) {
            try questionnaire.checkWindowShift(days: choice.days, times: choice.mode == .custom ? choice.times : [])
            if choice.mode == .custom { try questionnaire.checkFixedTimes(choice.times) }
        }
        let plan = QuestionnaireReminderPlan(
            questionnaireID: questionnaire.id, command: commandText(questionnaire.id), frequency: frequency, option: option,
            days: choice.days, time: time,
            lockReason: questionnaire.definition.scheduleChangeable ? nil : L("tys.reminders.lockReason"),
            minimumGap: questionnaire.promptGap)
        var rule = try plan.rule(random: SeededRandomSource(seed: Self.seed(questionnaire)))
        rule.activeDays = calendar
        return rule
    }

    /// What the person types to answer it: `tys fill ID` in the integrated program, `fill ID`
    /// in `track-your-stress`.
    func commandText(_ id: String) -> String {
        (context.program == .integrated ? "tys fill " : "fill ") + id
    }

    /// The same random times for a questionnaire on every run (and in the reminder daemon),
    /// different for each questionnaire and each time the person joins.
    static func seed(_ questionnaire: StudyQuestionnaire) -> UInt64 {
        PromptDraw.seed(study: questionnaire.studyID, questionnaire: questionnaire.id, joinedAt: questionnaire.joinedAt)
    }

    /// Every running questionnaire's rule, and how to tell that a period has all its answers
    /// (then its remaining reminders are skipped). `statuses` saves reading them again when the
    /// caller has them.
    func source(statuses: [StudyQuestionnaireStatus]? = nil) throws -> ReminderSource {
        let service = context.studyQuestionnaires
        // A repeating questionnaire waiting for the study's one-time ones reminds only once it can be answered.
        let questionnaires = try (statuses ?? service.statuses()).filter {
            if case .afterOneTime = $0.state { return false }
            return $0.questionnaire.isRepeating
        }.map(\.questionnaire)
        var rules: [ReminderRule] = []
        var amounts: [String: Int] = [:]
        for questionnaire in questionnaires {
            // A questionnaire whose choice no longer fits (a changed window) falls back to the standard one.
            guard let rule = try (try? rule(for: questionnaire)) ?? rule(for: questionnaire, choice: .standard(questionnaire)) else { continue }
            rules.append(rule)
            amounts[questionnaire.id] = questionnaire.calendar(in: context.clock.timeZone)?.amount ?? 1
        }
        // Every answer time is read once; the planner asks per questionnaire and period.
        let answered = try service.answerTimes(of: rules.compactMap(\.questionnaireID))
        let amountsPerPeriod = amounts
        return ReminderSource(rules: rules) { id, period in
            (answered[id] ?? []).filter { period.contains($0) && $0 < period.end }.count >= (amountsPerPeriod[id] ?? 1)
        }
    }

    /// The next reminder of each questionnaire within five weeks. Most have one within two
    /// days (daily ones) or a week, so the planner looks that far first and plans the rest of
    /// the five weeks only for the rules still without one.
    func nextReminders(for statuses: [StudyQuestionnaireStatus]) throws -> [String: Date] {
        guard statuses.contains(where: { $0.questionnaire.isRepeating }) else { return [:] }
        let now = context.clock.now
        let planner = ReminderPlanner(timeZone: context.clock.timeZone)
        let source = try source(statuses: statuses)
        var next: [String: Date] = [:]
        var rules = source.rules
        for days in [2.0, 8, 35] where !rules.isEmpty {
            let partial = ReminderSource(rules: rules, isAnswered: source.isAnswered)
            for reminder in try planner.plan(ModuleReminderSource(module: context.module, source: partial), from: now,
                                             to: now.addingTimeInterval(days * 86_400)) {
                guard let id = reminder.questionnaireID, next[id] == nil else { continue }
                next[id] = reminder.date
            }
            rules.removeAll { $0.questionnaireID.map { next[$0] != nil } ?? true }
        }
        return next
    }
}
