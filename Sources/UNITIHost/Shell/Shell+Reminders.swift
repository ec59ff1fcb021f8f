import Foundation
import UNITICore

extension Shell {
    /// The reminder service over the modules the person's studies enable: each is asked for its
    /// ``ReminderSource`` with its own context whenever reminders are planned.
    public func reminderService() -> ReminderService {
        ReminderService(database: services.database, clock: services.clock) { [self] in
            let enabled = try services.studies.enabledModuleIDs()
            return try registry.modules
                .filter { enabled.contains($0.descriptor.id) }
                .map { ModuleReminderSource(module: $0.descriptor, source: try $0.reminderSource(context(for: $0))) }
        }
    }

    /// One line and the bell on this shell's console.
    public func terminalReminderNotifier() -> TerminalNotifier {
        TerminalNotifier(console: console, bell: TerminalBell(console: console), timeZone: services.clock.timeZone)
    }
}
