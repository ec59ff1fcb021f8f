import ArgumentParser
import Foundation
import UNITICore

/// `tn settings [therapy-reminder DAYS|off] [update-reminder DAYS|off] [reminder-time HH:MM]`.
struct RecordSettingsCommand: ShellCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "settings", abstract: L("tn.settings.abstract"))
    }

    @Argument(help: ArgumentHelp(L("tn.settings.option.setting"), valueName: "therapy-reminder|update-reminder|reminder-time"),
              completion: .list(["therapy-reminder", "update-reminder", "reminder-time"]))
    var setting: String?
    @Argument(help: ArgumentHelp(L("tn.settings.option.value"), valueName: "value")) var value: String?

    init() {}

    func run(in context: ModuleContext) throws {
        if let setting {
            guard let value else { throw UNITIError(L("tn.settings.error.value", ["setting": setting])) }
            switch setting.lowercased() {
            case "therapy-reminder":
                try RecordSettings.store(RecordSettings.parseDays(value), key: "therapyReminderDays", in: context)
            case "update-reminder":
                try RecordSettings.store(RecordSettings.parseDays(value), key: "updateReminderDays", in: context)
            case "reminder-time":
                try context.setModuleSetting("reminderTime", to: "\(try TimeOfDay(parsing: value))")
            default:
                throw UNITIError(L("tn.settings.error.unknown", ["setting": setting]))
            }
        }
        let settings = try RecordSettings.load(context)
        let off = L("tn.settings.off")
        context.console.table(TextTable(rows: [
            ["therapy-reminder", settings.therapyReminderDays.map { L("tn.settings.daysBefore", count: $0) } ?? off],
            ["update-reminder", settings.updateReminderDays.map { L("tn.settings.daysAfter", count: $0) } ?? off],
            ["reminder-time", "\(settings.reminderTime)"],
        ]))
    }
}
