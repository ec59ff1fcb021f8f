import Foundation
import UNITICore

extension Shell {
    /// The reminder service over this program's modules: each module the person's studies
    /// enable is asked for its ``ReminderSource`` with its own context whenever reminders are
    /// planned; a disabled one has no rules (so its rules hold anew once it is enabled again).
    public func reminderService() -> ReminderService {
        ReminderService(database: services.database, clock: services.clock) { [self] in
            let enabled = try services.studies.enabledModuleIDs()
            return try registry.modules.compactMap { $0 as? any ReminderProviding }.map { module in
                let source = enabled.contains(module.descriptor.id) ? try module.reminderSource(context(for: module)) : .none
                return ModuleReminderSource(module: module.descriptor, source: source)
            }
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
