import ArgumentParser
import Foundation
import UNITICore
import UNITIProtocol

/// `tys questionnaires [--json]`: the questionnaires of the person's studies, by study, each
/// with its state and, for repeating ones, the schedule and the next reminder (thesis FR10,
/// FR11, FR16).
struct QuestionnairesCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "questionnaires", abstract: L("tys.questionnaires.abstract"))
    }

    @OptionGroup var output: JSONOutput

    init() {}

    func run(in context: ModuleContext) throws {
        let statuses = try context.studyQuestionnaires.statuses()
        let reminders = try StressReminders(context: context).nextReminders(for: statuses)
        if output.isRequested(in: context) {
            try context.console.json(statuses.map { QuestionnaireJSON($0, nextReminder: reminders[$0.id], timeZone: context.clock.timeZone) })
            return
        }
        guard !statuses.isEmpty else {
            context.console.line(L("tys.questionnaires.none"))
            return
        }
        let text = QuestionnaireText(localizer: context.localizer)
        var study: String?
        var rows: [[String]] = []
        func flush() {
            guard !rows.isEmpty else { return }
            context.console.table(TextTable(columns: [.left, .left], rows: rows, indent: 4))
            rows = []
        }
        for status in statuses {
            if status.questionnaire.studyID != study {
                flush()
                study = status.questionnaire.studyID
                context.console.line(L("tys.questionnaires.study", [
                    "title": text.text(status.questionnaire.studyTitle), "id": status.questionnaire.studyID,
                ]))
            }
            let definition = status.questionnaire.definition
            var detail = status.state.text(context.localizer)
            if status.hasDraft { detail += " · " + L("tys.questionnaires.draft") }
            rows.append(["\(text.text(definition.title)) (\(status.id))", detail])
            if let schedule = definition.schedule, status.questionnaire.isRepeating {
                var line = ScheduleText.describe(schedule)
                if let next = reminders[status.id] {
                    line += " · " + L("tys.questionnaires.nextReminder", ["time": ReminderTimeText.format(next, timeZone: context.clock.timeZone)])
                }
                rows.append(["", line])
            }
        }
        flush()
    }
}

/// One questionnaire of `tys questionnaires --json`.
struct QuestionnaireJSON: Encodable {
    let study: String
    let id: String
    let version: Int
    let title: String
    let kind: String
    let state: String
    let stateText: String
    let answers: Int
    let hasDraft: Bool
    let schedule: QuestionnaireSchedule?
    let scheduleChangeable: Bool
    let nextReminder: String?

    init(_ status: StudyQuestionnaireStatus, nextReminder: Date?, timeZone: TimeZone) {
        let definition = status.questionnaire.definition
        study = status.questionnaire.studyID
        id = status.id
        version = definition.version
        title = QuestionnaireText(localizer: CurrentLanguage.localizer).text(definition.title)
        kind = definition.kind.rawValue
        state = status.state.key
        stateText = status.state.text()
        answers = status.answers
        hasDraft = status.hasDraft
        schedule = definition.schedule
        scheduleChangeable = definition.scheduleChangeable
        self.nextReminder = nextReminder.map { OffsetTimestamp($0, in: timeZone).text }
    }
}

/// A schedule in words: "daily, 2 times", "weekly", "monthly from 2026-12-01 to 2027-03-31".
enum ScheduleText {
    static func describe(_ schedule: QuestionnaireSchedule) -> String {
        var parts: [String]
        switch schedule.frequency {
        case .daily: parts = [L("tys.schedule.daily")]
        case .weekly: parts = [L("tys.schedule.weekly")]
        case .monthly: parts = [L("tys.schedule.monthly")]
        }
        if schedule.timing == .fixed, let at = schedule.at {
            return L("tys.schedule.on", ["date": at])
        }
        if let every = schedule.every, every > 1 { parts.append(L("tys.schedule.every", ["count": "\(every)"])) }
        if let amount = schedule.amount, amount > 1 { parts.append(L("tys.schedule.times", ["count": "\(amount)"])) }
        if let start = schedule.start { parts.append(L("tys.schedule.from", ["date": start])) }
        if let end = schedule.end { parts.append(L("tys.schedule.until", ["date": end])) }
        if let day = schedule.startOnDay, day > 0 { parts.append(L("tys.schedule.startOnDay", ["count": "\(day)"])) }
        return parts.joined(separator: ", ")
    }
}

/// A reminder time as the person reads it: "today 18:00", "Tue 2026-11-24 08:30".
enum ReminderTimeText {
    static func format(_ date: Date, timeZone: TimeZone) -> String {
        let day = LocalDate(date, in: timeZone)
        let seconds = Int(date.timeIntervalSince1970) + timeZone.secondsFromGMT(for: date)
        let minutes = ((seconds % 86_400) + 86_400) % 86_400 / 60
        return "\(day.weekday.localizedName) \(day) \(TimeOfDay(minutes: minutes))"
    }
}
