import Foundation
import GRDB
import UNITICore
import UNITIProtocol

/// The record's reminders (thesis outlook, 8), planned and delivered by the core like every
/// module's: one on the day a set number of days before each therapy's end, and one gentle
/// reminder when the record has not changed for a set number of days. Each is a rule for one
/// day, rebuilt whenever reminders are planned, so an edited end date or a new entry moves it
/// at once.
struct RecordReminders {
    let context: ModuleContext

    func source() throws -> ReminderSource {
        let settings = try RecordSettings.load(context)
        let store = HealthRecordStore(context)
        let today = LocalDate(context.clock.now, in: context.clock.timeZone)
        let cadence = ReminderCadence.daily(try DailyReminders(fixed: FixedReminderTime.everyDay(at: settings.reminderTime)))
        var rules: [ReminderRule] = []
        if let days = settings.therapyReminderDays {
            let therapies = try store.all(Therapy.self, orderedBy: [Column("end"), Column("id")])
            for therapy in therapies {
                guard let end = therapy.endDate, end >= today else { continue }
                let short = HealthRecordID.short(therapy.id)
                rules.append(try ReminderRule(
                    id: "therapy-end-\(short)", command: "tn therapy show \(short)", cadence: cadence,
                    skipWhenAnswered: false, activeDays: Self.day(end.adding(days: -days)),
                    message: L("tn.reminder.therapyEnds", count: days, ["name": therapy.name, "end": "\(end)"])))
            }
        }
        if let days = settings.updateReminderDays, let touched = try store.lastTouched() {
            let day = LocalDate(touched, in: context.clock.timeZone).adding(days: days)
            rules.append(try ReminderRule(
                id: "update-record", command: "tn calendar", cadence: cadence, skipWhenAnswered: false,
                activeDays: Self.day(day), message: L("tn.reminder.update", count: days)))
        }
        return ReminderSource(rules: rules)
    }

    /// A calendar of exactly one day.
    static func day(_ date: LocalDate) -> ScheduleCalendar {
        ScheduleCalendar(QuestionnaireSchedule(frequency: .daily, timing: .fixed, at: "\(date)"), joinedOn: date)
    }
}
