import Foundation
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// A reminder is due only if its rule already held at its time (issue 29, point 4): a study
/// joined, a module enabled, reminders switched on or a window moved at 10:07 announce nothing
/// from 09:52, while a rule that held all along still announces a reminder up to an hour late.
@Suite("Reminders: only from rules that already held at their time", .timeLimit(.minutes(10)))
struct ReminderRuleHistoryTests {
    typealias F = ReminderFixtures

    /// A rule at 09:52 and 10:30 every day.
    static func rule(id: String = "d", times: [String] = ["09:52", "10:30"], tone: String? = nil) throws -> ReminderRule {
        try ReminderRule(id: id, questionnaireID: "q", command: "rtm fill", tone: tone,
                         cadence: .daily(DailyReminders(fixed: times.flatMap { FixedReminderTime.everyDay(at: F.time($0)) })))
    }

    /// A harness at `start` whose test module keeps its rules in its settings (none at first).
    struct Setup {
        let clock: FixedClock
        let harness: ModuleHarness
        let module = ReminderTestModule(rules: [])
        var context: ModuleContext { ModuleContext(services: harness.services, module: module.descriptor) }
        var service: ReminderService { F.service(module, services: harness.services) }

        init(at start: String) throws {
            clock = FixedClock(F.date(start), timeZone: F.berlin)
            harness = try F.harness(clock: clock, modules: [module])
        }

        func setRules(_ rules: [ReminderRule]) throws {
            try ReminderRuleStore().save(rules, context)
        }

        func move(to time: String) {
            clock.advance(by: F.date(time).timeIntervalSince(clock.now))
        }

        func deliver() throws -> [String] {
            try service.deliverDue(through: RecordingNotifier()).delivered.map(\.id)
        }
    }

    @Test("a rule that comes at 10:07 announces nothing from 09:52; its 10:30 reminder comes")
    func newRuleAnnouncesNothingBefore() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        #expect(try setup.deliver().isEmpty)
        setup.move(to: "2026-11-23 10:07")
        try setup.setRules([Self.rule()])
        #expect(try setup.deliver().isEmpty)
        #expect(try setup.service.planned(from: F.date("2026-11-23 09:00"), to: F.date("2026-11-23 11:00")).map(\.id)
                == ["rtm/d/2026-11-23T10:30"])
        setup.move(to: "2026-11-23 10:31")
        #expect(try setup.deliver() == ["rtm/d/2026-11-23T10:30"])
    }

    @Test("a rule that held all along still announces a reminder up to an hour late, to a program started at 10:07")
    func oldRuleStillLate() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule()])
        try setup.service.noteRules()
        setup.move(to: "2026-11-23 10:07")
        #expect(try setup.deliver() == ["rtm/d/2026-11-23T09:52"])
    }

    @Test("switched off at 09:00 and on again at 10:07: the rule holds anew from 10:07")
    func offAndOnAgain() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule()])
        try setup.service.noteRules()
        setup.move(to: "2026-11-23 09:00")
        try setup.setRules([])
        try setup.service.noteRules()
        setup.move(to: "2026-11-23 10:07")
        try setup.setRules([Self.rule()])
        #expect(try setup.deliver().isEmpty)
    }

    @Test("a moved time holds anew; a changed tone does not change when the rule holds")
    func changedTimesHoldAnew() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule(), Self.rule(id: "t")])
        try setup.service.noteRules()
        setup.move(to: "2026-11-23 10:07")
        try setup.setRules([Self.rule(times: ["09:52", "10:45"]), Self.rule(id: "t", tone: "chime")])
        #expect(try setup.deliver() == ["rtm/t/2026-11-23T09:52"])
    }

    @Test("a module the studies disable has no rules: enabled again at 10:07, it announces nothing from 09:52")
    func moduleEnabledAgain() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule()])
        let shellService = setup.harness.shell.reminderService()
        try shellService.noteRules()
        #expect(try setup.harness.services.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_reminder_rules")
        } == 1)
        // The study that enabled the module is left: the module's rules are gone.
        try setup.harness.services.studies.recordLeft("test-study")
        setup.move(to: "2026-11-23 09:00")
        try shellService.noteRules()
        #expect(try setup.harness.services.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_reminder_rules")
        } == 0)
        setup.move(to: "2026-11-23 10:07")
        try setup.harness.services.studies.recordJoined(
            StudyDescriptor(id: "test-study", title: "Test study", modules: ["rtm"]), at: setup.clock.now)
        #expect(try shellService.deliverDue(through: RecordingNotifier()).delivered.isEmpty)
    }

    @Test("a program without a module leaves that module's rules alone; planning for a list writes nothing")
    func otherProgramsRulesStay() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule()])
        let count = {
            try setup.harness.services.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_reminder_rules") }
        }
        // Listing plans without noting: nothing is written, and nothing from before now is listed.
        setup.move(to: "2026-11-23 10:07")
        #expect(try setup.service.planned(from: F.date("2026-11-23 09:00"), to: F.date("2026-11-23 11:00")).map(\.id)
                == ["rtm/d/2026-11-23T10:30"])
        #expect(try count() == 0)
        try setup.service.noteRules()
        #expect(try count() == 1)
        // A program with another module only (a standalone program) sees its own rules.
        let stranger = ModuleDescriptor(id: ModuleID(known: "zzz"), name: "Other", programName: "other", version: "1")
        try ReminderService(database: setup.harness.services.database, clock: setup.clock) {
            [ModuleReminderSource(module: stranger, source: .none)]
        }.noteRules()
        #expect(try count() == 1)
    }

    @Test("a command that writes notes the rules at once; one that only shows writes nothing")
    func shellNotesAfterWritingCommands() throws {
        let setup = try Setup(at: "2026-11-23 08:00")
        try setup.setRules([Self.rule()])
        let rows = {
            try setup.harness.services.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_reminder_rules") }
        }
        #expect(setup.harness.run("modules") == .success)
        #expect(try rows() == 0)
        #expect(setup.harness.run("sensors allow microphone") == .success)
        #expect(try rows() == 1)
    }
}
