import Foundation
import UNITICore

/// Whether a check-in is due now, in the core reminder service's terms: a reminder of this
/// module was planned within the service's lateness before now, and no result was saved since
/// that reminder. Entering the module then opens the questionnaire directly (thesis FR2).
enum DueCheckIn {
    static func isDue(_ context: ModuleContext, source: ReminderSource, module: ModuleDescriptor) throws -> Bool {
        guard !source.rules.isEmpty else { return false }
        let now = context.clock.now
        let service = ReminderService(database: context.database, clock: context.clock) {
            [ModuleReminderSource(module: module, source: source)]
        }
        guard let latest = try service.planned(from: now.addingTimeInterval(-service.lateness), to: now.addingTimeInterval(1))
            .last(where: { $0.date <= now }) else { return false }
        return try !ResultStore(database: context.database).hasResult(in: DateInterval(start: latest.date, end: now.addingTimeInterval(1)))
    }
}
