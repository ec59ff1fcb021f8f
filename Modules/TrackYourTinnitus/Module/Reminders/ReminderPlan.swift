import Foundation
import UNITICore

/// The person's Track Your Tinnitus reminders (thesis FR3, FR13; 5.1): "standard" ones, a
/// number per day at random times inside a window per weekday (default 08:00–22:00 on every
/// day), and "custom" ones at fixed weekday + time entries; both may be combined.
///
/// Kept as one value in the module's settings (`tyt.notify.plan`) so a count of zero still
/// remembers its windows; ``rule(tone:)`` turns it into the rule the core planner plans. Every
/// change is made on a copy and validated before it replaces the stored plan, so a refused
/// change loses nothing.
public struct ReminderPlan: Codable, Sendable, Equatable {
    /// Standard reminders per day; 0 means none.
    public var count: Int
    /// Monday first, seven entries.
    public var days: [DayWindow]
    public var fixed: [FixedReminderTime]
    /// Drawn once; the same seed gives the same times when the day is planned again.
    public var seed: UInt64

    public static let ruleID = "momentary"
    static let settingKey = "notify.plan"

    public init(count: Int = 0, days: [DayWindow] = DayWindow.week(), fixed: [FixedReminderTime] = [], seed: UInt64) {
        self.count = count
        self.days = days
        self.fixed = fixed
        self.seed = seed
    }

    /// The largest number of standard reminders that fits every enabled day's window, at least
    /// 15 minutes apart.
    public var largestCount: Int {
        days.filter(\.isEnabled).map { $0.window.capacity(minimumGap: RandomReminders.standardGap) }.min() ?? 0
    }

    /// Refuses a plan the planner could not fulfil; the message names the largest count that fits.
    public func validate() throws {
        guard count >= 0 else {
            throw UNITIError(L("tyt.notify.negative", ["count": "\(count)", "largest": "\(largestCount)"]))
        }
        if count > 0 { _ = try randomReminders() }
        _ = try DailyReminders(fixed: fixed)
    }

    func randomReminders() throws -> RandomReminders {
        try RandomReminders(count: count, days: days, seed: seed)
    }

    /// The rule for the core planner, nil when there are no reminders.
    ///
    /// Answered periods are not skipped: momentary assessment asks several times a day, and a
    /// check-in at 09:00 says nothing about how the tinnitus is at 15:00, so every planned
    /// prompt is delivered (the core's skip works per day, which would silence all but the
    /// first). A reminder counts as done once a check-in follows it (see ``DueCheckIn``).
    public func rule(tone: String?) throws -> ReminderRule? {
        guard count > 0 || !fixed.isEmpty else { return nil }
        let daily = try DailyReminders(random: count > 0 ? randomReminders() : nil, fixed: fixed)
        return try ReminderRule(id: Self.ruleID, questionnaireID: MomentaryQuestionnaire.id, command: "tyt fill",
                                tone: tone, cadence: .daily(daily), skipWhenAnswered: false)
    }

    // MARK: - Storage

    public static func load(_ context: ModuleContext) throws -> ReminderPlan {
        guard let text = try context.moduleSetting(settingKey) else {
            return ReminderPlan(seed: context.random.nextUInt64())
        }
        do {
            return try JSONDecoder().decode(ReminderPlan.self, from: Data(text.utf8))
        } catch {
            throw UNITIError(L("tyt.notify.unreadable"))
        }
    }

    /// Validates, then stores; a refused plan leaves the stored one as it was.
    public func save(_ context: ModuleContext) throws {
        try validate()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try context.setModuleSetting(Self.settingKey, to: String(decoding: try encoder.encode(self), as: UTF8.self))
    }

    /// Applies a change to a copy of the stored plan, validates and stores it. Any refusal is
    /// one line naming the problem and the largest count that fits.
    @discardableResult
    public static func change(_ context: ModuleContext, _ body: (inout ReminderPlan) throws -> Void) throws -> ReminderPlan {
        let stored = try load(context)
        var plan = stored
        do {
            try body(&plan)
            try plan.save(context)
        } catch let error as UNITIError {
            if plan.count > plan.largestCount {
                throw error  // the planner's own line already names the largest count that fits
            }
            throw UNITIError(L("tyt.notify.refused", ["problem": error.message, "largest": "\(plan.largestCount)"]))
        }
        return plan
    }
}
