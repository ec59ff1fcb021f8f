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

extension StudyQuestionnaire {
    /// The study's window of each weekday (``QuestionnaireSchedule/week``), Monday first, as the
    /// planner's days: a weekday without a window is off.
    public var studyDays: [DayWindow] {
        let week = definition.schedule?.week ?? Array(repeating: QuestionnaireSchedule.standardWindow, count: 7)
        return Weekday.allCases.map { weekday in
            guard let range = week[weekday.rawValue - 1],
                  let window = try? TimeWindow(start: TimeOfDay(minutes: range.lowerBound), end: TimeOfDay(minutes: min(range.upperBound, 1439)))
            else { return DayWindow(weekday: weekday, isEnabled: false) }
            return DayWindow(weekday: weekday, window: window)
        }
    }

    /// The least minutes between two of its prompts on one day (``QuestionnaireSchedule/gap(completionWindowMinutes:)``).
    public var promptGap: Int {
        definition.schedule?.gap(completionWindowMinutes: definition.completionWindowMinutes ?? PromptTiming.defaultCompletionWindowMinutes)
            ?? RandomReminders.standardGap
    }

    /// Refuses days and times a participant chose that leave the study's windows by more than the
    /// schedule's `windowShiftMinutes` (on a day the study prompts on none, no window is allowed).
    public func checkWindowShift(days: [DayWindow], times: [TimeOfDay] = []) throws {
        guard let shift = definition.schedule?.windowShiftMinutes else { return }
        for (chosen, study) in zip(days, studyDays) where chosen.isEnabled {
            let earliest = study.window.start.minutes - shift, latest = study.window.end.minutes + shift
            let limits = "\(TimeOfDay(minutes: max(0, earliest)))–\(TimeOfDay(minutes: min(1439, latest)))"
            guard study.isEnabled else {
                throw UNITIError(L("reminders.error.studyDayOff", ["day": chosen.weekday.localizedName]))
            }
            let outside = ([chosen.window.start, chosen.window.end] + times).first { $0.minutes < earliest || $0.minutes > latest }
            if let outside {
                throw UNITIError(L("reminders.error.shift", ["time": "\(outside)", "day": chosen.weekday.localizedName,
                                                              "limits": limits, "shift": "\(shift)"]))
            }
        }
    }
}

extension StudyQuestionnaire {
    /// Refuses fixed times a participant chose that come closer than the study's gap
    /// (``promptGap``) where the study decides when prompts come (``schedulesDailyPrompts``):
    /// the gap is never less than the completion window, so prompts never overlap.
    public func checkFixedTimes(_ times: [TimeOfDay]) throws {
        guard schedulesDailyPrompts else { return }
        let sorted = times.sorted { $0.minutes < $1.minutes }
        for (first, second) in zip(sorted, sorted.dropFirst()) where second.minutes - first.minutes < promptGap {
            throw UNITIError(L("reminders.error.fixedGap", ["first": "\(first)", "second": "\(second)",
                                                            "minutes": "\(second.minutes - first.minutes)", "gap": "\(promptGap)"]))
        }
    }

    /// Whether the study decides when this questionnaire prompts: an active, repeating, daily one
    /// whose schedule sets prompt windows or a gap (issue 47). A daily schedule without them (the
    /// bundled hearing questionnaire's "once a day") leaves a module's own reminder plan in charge.
    public var schedulesDailyPrompts: Bool {
        guard isActive, isRepeating, let schedule = definition.schedule, schedule.frequency == .daily else { return false }
        return schedule.windows != nil || schedule.minimumGapMinutes != nil
    }

    /// The days prompts are planned in: the person's own where the study lets them change
    /// (`scheduleChangeable`) and they stay within `windowShiftMinutes`, else the study's windows.
    public func promptDays(chosen: [DayWindow]?) -> [DayWindow] {
        guard let chosen, definition.scheduleChangeable, (try? checkWindowShift(days: chosen)) != nil else { return studyDays }
        return chosen
    }

    /// The reminder rule of a daily questionnaire the study schedules (``schedulesDailyPrompts``),
    /// for a module that plans it itself (Track Your Hearing): the schedule's `amount` prompts a
    /// day (fewer when the person set a lower `limit` and the study lets them change), at random
    /// times drawn as the console's preview draws them (``PromptDraw``, seeded by the study, the
    /// questionnaire and the time of joining) in ``promptDays(chosen:)``, at least ``promptGap``
    /// apart, from the schedule's first to its last study day. Nil for any other questionnaire.
    public func dailyPromptRule(command: String, chosenDays: [DayWindow]?, limit: Int?, timeZone: TimeZone) throws -> ReminderRule? {
        guard schedulesDailyPrompts, let calendar = calendar(in: timeZone) else { return nil }
        let amount = definition.scheduleChangeable ? min(limit ?? calendar.amount, calendar.amount) : calendar.amount
        let plan = QuestionnaireReminderPlan(questionnaireID: id, command: command, frequency: .daily, option: .random(amount: max(1, amount)),
                                             days: promptDays(chosen: chosenDays), minimumGap: promptGap)
        var rule = try plan.rule(random: SeededRandomSource(seed: PromptDraw.seed(study: studyID, questionnaire: id, joinedAt: joinedAt)))
        rule.activeDays = calendar
        return rule
    }
}
