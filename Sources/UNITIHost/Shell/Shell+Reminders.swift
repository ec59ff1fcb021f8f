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
                .compactMap { $0 as? any ReminderProviding }
                .map { ModuleReminderSource(module: $0.descriptor, source: try $0.reminderSource(context(for: $0))) }
        }
    }

    /// One line on this shell's console, and the module's tone (the terminal bell without a
    /// sound card or a tone).
    public func terminalReminderNotifier() -> TerminalNotifier {
        TerminalNotifier(console: console, bell: reminderBell(), timeZone: services.clock.timeZone)
    }

    /// The bell that plays each module's chosen reminder tone.
    public func reminderBell(openOutput: @escaping @Sendable (AudioFormat) throws -> any AudioSink = ToneBell.defaultOutput,
                             waits: Bool = false) -> ToneBell {
        let registry = registry
        return ToneBell(tone: { reminder in
            reminder.tone.flatMap { name in (registry.module(id: reminder.moduleID) as? any ReminderToneProviding)?.reminderTone(named: name) }
        }, openOutput: openOutput, fallback: TerminalBell(console: console), waits: waits)
    }
}
