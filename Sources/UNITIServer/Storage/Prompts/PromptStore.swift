import Foundation
import Synchronization
import UNITIProtocol

/// Where prompt lifecycle events are kept (`prompt_events`, ``PromptSchema``), and the adherence
/// read from them.
///
/// An event is stored once per person and event id (`ON CONFLICT DO NOTHING`): a retried upload
/// changes nothing, and a stored event is never changed, as on the device. Adherence is one
/// aggregate statement: per person and prompt the kinds of event it has, then per participant,
/// questionnaire and combination of kinds the number of prompts; the outcome of a combination
/// is decided in Swift by the shared definition (``PromptFlags``), so the device and the server
/// cannot count differently. The rows come ordered and are handed on one at a time.
extension ServerStore {
    /// Stores the events the person has not stored yet; returns the ids held now, in order.
    package func storePromptEvents(userId: Int64, events: [PromptEvent], receivedAt: Date) async throws -> [UUID] {
        let rows = try events.map { event -> SQL in
            let text = try JSONCoding.string(event)
            return """
                (\(userId), \(event.id.uuidString.lowercased()), \(event.promptId), \(event.moduleId), \(event.questionnaireId),
                 \(event.kind.rawValue), \(event.at.date), \(event.dueAt.date), \(event.expiresAt?.date), \(event.channel),
                 \(event.sheetId?.uuidString.lowercased()), \(text), \(receivedAt))
                """
        }
        try await database.transaction { db in
            try await db.execute("""
                INSERT INTO prompt_events (user_id, event_id, prompt_id, module_id, questionnaire_id, kind, at, due_at, expires_at,
                                           channel, sheet_id, event, received_at)
                VALUES \(SQL.joined(rows, separator: ", ")) ON CONFLICT (user_id, event_id) DO NOTHING
                """)
        }
        return events.map(\.id)
    }

    /// One line of the adherence: a participant's prompts of one questionnaire, counted.
    package struct AdherenceLine: Sendable {
        package var participant: String
        package var questionnaireId: String
        package var counts: AdherenceCounts
        /// When the participant's device last sent a prompt event or a sheet.
        package var lastSync: Date?
    }

    /// The adherence of a study's participants by questionnaire, for prompts due in `[from, to)`,
    /// ordered by pseudonym and questionnaire, handed to `body` line by line (constant memory).
    package func adherence(studyId: String, from: Date?, to: Date?, _ body: @escaping @Sendable (AdherenceLine) throws -> Void) async throws {
        var period: SQL = ""
        if let from { period += " AND p.due_at >= \(from)" }
        if let to { period += " AND p.due_at < \(to)" }
        let any: SQL = "\(sqlite: "MAX", postgres: "bool_or")"
        let current = Mutex<AdherenceLine?>(nil)
        try await database.forEachRow("""
            SELECT u.pseudonym, p.questionnaire_id, p.delivered, p.completed, p.late, p.expired, p.withdrawn, COUNT(*) AS prompts,
                   (SELECT MAX(t.received) FROM (SELECT MAX(received_at) AS received FROM prompt_events WHERE user_id = u.id
                    UNION ALL SELECT MAX(received_at) FROM answer_sheets WHERE user_id = u.id) AS t) AS last_sync
            FROM (SELECT user_id, prompt_id, MAX(questionnaire_id) AS questionnaire_id, MIN(due_at) AS due_at,
                         \(any)(kind = 'delivered') AS delivered, \(any)(kind = 'completed') AS completed, \(any)(kind = 'late') AS late,
                         \(any)(kind = 'expired') AS expired, \(any)(kind = 'withdrawn') AS withdrawn
                  FROM prompt_events
                  WHERE questionnaire_id IN (SELECT questionnaire_id FROM questionnaire_links WHERE study_id = \(studyId))
                  GROUP BY user_id, prompt_id) AS p
            JOIN users u ON u.id = p.user_id
            WHERE 1 = 1\(period)
            GROUP BY u.id, u.pseudonym, p.questionnaire_id, p.delivered, p.completed, p.late, p.expired, p.withdrawn
            ORDER BY u.pseudonym, p.questionnaire_id
            """) { row in
            let participant: String = try row["pseudonym"], questionnaire: String = try row["questionnaire_id"]
            let flags = PromptFlags(delivered: try row["delivered"], completed: try row["completed"], late: try row["late"],
                                    expired: try row["expired"], withdrawn: try row["withdrawn"])
            let count: Int64 = try row["prompts"]
            let lastSync: Double? = try row["last_sync"]
            let finished = current.withLock { line -> AdherenceLine? in
                var done: AdherenceLine?
                if let open = line, open.participant != participant || open.questionnaireId != questionnaire {
                    done = open
                    line = nil
                }
                if line == nil {
                    line = AdherenceLine(participant: participant, questionnaireId: questionnaire, counts: AdherenceCounts(),
                                         lastSync: lastSync.map(Date.init(timeIntervalSince1970:)))
                }
                line?.counts.add(flags, count: Int(count))
                return done
            }
            if let finished { try body(finished) }
        }
        if let last = current.withLock({ $0 }) { try body(last) }
    }
}

/// Reading a person's `prompt_events` rows as sent (their data download).
enum PromptEvents {
    static func all(userId: Int64, in db: any SQLExecutor) async throws -> [PromptEvent] {
        try await db.rows("SELECT event FROM prompt_events WHERE user_id = \(userId) ORDER BY id").map {
            try JSONCoding.decode(PromptEvent.self, from: try $0["event"] as String)
        }
    }
}
