import Foundation
import Synchronization
import UNITIProtocol

/// Where prompt lifecycle events are kept (`prompt_events` and the per-prompt `prompts`,
/// ``PromptSchema``), and the adherence read from them.
///
/// An event is stored once per person and event id (`ON CONFLICT DO NOTHING`): a retried upload
/// changes nothing, and a stored event is never changed, as on the device; its kind is OR-ed into
/// its prompt's bits in the same transaction (idempotent too). Adherence is one aggregate
/// statement: per participant, questionnaire and combination of kinds the number of prompts; the
/// outcome of a combination is decided in Swift by the shared definition (``PromptFlags``), so the
/// device and the server cannot count differently. The rows come ordered and are handed on one
/// at a time.
extension ServerStore {
    /// Stores the events the person has not stored yet, and adds their kinds to their prompts'
    /// rows, in one transaction; returns the ids held now, in order.
    package func storePromptEvents(userId: Int64, events: [PromptEvent], receivedAt: Date) async throws -> [UUID] {
        let rows = try events.map { event -> SQL in
            let text = try JSONCoding.string(event)
            return """
                (\(userId), \(event.id.uuidString.lowercased()), \(event.promptId), \(event.moduleId), \(event.questionnaireId),
                 \(event.kind.rawValue), \(event.at.date), \(event.dueAt.date), \(event.expiresAt?.date), \(event.channel),
                 \(event.sheetId?.uuidString.lowercased()), \(text), \(receivedAt))
                """
        }
        // One row per prompt of the batch (an upsert may not touch a row twice).
        var prompts: [String: (questionnaire: String?, due: Date, kinds: Int)] = [:]
        for event in events {
            let known = prompts[event.promptId]
            prompts[event.promptId] = (known?.questionnaire ?? event.questionnaireId, known?.due ?? event.dueAt.date,
                                       (known?.kinds ?? 0) | PromptKinds.bit(event.kind))
        }
        let summaries = prompts.sorted { $0.key < $1.key }.map { id, prompt -> SQL in
            "(\(userId), \(id), \(prompt.questionnaire), \(prompt.due), \(prompt.kinds), \(receivedAt))"
        }
        try await database.transaction { db in
            try await db.execute("""
                INSERT INTO prompt_events (user_id, event_id, prompt_id, module_id, questionnaire_id, kind, at, due_at, expires_at,
                                           channel, sheet_id, event, received_at)
                VALUES \(SQL.joined(rows, separator: ", ")) ON CONFLICT (user_id, event_id) DO NOTHING
                """)
            try await db.execute("""
                INSERT INTO prompts (user_id, prompt_id, questionnaire_id, due_at, kinds, received_at)
                VALUES \(SQL.joined(summaries, separator: ", "))
                ON CONFLICT (user_id, prompt_id) DO UPDATE SET kinds = prompts.kinds | excluded.kinds, received_at = excluded.received_at
                """)
        }
        return events.map(\.id)
    }

    /// One line of the adherence: a participant's prompts of one questionnaire, counted.
    package struct AdherenceLine: Sendable {
        package var participant: String
        package var questionnaireId: String
        package var counts: AdherenceCounts
        /// When the participant's device last sent a prompt event of this questionnaire.
        package var lastSync: Date?
    }

    /// The adherence of a study's participants by questionnaire, for prompts due in `[from, to)`,
    /// ordered by pseudonym and questionnaire, handed to `body` line by line (constant memory).
    package func adherence(studyId: String, from: Date?, to: Date?, _ body: @escaping @Sendable (AdherenceLine) throws -> Void) async throws {
        var period: SQL = ""
        if let from { period += " AND p.due_at >= \(from)" }
        if let to { period += " AND p.due_at < \(to)" }
        let current = Mutex<AdherenceLine?>(nil)
        // The study's questionnaires go in as values, not as a subquery: PostgreSQL then plans
        // with the statistics of `prompts.questionnaire_id` itself. Through the subquery, on a
        // `questionnaire_links` too small for autovacuum ever to analyse, it guessed 1 row in 200
        // and sorted two million prompts on disk (3.9 s against 1.5 s; Documentation/adherence.md).
        let questionnaires = try await questionnaireLinks(studyId: studyId).map(\.questionnaireId)
        guard !questionnaires.isEmpty else { return }
        // Over the whole study the groups are kept (``TallySchema``: `prompt_tallies`); a period
        // is counted from the prompts.
        let groups: SQL = from == nil && to == nil ? """
            SELECT user_id, questionnaire_id, kinds, prompts, last_received_at AS last_sync FROM prompt_tallies
            WHERE questionnaire_id IN (\(list: questionnaires))
            """ : """
            SELECT p.user_id, p.questionnaire_id, p.kinds, COUNT(*) AS prompts, MAX(p.received_at) AS last_sync FROM prompts p
            WHERE p.questionnaire_id IN (\(list: questionnaires))\(period)
            GROUP BY p.questionnaire_id, p.user_id, p.kinds
            """
        try await database.forEachRow("""
            SELECT u.pseudonym, g.questionnaire_id, g.kinds, g.prompts, g.last_sync FROM (\(groups)) AS g
            JOIN users u ON u.id = g.user_id
            ORDER BY u.pseudonym, g.questionnaire_id
            """) { row in
            let group = try row.decode(PromptGroup.self)
            let (participant, questionnaire) = (group.pseudonym, group.questionnaireId)
            let finished = current.withLock { line -> AdherenceLine? in
                var done: AdherenceLine?
                if let open = line, open.participant != participant || open.questionnaireId != questionnaire {
                    done = open
                    line = nil
                }
                var next = line ?? AdherenceLine(participant: participant, questionnaireId: questionnaire, counts: AdherenceCounts(),
                                                 lastSync: nil)
                next.counts.add(PromptKinds.flags(group.kinds), count: group.prompts)
                next.lastSync = max(next.lastSync ?? .distantPast, group.lastSync)
                line = next
                return done
            }
            if let finished { try body(finished) }
        }
        if let last = current.withLock({ $0 }) { try body(last) }
    }

    /// Each participant's adherence over all of the study's questionnaires and the whole study,
    /// by user id, from the kept groups (``TallySchema``): the participants page, which needs no
    /// order and no pseudonym from here (its rows come with both), reads a few rows per person.
    package func adherenceByParticipant(studyId: String) async throws -> [Int64: ParticipantAdherence] {
        let questionnaires = try await questionnaireLinks(studyId: studyId).map(\.questionnaireId)
        guard !questionnaires.isEmpty else { return [:] }
        var totals: [Int64: ParticipantAdherence] = [:]
        for row in try await database.rows("""
            SELECT user_id, kinds, CAST(SUM(prompts) AS BIGINT) AS prompts, MAX(last_received_at) AS last_sync FROM prompt_tallies
            WHERE questionnaire_id IN (\(list: questionnaires)) GROUP BY user_id, kinds
            """) {
            let group = try row.decode(UserPromptGroup.self)
            totals[group.userId, default: ParticipantAdherence()].add(group)
        }
        return totals
    }

    /// A participant's adherence summed over questionnaires: counts and the last prompt event.
    package struct ParticipantAdherence: Sendable {
        package var counts = AdherenceCounts()
        package var lastSync: Date?

        fileprivate mutating func add(_ group: UserPromptGroup) {
            counts.add(PromptKinds.flags(group.kinds), count: group.prompts)
            lastSync = max(lastSync ?? .distantPast, group.lastSync)
        }
    }

    /// A participant's prompts of all questionnaires with one combination of event kinds.
    fileprivate struct UserPromptGroup: Decodable {
        var userId: Int64, kinds: Int, prompts: Int, lastSync: Date
    }

    /// A participant's prompts of one questionnaire with one combination of event kinds.
    private struct PromptGroup: Decodable {
        var pseudonym: String, questionnaireId: String, kinds: Int, prompts: Int, lastSync: Date
    }
}

extension ServerStore {
    /// The adherence of a study's prompts due on the UTC days `days` (seconds since 1970 /
    /// 86,400), summed over its participants per day: the console overview's chart, from the day
    /// tallies (``TallySchema``). Counted as ``adherence(studyId:from:to:_:)`` counts (prompts
    /// per combination of event kinds, the shared ``PromptFlags`` deciding each combination's
    /// outcome), so a day's rate is the one `uniti-server adherence --from D --to D` gives for that day.
    package func adherencePerDay(studyId: String, days: ClosedRange<Int>) async throws -> [Int: AdherenceCounts] {
        let questionnaires = try await questionnaireLinks(studyId: studyId).map(\.questionnaireId)
        var perDay: [Int: AdherenceCounts] = [:]
        for group in try await dayTallies("prompts", subjects: questionnaires, days: days) {
            perDay[group.day, default: AdherenceCounts()].add(PromptKinds.flags(group.kinds), count: group.count)
        }
        return perDay
    }

    /// The pseudonyms of the study's members of whom no prompt of its questionnaires has arrived:
    /// those who joined and then were never heard of, whom a coordinator most needs to see, though
    /// the prompts give them no line. Few per study, so read at once.
    package func membersWithoutPrompts(studyId: String) async throws -> [String] {
        try await rows("""
            SELECT u.pseudonym FROM memberships m JOIN users u ON u.id = m.user_id
            WHERE m.study_id = \(studyId) AND m.status = \(MembershipStatus.member.rawValue) AND NOT EXISTS
                (SELECT 1 FROM prompts p WHERE p.user_id = m.user_id
                 AND p.questionnaire_id IN (SELECT questionnaire_id FROM questionnaire_links WHERE study_id = \(studyId)))
            ORDER BY u.pseudonym
            """).map { try $0["pseudonym"] }
    }
}

/// The kinds of event a prompt has, as the bits of `prompts.kinds` (only the kinds that decide an
/// outcome have one).
enum PromptKinds {
    static func bit(_ kind: PromptEventKind) -> Int {
        switch kind {
        case .delivered: 1
        case .completed: 2
        case .late: 4
        case .expired: 8
        case .withdrawn: 16
        case .planned, .opened, .snoozed: 0
        }
    }

    static func flags(_ bits: Int) -> PromptFlags {
        PromptFlags(kinds: PromptEventKind.allCases.filter { bit($0) & bits != 0 })
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
