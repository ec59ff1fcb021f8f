import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

/// A study's prompt windows per weekday, its gap and its days (issue 47): how they are written,
/// what the validator refuses, and what the planner makes of them over years of days and the
/// clock changes in them.
@Suite("Prompt windows, gaps and study days", .timeLimit(.minutes(10)))
struct PromptWindowTests {
    static func definition(_ schedule: QuestionnaireSchedule, completion: Int? = 30) -> QuestionnaireDefinition {
        var definition = QuestionnaireDefinition(
            id: "ema", version: 1, title: "EMA", kind: .repeating, schedule: schedule,
            items: [QuestionnaireItem(label: "mood", text: "Mood?", element: .slider(SliderRange(min: 0, max: 10, step: 1)))])
        definition.completionWindowMinutes = completion
        return definition
    }

    static func codes(_ schedule: QuestionnaireSchedule, completion: Int? = 30) -> [String: ValidationProblem.Code] {
        Dictionary(QuestionnaireValidator.validate(definition(schedule, completion: completion)).map { ($0.path, $0.code) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("windows are written as days=HH:MM-HH:MM, read back the same, and grouped by equal times")
    func writing() throws {
        let weekdays = try #require(PromptWindow(parsing: "mon-fri=08:00-22:00"))
        #expect(weekdays.days == ["mon", "tue", "wed", "thu", "fri"] && weekdays.minutes == 480...1320)
        #expect(weekdays.description == "mon-fri=08:00-22:00")
        #expect(PromptWindow(parsing: "sat,sun=10:00-22:00")?.description == "sat,sun=10:00-22:00")
        #expect(PromptWindow(parsing: "mon,wed-fri=09:00-21:00")?.days == ["mon", "wed", "thu", "fri"])
        for bad in ["mon-fri=22:00-08:00", "xyz=08:00-09:00", "mon=8:00-9:00", "mon=08:00", "08:00-22:00", "fri-mon=08:00-09:00", "mon=08:00-24:00"] {
            #expect(PromptWindow(parsing: bad) == nil, "\(bad)")
        }
        let week: [ClosedRange<Int>?] = [480...1320, 480...1320, 480...1320, 480...1320, 480...1320, 600...1320, nil]
        #expect(PromptWindow.grouped(week).map(\.description) == ["mon-fri=08:00-22:00", "sat=10:00-22:00"])
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, windows: PromptWindow.grouped(week))
        #expect(schedule.week == week)
        #expect(QuestionnaireSchedule(frequency: .daily, timing: .between).week == Array(repeating: 480...1320, count: 7))
    }

    @Test("the validator refuses overlapping prompts, prompts that do not fit, a day named twice, a shift out of range and an end before the start")
    func validation() {
        let windows = [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "22:00"), PromptWindow(days: ["sat", "sun"], from: "10:00", to: "12:00")]
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 4, windows: windows, minimumGapMinutes: 30)).isEmpty)
        // A gap shorter than the completion window: two prompts open at once.
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 4, minimumGapMinutes: 20))["schedule.minimumGapMinutes"] == .promptsOverlap)
        // Five prompts 40 minutes apart need 160 minutes; the weekend window has 120.
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 5, windows: windows, minimumGapMinutes: 40))["schedule.windows"] == .promptsDoNotFit)
        let twice = [PromptWindow(days: ["mon"], from: "08:00", to: "12:00"), PromptWindow(days: ["mon"], from: "13:00", to: "20:00")]
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, windows: twice))["schedule.windows[1].days"] == .invalidWindow)
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, windows: [PromptWindow(days: ["mon"], from: "20:00", to: "08:00")]))["schedule.windows[0]"] == .invalidWindow)
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, windows: []))["schedule.windows"] == .invalidWindow)
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, windowShiftMinutes: 800))["schedule.windowShiftMinutes"] == .invalidScheduleNumber)
        #expect(Self.codes(QuestionnaireSchedule(frequency: .daily, timing: .between, startOnDay: 7, endOnDay: 3))["schedule.endOnDay"] == .dateRangeNotIncreasing)
        // A definition from before windows and gaps asks for 20 prompts with a 60-minute window:
        // it stays valid, and is planned with the gap that fits (840 / 19 = 44 minutes).
        let legacy = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 20)
        #expect(Self.codes(legacy, completion: nil).isEmpty)
        #expect(legacy.gap(completionWindowMinutes: 60) == 44)
        #expect(QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 4).gap(completionWindowMinutes: 30) == 30)
    }

    @Test("over 10,000 planned days across every clock change, no two prompts are closer than the gap or outside their day's window")
    func tenThousandDays() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        // Weekdays 08:00-22:00, Saturday 10:00-22:00, and a night window on Sundays, when
        // Europe's clocks change, that spans the skipped and the repeated hour.
        let windows = [PromptWindow(days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "22:00"),
                       PromptWindow(days: ["sat"], from: "10:00", to: "22:00"), PromptWindow(days: ["sun"], from: "00:30", to: "05:30")]
        let schedule = QuestionnaireSchedule(frequency: .daily, timing: .between, amount: 4, windows: windows, minimumGapMinutes: 60)
        let questionnaire = StudyQuestionnaire(studyID: "s", studyTitle: "S", module: "tys", isActive: true, joinedAt: Date(timeIntervalSince1970: 0),
                                               definition: Self.definition(schedule))
        #expect(questionnaire.promptGap == 60)
        let random = try RandomReminders(count: 4, days: questionnaire.studyDays, minimumGap: questionnaire.promptGap, seed: 20_261_202)
        let rule = try ReminderRule(id: "ema", questionnaireID: "ema", command: "tys fill ema", cadence: .daily(DailyReminders(random: random)),
                                    skipWhenAnswered: false)
        let module = ModuleDescriptor(id: ModuleID(known: "tys"), name: "Track Your Stress", programName: "track-your-stress", version: "1")
        let first = LocalDate(year: 2000, month: 1, day: 3)
        let start = first.startInstant(in: berlin), end = first.adding(days: 10_000).startInstant(in: berlin)
        let planned = try ReminderPlanner(timeZone: berlin).plan(
            ModuleReminderSource(module: module, source: ReminderSource(rules: [rule]) { _, _ in false }), from: start, to: end)
        let byDay = Dictionary(grouping: planned, by: \.localDate)
        #expect(byDay.count == 10_000)
        var clockChanges = 0, shortened = 0
        for (date, prompts) in byDay {
            let window = try #require(schedule.week[date.weekday.rawValue - 1])
            for prompt in prompts {
                // In the window by the wall clock the participant sees, and at that very instant.
                let shown = Calendar(identifier: .gregorian).dateComponents(in: berlin, from: prompt.date)
                let minutes = (shown.hour ?? 0) * 60 + (shown.minute ?? 0)
                #expect(window.contains(prompt.localTime.minutes), "\(date) \(prompt.localTime)")
                #expect(window.contains(minutes) || minutes == prompt.localTime.minutes + 60, "\(date): \(prompt.localTime) is shown at \(minutes)")
            }
            let instants = prompts.map(\.date).sorted()
            #expect(zip(instants, instants.dropFirst()).allSatisfy { $1.timeIntervalSince($0) >= 3600 }, "\(date): \(prompts.map(\.localTime))")
            if date.steadyOffset(in: berlin) == nil, date.weekday == .sunday { clockChanges += 1 }
            if prompts.count < 4 { shortened += 1 }
        }
        // 27 years of spring and autumn changes were crossed; a prompt is dropped only when the
        // skipped hour pushed it beside another, on a few spring Sundays at most.
        #expect(clockChanges >= 54)
        #expect(shortened <= clockChanges / 2, "\(shortened) days lost a prompt")
        #expect(planned.count >= 4 * 10_000 - shortened)
    }
}
