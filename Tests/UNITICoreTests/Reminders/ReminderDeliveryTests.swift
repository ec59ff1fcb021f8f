import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol

@Suite("Delivering reminders: log, shell monitor, daemon, module settings", .timeLimit(.minutes(10)))
struct ReminderDeliveryTests {
    typealias F = ReminderFixtures

    func module() throws -> ReminderTestModule {
        let rule = try ReminderRule(id: "d", questionnaireID: "q", command: "rtm fill", tone: "chime",
                                    cadence: .daily(DailyReminders(fixed: FixedReminderTime.everyDay(at: F.time("09:00"))
                                        + FixedReminderTime.everyDay(at: F.time("15:00")))))
        return ReminderTestModule(rules: [rule])
    }

    @Test("a due reminder is delivered once, even when asked again or by a second process")
    func deliveredOnce() throws {
        let clock = FixedClock(F.date("2026-11-23 08:00"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let services = harness.services
        let module = try module()
        let service = F.service(module, services: services)
        try service.noteRules()  // the rule held before its 09:00 reminder
        clock.advance(by: 65 * 60)
        let notifier = RecordingNotifier()
        #expect(try service.deliverDue(through: notifier).delivered.map(\.id) == ["rtm/d/2026-11-23T09:00"])
        #expect(try service.deliverDue(through: notifier).delivered.isEmpty)
        // Another service over the same database (the daemon) does not deliver it again.
        let other = F.service(module, services: services)
        #expect(try other.deliverDue(through: notifier).delivered.isEmpty)
        #expect(notifier.delivered.value.count == 1)
        // Too late: reminders older than the lateness bound are not announced.
        clock.advance(by: 6 * 3600)  // 15:05; the 15:00 one is due
        #expect(try service.deliverDue(through: notifier).delivered.map(\.id) == ["rtm/d/2026-11-23T15:00"])
        clock.advance(by: 86_400 + 2 * 3600)  // next day 17:05: 09:00 and 15:00 are more than an hour late
        #expect(try service.deliverDue(through: notifier).delivered.isEmpty)
    }

    @Test("the shell's monitor prints one line naming the module and the command, and rings")
    func monitorPrintsOneLine() throws {
        let clock = FixedClock(F.date("2026-11-23 08:59"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let services = harness.services
        let service = F.service(try module(), services: services)
        let (console, output) = Console.capturing()
        final class CountingBell: ReminderBell, @unchecked Sendable {
            let rings = LockedValue(0)
            func ring(for reminder: PlannedReminder) { rings.withValue { $0 += 1 } }
        }
        let bell = CountingBell()
        let monitor = ReminderMonitor(service: service, notifier: TerminalNotifier(console: console, bell: bell, timeZone: F.berlin))
        #expect(monitor.check().isEmpty)
        clock.advance(by: 120)
        #expect(monitor.check().count == 1)
        #expect(monitor.check().isEmpty)
        let lines = output.out.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines[0].contains("ReminderTestModule") && lines[0].contains("rtm fill") && lines[0].contains("09:00"))
        #expect(bell.rings.value == 1)
    }

    @Test("the daemon waits for each reminder, delivers it, and stops at its bound")
    func daemonDeliversInOrder() throws {
        let clock = FixedClock(F.date("2026-11-23 07:00"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let services = harness.services
        let service = F.service(try module(), services: services)
        let notifier = RecordingNotifier()
        let daemon = ReminderDaemon(service: service, notifier: notifier, replanInterval: 3600, sleep: { clock.advance(by: $0) }, shouldStop: { false })
        let delivered = try daemon.run(count: 3)
        #expect(delivered.map(\.id) == ["rtm/d/2026-11-23T09:00", "rtm/d/2026-11-23T15:00", "rtm/d/2026-11-24T09:00"])
        // It delivered each at its time, not before.
        #expect(clock.now >= F.date("2026-11-24 09:00") && clock.now < F.date("2026-11-24 09:02"))

        let timed = try daemon.run(for: 3600)
        #expect(timed.isEmpty)
        let stopped = try ReminderDaemon(service: service, notifier: notifier, sleep: { clock.advance(by: $0) }, shouldStop: { true }).run()
        #expect(stopped.isEmpty)
    }

    @Test("rules a module stores in its settings replace its defaults; a refused save keeps the old ones")
    func moduleSettingsKeepRules() throws {
        let clock = FixedClock(F.date("2026-11-23 07:00"), timeZone: F.berlin)
        let module = try module()
        let harness = try F.harness(clock: clock, modules: [module])
        let services = harness.services
        let context = ModuleContext(services: services, module: module.descriptor)
        let store = ReminderRuleStore()
        #expect(try store.load(context) == nil)
        let random = try RandomReminders(count: 3, random: context.random)
        let rule = try ReminderRule(id: "r", command: "rtm fill", cadence: .daily(DailyReminders(random: random)))
        try store.save([rule], context)
        #expect(try store.load(context) == [rule])
        #expect(throws: UNITIError.self) { try store.save([rule, rule], context) }
        #expect(try store.load(context) == [rule])
        let service = F.service(module, services: services)
        let planned = try service.planned(from: clock.now, to: clock.now.addingTimeInterval(86_400))
        #expect(planned.count == 3)
        #expect(planned.allSatisfy { $0.ruleID == "r" })
    }

    @Test("a module that does not adopt reminders plans nothing, beside one that does")
    func moduleWithoutRules() throws {
        struct Quiet: UNITIModule {
            let descriptor = ModuleDescriptor(id: ModuleID(known: "quiet"), name: "Quiet", programName: "quiet", version: "1")
            func commands(for program: ProgramKind) -> [any ShellCommand.Type] { [] }
            var migrations: [ModuleMigration] { [] }
        }
        let clock = FixedClock(F.date("2026-11-23 07:00"), timeZone: F.berlin)
        let reminding = ReminderTestModule(rules: [try ReminderRule(id: "r", questionnaireID: "q", command: "rtm fill",
            cadence: .daily(DailyReminders(random: RandomReminders(count: 3, seed: 1))))])
        let harness = try F.harness(clock: clock, modules: [Quiet(), reminding])
        let planned = try harness.shell.reminderService().planned(from: clock.now, to: clock.now.addingTimeInterval(86_400))
        #expect(planned.count == 3)
        #expect(planned.allSatisfy { $0.moduleID == "rtm" })
    }
}
