import Foundation
import GRDB
import UNITIProtocol

/// The lifecycle of every prompt as research data (`core_prompt_events`): planned, delivered,
/// opened, snoozed, completed, expired, late, withdrawn (``PromptEventKind``).
///
/// Events are only ever added, at most one of each kind per prompt (a unique key, so two programs
/// recording the same event at once record it once), and each is queued for the server in the
/// same transaction (``Outbox``, kind ``outboxKind``), so it reaches the server exactly once,
/// offline or not. Whether a prompt was answered in time is decided from these events by the
/// shared definition (``PromptFlags``), on the device and on the server alike.
public struct PromptLog: Sendable {
    let database: AppDatabase
    let clock: any WallClock

    public init(database: AppDatabase, clock: any WallClock) {
        self.database = database
        self.clock = clock
    }

    /// The outbox kind of a prompt event.
    public static let outboxKind = "promptEvent"

    /// What a sheet saved now answers: a prompt, and whether the answer is late.
    public struct Answering: Sendable, Equatable {
        public let promptID: String
        public let moduleID: String
        public let questionnaireID: String
        public let dueAt: Date
        public let deliveredAt: Date
        public let expiresAt: Date
        public let isLate: Bool
    }

    private var canWrite: Bool { database.readOnlyBecause == nil }

    private func event(_ promptID: String, module: String, questionnaire: String?, _ kind: PromptEventKind, at: Date,
                       due: Date, expires: Date? = nil, channel: String? = nil, sheet: UUID? = nil) -> PromptEvent {
        let zone = clock.timeZone
        return PromptEvent(promptId: promptID, moduleId: module, questionnaireId: questionnaire, kind: kind,
                           at: OffsetTimestamp(at, in: zone), dueAt: OffsetTimestamp(due, in: zone),
                           expiresAt: expires.map { OffsetTimestamp($0, in: zone) }, channel: channel, sheetId: sheet)
    }

    /// Records `event` unless its prompt has an event of that kind already, and queues it for the
    /// server in the same transaction. Returns whether it was new.
    @discardableResult
    static func record(_ event: PromptEvent, in db: Database) throws -> Bool {
        try db.execute(sql: """
            INSERT OR IGNORE INTO core_prompt_events(id, promptID, moduleID, questionnaireID, kind, at, dueAt, expiresAt, channel, sheetID)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [event.id.uuidString.lowercased(), event.promptId, event.moduleId, event.questionnaireId,
                             event.kind.rawValue, event.at.date, event.dueAt.date, event.expiresAt?.date, event.channel,
                             event.sheetId?.uuidString.lowercased()])
        guard db.changesCount == 1 else { return false }
        try Outbox.enqueue(db, kind: outboxKind, moduleID: event.moduleId, clientID: "prompt:\(event.id.uuidString.lowercased())",
                           payload: try APIClient.encoder.encode(event), at: event.at.date)
        return true
    }

    // MARK: - Planning

    /// Notes the plan of `modules` for `[start, end)` (from as late as a reminder may still be
    /// delivered): prompts not seen before are planned; prompts planned before, never delivered
    /// and no longer in the plan are withdrawn (the plan changed before they were delivered: a
    /// window moved, a day turned off, the study left, the day's questionnaire answered). Writes
    /// only when something changed.
    func notePlan(_ plan: [PlannedReminder], modules: Set<String>, from start: Date, until end: Date, at now: Date) throws {
        guard canWrite, !modules.isEmpty else { return }
        let (known, pending) = try database.writer.read { db -> (Set<String>, [Row]) in
            let marks = Array(repeating: "?", count: modules.count).joined(separator: ",")
            let known = try String.fetchSet(db, sql: """
                SELECT promptID FROM core_prompt_events WHERE kind = 'planned' AND dueAt >= ? AND dueAt < ?
                """, arguments: [start, end])
            let pending = try Row.fetchAll(db, sql: """
                SELECT p.promptID, p.moduleID, p.questionnaireID, p.dueAt FROM core_prompt_events p
                WHERE p.kind = 'planned' AND p.dueAt >= ? AND p.dueAt < ? AND p.moduleID IN (\(marks))
                  AND NOT EXISTS (SELECT 1 FROM core_prompt_events o WHERE o.promptID = p.promptID AND o.kind IN ('delivered', 'withdrawn'))
                """, arguments: StatementArguments([start, end]) + StatementArguments(Array(modules)))
            return (known, pending)
        }
        let planned = Set(plan.map(\.id))
        let new = plan.filter { !known.contains($0.id) }
        let gone = pending.filter { !planned.contains($0["promptID"]) }
        guard !new.isEmpty || !gone.isEmpty else { return }
        try database.writer.write { db in
            for reminder in new {
                try Self.record(event(reminder.id, module: reminder.moduleID, questionnaire: reminder.questionnaireID, .planned,
                                      at: now, due: reminder.date), in: db)
            }
            for row in gone {
                try Self.record(event(row["promptID"], module: row["moduleID"], questionnaire: row["questionnaireID"], .withdrawn,
                                      at: now, due: row["dueAt"]), in: db)
            }
        }
    }

    // MARK: - Delivery and expiry

    /// Records the delivery of `reminder` at `now` by `channel` (`shell` or `daemon`); its answer
    /// counts as in time until `now + window`.
    func delivered(_ reminder: PlannedReminder, at now: Date, channel: String, window: TimeInterval) throws {
        guard canWrite else { return }
        _ = try database.writer.write { db in
            try Self.record(event(reminder.id, module: reminder.moduleID, questionnaire: reminder.questionnaireID, .delivered,
                                  at: now, due: reminder.date, expires: reminder.questionnaireID == nil ? nil : now.addingTimeInterval(window),
                                  channel: channel), in: db)
        }
    }

    /// The completion window of a questionnaire: its definition's (the newest version the device
    /// has from the server), else ``PromptTiming/defaultCompletionWindowMinutes``.
    func completionWindow(of questionnaireID: String?) throws -> TimeInterval {
        let fallback = TimeInterval(PromptTiming.defaultCompletionWindowMinutes * 60)
        guard let questionnaireID else { return fallback }
        let text = try database.writer.read { db in
            try String.fetchOne(db, sql: "SELECT definition FROM core_server_questionnaires WHERE id = ? ORDER BY version DESC LIMIT 1",
                                arguments: [questionnaireID])
        }
        guard let text, let definition = try? APIClient.decoder.decode(QuestionnaireDefinition.self, from: Data(text.utf8)) else {
            return fallback
        }
        return definition.completionWindow
    }

    /// Records `expired` for every delivered prompt whose window ended by `now` without an answer
    /// (at the window's end). Called when reminders are checked, before `adherence` and before a sync.
    public func expire(at now: Date) throws {
        guard canWrite else { return }
        let rows = try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.promptID, d.moduleID, d.questionnaireID, d.dueAt, d.expiresAt FROM core_prompt_events d
                WHERE d.kind = 'delivered' AND d.expiresAt <= ?
                  AND NOT EXISTS (SELECT 1 FROM core_prompt_events o WHERE o.promptID = d.promptID AND o.kind IN ('completed', 'late', 'expired'))
                """, arguments: [now])
        }
        guard !rows.isEmpty else { return }
        try database.writer.write { db in
            for row in rows {
                try Self.record(event(row["promptID"], module: row["moduleID"], questionnaire: row["questionnaireID"], .expired,
                                      at: row["expiresAt"], due: row["dueAt"]), in: db)
            }
        }
    }

    // MARK: - Answering

    /// The prompt a sheet of `questionnaireID` by `moduleID` begun at `now` answers: the module's
    /// latest prompt for it delivered by then whose completion window, or the late allowance after
    /// it (`lateAllowance`, the definition's ``QuestionnaireDefinition/lateAnswerAllowance``), has
    /// not ended, unless that one was answered already; late when it is begun after the window.
    /// Nil when the sheet answers no prompt: it is the participant's own.
    public func answering(moduleID: String, questionnaireID: String, at now: Date, lateAllowance: TimeInterval = 0) throws -> Answering? {
        try database.writer.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT d.promptID, d.dueAt, d.at, d.expiresAt,
                       EXISTS (SELECT 1 FROM core_prompt_events o WHERE o.promptID = d.promptID AND o.kind IN ('completed', 'late')) AS answered
                FROM core_prompt_events d
                WHERE d.kind = 'delivered' AND d.moduleID = ? AND d.questionnaireID = ? AND d.at <= ? AND d.expiresAt > ?
                ORDER BY d.at DESC LIMIT 1
                """, arguments: [moduleID, questionnaireID, now, now.addingTimeInterval(-lateAllowance)]),
                  !(row["answered"] as Bool), let expires: Date = row["expiresAt"] else { return nil }
            return Answering(promptID: row["promptID"], moduleID: moduleID, questionnaireID: questionnaireID, dueAt: row["dueAt"],
                             deliveredAt: row["at"], expiresAt: expires, isLate: now >= expires)
        }
    }

    /// Records that the person started answering the prompt.
    public func opened(_ prompt: Answering, at now: Date) throws {
        guard canWrite else { return }
        _ = try database.writer.write { db in
            try Self.record(event(prompt.promptID, module: prompt.moduleID, questionnaire: prompt.questionnaireID, .opened,
                                  at: now, due: prompt.dueAt), in: db)
        }
    }

    /// Inside the transaction that stores `sheet`: records it as the prompt's answer, completed
    /// (begun inside the window) or late (begun after it, inside the late allowance; then the
    /// expiry first, at the window's end, if nobody noticed it yet).
    public func answered(_ prompt: Answering, by sheet: UUID, at now: Date, in db: Database) throws {
        if prompt.isLate {
            try Self.record(event(prompt.promptID, module: prompt.moduleID, questionnaire: prompt.questionnaireID, .expired,
                                  at: prompt.expiresAt, due: prompt.dueAt), in: db)
        }
        try Self.record(event(prompt.promptID, module: prompt.moduleID, questionnaire: prompt.questionnaireID,
                              prompt.isLate ? .late : .completed, at: now, due: prompt.dueAt, sheet: sheet), in: db)
    }

    // MARK: - Snooze

    /// A prompt that may be snoozed now: delivered, unanswered, inside its window, not snoozed before.
    public struct Snoozable: Sendable, Equatable {
        public let promptID: String
        public let moduleID: String
        public let questionnaireID: String?
        public let dueAt: Date
        public let expiresAt: Date
    }

    /// The latest delivered prompt that may be snoozed at `now` (of `moduleID` when given).
    public func snoozable(at now: Date, moduleID: String? = nil) throws -> Snoozable? {
        try database.writer.read { db in
            var sql = """
                SELECT d.promptID, d.moduleID, d.questionnaireID, d.dueAt, d.expiresAt FROM core_prompt_events d
                WHERE d.kind = 'delivered' AND d.expiresAt > ? AND d.at <= ?
                  AND NOT EXISTS (SELECT 1 FROM core_prompt_events o WHERE o.promptID = d.promptID
                                  AND o.kind IN ('completed', 'late', 'expired', 'snoozed'))
                """
            var arguments: StatementArguments = [now, now]
            if let moduleID {
                sql += " AND d.moduleID = ?"
                arguments += [moduleID]
            }
            return try Row.fetchOne(db, sql: sql + " ORDER BY d.at DESC LIMIT 1", arguments: arguments).map {
                Snoozable(promptID: $0["promptID"], moduleID: $0["moduleID"], questionnaireID: $0["questionnaireID"],
                          dueAt: $0["dueAt"], expiresAt: $0["expiresAt"])
            }
        }
    }

    /// Snoozes the prompt once: it comes again ``PromptTiming/snoozeDelay`` later (never after its
    /// window). Returns the time it comes again, nil when it was snoozed already.
    public func snooze(_ prompt: Snoozable, at now: Date) throws -> Date? {
        let recorded = try database.writer.write { db in
            try Self.record(event(prompt.promptID, module: prompt.moduleID, questionnaire: prompt.questionnaireID, .snoozed,
                                  at: now, due: prompt.dueAt), in: db)
        }
        return recorded ? min(now.addingTimeInterval(PromptTiming.snoozeDelay), prompt.expiresAt) : nil
    }

    /// Snoozed prompts whose time to come again has come by `now`, still unanswered inside their window.
    func snoozedDue(at now: Date) throws -> [(promptID: String, moduleID: String)] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.promptID, s.moduleID FROM core_prompt_events s JOIN core_prompt_events d
                  ON d.promptID = s.promptID AND d.kind = 'delivered'
                WHERE s.kind = 'snoozed' AND s.at <= ? AND d.expiresAt > ?
                  AND NOT EXISTS (SELECT 1 FROM core_prompt_events o WHERE o.promptID = s.promptID AND o.kind IN ('completed', 'late', 'expired'))
                """, arguments: [now.addingTimeInterval(-PromptTiming.snoozeDelay), now]).map { ($0["promptID"], $0["moduleID"]) }
        }
    }

    // MARK: - Reading

    /// Each prompt that asks for a questionnaire and was due in `[start, end)`: its due time,
    /// questionnaire and flags (the kinds of event it has), for ``AdherenceReport``.
    public func prompts(dueFrom start: Date, to end: Date) throws -> [(dueAt: Date, questionnaireID: String, flags: PromptFlags)] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT promptID, MIN(dueAt) AS dueAt, MAX(questionnaireID) AS questionnaireID, GROUP_CONCAT(kind) AS kinds
                FROM core_prompt_events WHERE questionnaireID IS NOT NULL AND dueAt >= ? AND dueAt < ?
                GROUP BY promptID ORDER BY dueAt
                """, arguments: [start, end]).map { row in
                let kinds = (row["kinds"] as String).split(separator: ",").compactMap { PromptEventKind(rawValue: String($0)) }
                return (row["dueAt"], row["questionnaireID"], PromptFlags(kinds: kinds))
            }
        }
    }

    /// The migration of the table.
    static let migrations = MigrationSet(owner: "core", steps: [
        ModuleMigration("v1-prompt-events") { db in
            try db.create(table: "core_prompt_events") { t in
                t.column("id", .text).primaryKey()
                t.column("promptID", .text).notNull()
                t.column("moduleID", .text).notNull()
                t.column("questionnaireID", .text)
                t.column("kind", .text).notNull()
                t.column("at", .datetime).notNull()
                t.column("dueAt", .datetime).notNull()
                t.column("expiresAt", .datetime)
                t.column("channel", .text)
                t.column("sheetID", .text)
                t.uniqueKey(["promptID", "kind"])
            }
            try db.create(index: "core_prompt_events_due", on: "core_prompt_events", columns: ["kind", "dueAt"])
        },
    ])
}
