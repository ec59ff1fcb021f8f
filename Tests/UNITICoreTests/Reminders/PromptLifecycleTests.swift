import Foundation
import GRDB
import Testing
@testable import UNITICore
import UNITIProtocol
import UNITITesting

/// Prompts as research data (issue 30): every planned reminder's lifecycle recorded once, in the
/// device's database and its outbox, with time from the injected clock.
@Suite("Prompt lifecycle: planned, delivered, answered in time or late, expired, snoozed, withdrawn", .timeLimit(.minutes(5)))
struct PromptLifecycleTests {
    typealias F = ReminderFixtures

    /// A module whose questionnaire `q` is prompted every day at `times` (Berlin).
    func module(_ times: [String]) throws -> ReminderTestModule {
        let fixed = times.flatMap { FixedReminderTime.everyDay(at: F.time($0)) }
        return ReminderTestModule(rules: [try ReminderRule(id: "d", questionnaireID: "q", command: "rtm fill",
                                                           cadence: .daily(DailyReminders(fixed: fixed)))])
    }

    /// The kinds of event a prompt has, in the order recorded.
    func kinds(_ promptID: String, in database: AppDatabase) throws -> [PromptEventKind] {
        try database.writer.read { db in
            try String.fetchAll(db, sql: "SELECT kind FROM core_prompt_events WHERE promptID = ? ORDER BY rowid", arguments: [promptID])
                .compactMap(PromptEventKind.init(rawValue:))
        }
    }

    func queued(_ database: AppDatabase) throws -> Int {
        try database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM core_outbox WHERE kind = ?", arguments: [PromptLog.outboxKind]) ?? 0
        }
    }

    /// The 09:00 prompt of `q`, delivered at 09:00 (the rule held from 08:59); the clock at 09:00.
    func deliveredAtNine() throws -> (clock: FixedClock, harness: ModuleHarness, service: ReminderService, notifier: RecordingNotifier) {
        let clock = FixedClock(F.date("2026-11-23 08:59"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let service = F.service(try module(["09:00"]), services: harness.services)
        try service.noteRules()
        clock.advance(by: 60)
        let notifier = RecordingNotifier()
        try service.deliverDue(through: notifier)
        return (clock, harness, service, notifier)
    }

    @Test("a prompt is planned ahead, delivered by the daemon, answered inside its window: completed, each event queued once")
    func answeredInTime() throws {
        let clock = FixedClock(F.date("2026-11-23 08:00"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let service = F.service(try module(["09:00"]), services: harness.services)
        let notifier = RecordingNotifier()
        #expect(try service.deliverDue(through: notifier, channel: "daemon").delivered.isEmpty)
        let id = "rtm/d/2026-11-23T09:00"
        #expect(try kinds(id, in: harness.database) == [.planned])
        clock.advance(by: 3600)
        #expect(try service.deliverDue(through: notifier, channel: "daemon").delivered.map(\.id) == [id])
        #expect(try kinds(id, in: harness.database) == [.planned, .delivered])
        let channel = try harness.database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT channel FROM core_prompt_events WHERE promptID = ? AND kind = 'delivered'", arguments: [id])
        }
        #expect(channel == "daemon")

        clock.advance(by: 59 * 60)  // 09:59, inside the default hour
        let log = PromptLog(database: harness.database, clock: clock)
        let prompt = try #require(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now))
        #expect(!prompt.isLate && prompt.promptID == id)
        #expect(prompt.expiresAt == F.date("2026-11-23 10:00"))
        let sheet = UUID()
        try harness.database.writer.write { db in try log.answered(prompt, by: sheet, at: clock.now, in: db) }
        #expect(try kinds(id, in: harness.database) == [.planned, .delivered, .completed])
        // Answered: a second sheet answers no prompt, and the window's end expires nothing.
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now) == nil)
        clock.advance(by: 3600)
        try log.expire(at: clock.now)
        #expect(try kinds(id, in: harness.database) == [.planned, .delivered, .completed])
        // Every event once in the outbox (today's three, tomorrow's planned); recording one again queues nothing.
        #expect(try queued(harness.database) == 4)
        let again = try harness.database.writer.write { db in
            try PromptLog.record(PromptEvent(promptId: id, moduleId: "rtm", questionnaireId: "q", kind: .completed,
                                             at: OffsetTimestamp(clock.now, in: F.berlin), dueAt: OffsetTimestamp(clock.now, in: F.berlin)), in: db)
        }
        #expect(!again)
        #expect(try queued(harness.database) == 4)
    }

    @Test("the window's edge: one second before it an answer begun is in time; at it the prompt expires, and without a late allowance an answer begun then answers no prompt")
    func expiryAtTheEdge() throws {
        let (clock, harness, _, _) = try deliveredAtNine()
        let log = PromptLog(database: harness.database, clock: clock)
        let id = "rtm/d/2026-11-23T09:00"
        clock.advance(by: 3600 - 1)
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now)?.isLate == false)
        try log.expire(at: clock.now)
        #expect(!(try kinds(id, in: harness.database).contains(.expired)))
        clock.advance(by: 1)
        try log.expire(at: clock.now)
        #expect(try kinds(id, in: harness.database) == [.planned, .delivered, .expired])
        // No late allowance (the default): the participant's own answer; the prompt stays missed.
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now) == nil)
        // With 30 minutes of late answers, one begun then answers it, late, up to the allowance's end.
        let late = try #require(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now, lateAllowance: 1800))
        #expect(late.isLate)
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now.addingTimeInterval(1799), lateAllowance: 1800) != nil)
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now.addingTimeInterval(1800), lateAllowance: 1800) == nil)
        try harness.database.writer.write { db in try log.answered(late, by: UUID(), at: clock.now, in: db) }
        #expect(try kinds(id, in: harness.database) == [.planned, .delivered, .expired, .late])
        #expect(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now, lateAllowance: 1800) == nil, "answered once")
    }

    @Test("a late answer without anyone noticing the expiry records the expiry at the window's end, then late")
    func lateWithoutNoticedExpiry() throws {
        let (clock, harness, _, _) = try deliveredAtNine()
        clock.advance(by: 2 * 3600)
        let log = PromptLog(database: harness.database, clock: clock)
        let late = try #require(try log.answering(moduleID: "rtm", questionnaireID: "q", at: clock.now, lateAllowance: 3 * 3600))
        try harness.database.writer.write { db in try log.answered(late, by: UUID(), at: clock.now, in: db) }
        let expiredAt = try harness.database.writer.read { db in
            try Date.fetchOne(db, sql: "SELECT at FROM core_prompt_events WHERE kind = 'expired'")
        }
        #expect(expiredAt == F.date("2026-11-23 10:00"))
        #expect(try log.prompts(dueFrom: .distantPast, to: .distantFuture).compactMap(\.flags.outcome) == [.late])
    }

    @Test("snooze once: the prompt comes again ten minutes later, once; a second snooze and one after the window are refused")
    func snoozeOnce() throws {
        let (clock, harness, service, notifier) = try deliveredAtNine()
        let log = PromptLog(database: harness.database, clock: clock)
        clock.advance(by: 120)
        let prompt = try #require(try log.snoozable(at: clock.now))
        #expect(try log.snooze(prompt, at: clock.now) == F.date("2026-11-23 09:12"))
        #expect(try log.snoozable(at: clock.now) == nil)
        #expect(try log.snooze(prompt, at: clock.now) == nil)
        clock.advance(by: 9 * 60)
        #expect(try service.deliverDue(through: notifier).delivered.isEmpty)
        clock.advance(by: 60)
        #expect(try service.deliverDue(through: notifier).delivered.map(\.id) == ["rtm/d/2026-11-23T09:00"])
        #expect(try service.deliverDue(through: notifier).delivered.isEmpty)
        #expect(notifier.delivered.value.count == 2)
        // Delivered once as research data: the second announcement is not a second delivery.
        #expect(try kinds("rtm/d/2026-11-23T09:00", in: harness.database) == [.planned, .delivered, .snoozed])

        // Tomorrow's prompt, once its window has ended, cannot be snoozed.
        clock.advance(by: 86_400 - 12 * 60)
        try service.deliverDue(through: notifier)
        clock.advance(by: 3600)
        #expect(try log.snoozable(at: clock.now) == nil)
    }

    @Test("a changed plan withdraws the prompts still ahead that it dropped, never one already delivered")
    func withdrawnOnPlanChange() throws {
        let clock = FixedClock(F.date("2026-11-23 08:59"), timeZone: F.berlin)
        let harness = try F.harness(clock: clock)
        let before = F.service(try module(["09:00", "15:00"]), services: harness.services)
        try before.noteRules()
        clock.advance(by: 60)
        try before.deliverDue(through: RecordingNotifier())
        // At 10:00 the person moves the afternoon prompt to 16:00.
        clock.advance(by: 3600)
        let after = F.service(try module(["09:00", "16:00"]), services: harness.services)
        try after.deliverDue(through: RecordingNotifier())
        #expect(try kinds("rtm/d/2026-11-23T15:00", in: harness.database) == [.planned, .withdrawn])
        #expect(try kinds("rtm/d/2026-11-23T16:00", in: harness.database) == [.planned])
        #expect(try kinds("rtm/d/2026-11-23T09:00", in: harness.database) == [.planned, .delivered, .expired])
        let outcomes = try PromptLog(database: harness.database, clock: clock).prompts(dueFrom: .distantPast, to: .distantFuture)
            .compactMap(\.flags.outcome)
        // Today's 15:00 and tomorrow's 15:00 were planned (two days ahead) and are withdrawn.
        #expect(outcomes == [.missed, .withdrawn, .withdrawn])
    }

    @Test("a sheet saved through the engine after a prompt carries promptId, promptedAt and late, and completes the prompt")
    func sheetCarriesPrompt() throws {
        let clock = FixedClock(F.date("2026-11-23 08:59"), timeZone: F.berlin)
        let module = try module(["09:00"])
        let harness = try ModuleHarness([module], input: ["7"], clock: clock)
        let service = F.service(module, services: harness.services)
        try service.noteRules()
        clock.advance(by: 60)
        try service.deliverDue(through: RecordingNotifier())
        clock.advance(by: 5 * 60)
        let definition = QuestionnaireDefinition(id: "q", version: 1, title: "Q", items: [
            QuestionnaireItem(label: "level", text: "Level", element: .slider(SliderRange(min: 0, max: 10, step: 1))),
        ])
        var stored: AnswerSheet?
        let result = try QuestionnaireEngine(services: harness.services, localizer: Localizer(language: .english))
            .answer(definition, owner: module.descriptor.id) { result, _ in stored = result.sheet }
        #expect(result.sheet.promptId == "rtm/d/2026-11-23T09:00")
        #expect(result.sheet.promptedAt?.date == F.date("2026-11-23 09:00"))
        #expect(result.sheet.late == false)
        #expect(result.sheet.initiatedBy == .prompt)
        #expect(stored?.promptId == result.sheet.promptId)
        #expect(try kinds("rtm/d/2026-11-23T09:00", in: harness.database) == [.planned, .delivered, .opened, .completed])
    }

    @Test("""
        a sheet begun inside the window answers the prompt in time; begun after the window it is the participant's own \
        and the prompt stays missed; with a late allowance, begun inside it, it is late
        """, arguments: [(begin: 59.0, late: 0, outcome: PromptOutcome.answeredInTime, initiator: SheetInitiator.prompt),
                          (begin: 61.0, late: 0, outcome: .missed, initiator: .participant),
                          (begin: 61.0, late: 30, outcome: .late, initiator: .prompt),
                          (begin: 91.0, late: 30, outcome: .missed, initiator: .participant)])
    func begunDecides(begin: Double, late: Int, outcome: PromptOutcome, initiator: SheetInitiator) throws {
        let clock = FixedClock(F.date("2026-11-23 08:59"), timeZone: F.berlin)
        let module = try module(["09:00"])
        let harness = try ModuleHarness([module], input: ["7"], clock: clock)
        let service = F.service(module, services: harness.services)
        try service.noteRules()
        clock.advance(by: 60)
        try service.deliverDue(through: RecordingNotifier())
        var definition = QuestionnaireDefinition(id: "q", version: 1, title: "Q", items: [
            QuestionnaireItem(label: "level", text: "Level", element: .slider(SliderRange(min: 0, max: 10, step: 1))),
        ])
        definition.lateAnswerMinutes = late
        clock.advance(by: begin * 60)
        let sheet = try QuestionnaireEngine(services: harness.services, localizer: Localizer(language: .english))
            .answer(definition, owner: module.descriptor.id) { _, _ in }.sheet
        #expect(sheet.initiatedBy == initiator)
        #expect((sheet.promptId != nil) == (initiator == .prompt))
        #expect(sheet.late == (initiator == .prompt ? (outcome == .late) : nil))
        let log = PromptLog(database: harness.database, clock: clock)
        try log.expire(at: clock.now)
        #expect(try log.prompts(dueFrom: .distantPast, to: .distantFuture).compactMap(\.flags.outcome) == [outcome])
    }

    @Test("rates from a fixed list of prompts: in time, late, missed, open, withdrawn and only planned")
    func ratesFromFixedEvents() {
        let prompts: [[PromptEventKind]] = [
            [.planned, .delivered, .opened, .completed],          // in time
            [.planned, .delivered, .completed],                   // in time
            [.planned, .delivered, .snoozed, .completed],         // in time after a snooze
            [.planned, .delivered, .expired, .late],              // late
            [.planned, .delivered, .expired],                     // missed
            [.planned, .delivered, .snoozed, .expired],           // missed after a snooze
            [.planned, .delivered],                               // open
            [.planned, .withdrawn],                               // withdrawn
            [.planned],                                           // only planned: does not count
        ]
        var counts = AdherenceCounts()
        for kinds in prompts { counts.add(PromptFlags(kinds: kinds)) }
        #expect(counts.delivered == 7)
        #expect(counts.answeredInTime == 3)
        #expect(counts.late == 1)
        #expect(counts.missed == 2)
        #expect(counts.open == 1)
        #expect(counts.withdrawn == 1)
        #expect(counts.rate == 0.5)  // 3 of the 6 delivered prompts whose outcome is known
        #expect(AdherenceCounts().rate == nil)
    }
}
