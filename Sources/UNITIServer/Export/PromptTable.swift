import Foundation
import Synchronization
import UNITIProtocol

/// The prompt table of a study (Documentation/adherence.md, "The prompt table"): one row per
/// prompt of every participant, with what happened to it, for the analyses that need the prompt
/// itself (compliance over the day or the study, time-lagged models, "prompted and did not
/// answer"). Built from the prompt events the devices synced, with the outcome by the one
/// definition the adherence report counts by (``PromptFlags``): per participant and
/// questionnaire the rows' outcomes add up to `uniti-server adherence`'s line exactly.
/// Streamed: the memory of one prompt, whatever the study's size.
enum PromptTable {
    /// The columns' names, in order (``columns`` says what each is).
    static let header = columns.map(\.name)

    /// What each column is, for the R script, the README and the codebooks (``ExportColumn``).
    static let columns: [ExportColumn] = [
        ExportColumn(name: "participant", text: "Participant's study pseudonym", type: .text, level: .nominal),
        ExportColumn(name: "questionnaire", text: "Questionnaire the prompt asks for", type: .text, level: .nominal),
        ExportColumn(name: "module", text: "Module that prompted", type: .text, level: .nominal),
        ExportColumn(name: "prompt", text: "Prompt id (module, rule, local date and time)", type: .text, level: .nominal),
        ExportColumn(name: "study_day", text: "Study day (1 = the local day of joining)", type: .integer, level: .scale),
        ExportColumn(name: "day_index", text: "The prompt's number in its local day (for this questionnaire)", type: .integer, level: .ordinal),
        ExportColumn(name: "scheduled_utc", text: "Time the prompt was due (UTC)", type: .utcTime, level: .scale),
        ExportColumn(name: "scheduled_local", text: "Time the prompt was due (participant's local time)", type: .localTime, level: .scale),
        ExportColumn(name: "delivered_utc", text: "Time the prompt was delivered (UTC)", type: .utcTime, level: .scale),
        ExportColumn(name: "delivered_local", text: "Time the prompt was delivered (participant's local time)", type: .localTime, level: .scale),
        ExportColumn(name: "channel", text: "What delivered it: shell or daemon", type: .text, level: .nominal),
        ExportColumn(name: "opened_utc", text: "Time the questionnaire was begun from it (UTC)", type: .utcTime, level: .scale),
        ExportColumn(name: "snoozed", text: "Snoozed once (1) or not (0)", type: .chosen, level: .nominal),
        ExportColumn(name: "outcome", text: "completed, late, missed, open, withdrawn or planned", type: .text, level: .nominal),
        ExportColumn(name: "sheet", text: "The sheet that answered it", type: .text, level: .nominal),
        ExportColumn(name: "seconds_to_first_answer", text: "Seconds from the delivery to the first answer", type: .integer, level: .scale),
        ExportColumn(name: "seconds_to_saving", text: "Seconds from the delivery to saving the sheet", type: .integer, level: .scale),
        ExportColumn(name: "utc_offset_minutes", text: "The prompt's UTC offset in minutes", type: .integer, level: .scale),
    ]

    /// One prompt as its row shows it.
    struct Row: Sendable, Equatable {
        var participant: String
        var questionnaire: String
        var module: String
        var prompt: String
        /// 1 on the day of joining, counted in the participant's local days (the due time's
        /// offset); nil when the joining time is unknown (a member of old).
        var studyDay: Int?
        /// 1 for the participant's first prompt of this questionnaire on that local day.
        var dayIndex: Int
        var scheduled: OffsetTimestamp
        var delivered: OffsetTimestamp?
        var channel: String?
        var opened: OffsetTimestamp?
        var snoozed: Bool
        /// `completed` (answered in time), `late`, `missed`, `open`, `withdrawn`, or `planned`
        /// (neither delivered nor withdrawn yet: no outcome, not counted).
        var outcome: String
        var sheet: UUID?
        var secondsToFirstAnswer: Double?
        var secondsToSaving: Double?

        var cells: [String] {
            func local(_ time: OffsetTimestamp?) -> String { time?.text ?? "" }
            func utc(_ time: OffsetTimestamp?) -> String { time.map { Timestamps.format($0.date) } ?? "" }
            func seconds(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "" }
            return [participant, questionnaire, module, prompt, studyDay.map(String.init) ?? "", String(dayIndex),
                    utc(scheduled), local(scheduled), utc(delivered), local(delivered), channel ?? "", utc(opened), snoozed ? "1" : "0",
                    outcome, sheet?.uuidString.lowercased() ?? "", seconds(secondsToFirstAnswer), seconds(secondsToSaving),
                    String(scheduled.offsetSeconds / 60)]
        }
    }

    /// The outcome's word in the table.
    static func outcome(_ flags: PromptFlags) -> String {
        switch flags.outcome {
        case .answeredInTime: "completed"
        case .late: "late"
        case .missed: "missed"
        case .open: "open"
        case .withdrawn: "withdrawn"
        case nil: "planned"
        }
    }

    /// The study's prompts (with `userId`, that person's), ordered by pseudonym, questionnaire and
    /// due time, handed to `body` one at a time; returns how many.
    @discardableResult
    static func rows(of studyId: String, in store: ServerStore, userId: Int64? = nil,
                     _ body: @escaping @Sendable (Row) throws -> Void) async throws -> Int {
        let builder = Mutex(Builder())
        try await store.promptEvents(studyId: studyId, userId: userId) { event in
            if let row = try builder.withLock({ try $0.add(event) }) { try body(row) }
        }
        if let last = builder.withLock({ $0.finish() }) { try body(last) }
        return builder.withLock { $0.count }
    }

    /// Gathers one prompt's events (they come together, in order) into its row.
    struct Builder {
        private var current: (key: String, kinds: Set<PromptEventKind>, row: Row, answered: (first: Date?, saved: Date?)?)?
        /// The participant, questionnaire and local day of the last row, and its index.
        private var day: (key: String, index: Int)?
        private(set) var count = 0

        /// Adds an event; returns the previous prompt's row when this one starts another.
        mutating func add(_ event: ServerStore.StudyPromptEvent) throws -> Row? {
            let key = "\(event.userId)\u{0}\(event.promptId)"
            var done: Row?
            if let open = current, open.key != key { done = finish() }
            if current == nil {
                current = (key, [], try start(event), nil)
            }
            current!.kinds.insert(event.event.kind)
            apply(event, to: &current!.row)
            if event.event.kind == .completed || event.event.kind == .late { current!.answered = (event.firstAnswer, event.saved) }
            return done
        }

        /// The last prompt's row, once its events are all in.
        mutating func finish() -> Row? {
            guard var open = current else { return nil }
            current = nil
            open.row.outcome = PromptTable.outcome(PromptFlags(kinds: open.kinds))
            // Timed from the delivery, whichever of the prompt's events arrived first.
            if let delivered = open.row.delivered?.date, let answered = open.answered {
                open.row.secondsToFirstAnswer = answered.first.map { $0.timeIntervalSince(delivered) }
                open.row.secondsToSaving = answered.saved.map { $0.timeIntervalSince(delivered) }
            }
            count += 1
            return open.row
        }

        private mutating func start(_ event: ServerStore.StudyPromptEvent) throws -> Row {
            let scheduled = event.event.dueAt
            let zone = TimeZone(secondsFromGMT: scheduled.offsetSeconds) ?? TimeZone(identifier: "UTC")!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let localDay = calendar.dateComponents([.year, .month, .day], from: scheduled.date)
            let dayKey = "\(event.pseudonym)\u{0}\(event.questionnaireId)\u{0}\(localDay.year!)-\(localDay.month!)-\(localDay.day!)"
            let index = day?.key == dayKey ? day!.index + 1 : 1
            day = (dayKey, index)
            let studyDay = event.joinedAt.flatMap { joined -> Int? in
                guard let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: joined),
                                                         to: calendar.startOfDay(for: scheduled.date)).day else { return nil }
                return days + 1
            }
            return Row(participant: event.pseudonym, questionnaire: event.questionnaireId, module: event.event.moduleId,
                       prompt: event.promptId, studyDay: studyDay, dayIndex: index, scheduled: scheduled, delivered: nil,
                       channel: nil, opened: nil, snoozed: false, outcome: "planned", sheet: nil,
                       secondsToFirstAnswer: nil, secondsToSaving: nil)
        }

        private func apply(_ event: ServerStore.StudyPromptEvent, to row: inout Row) {
            switch event.event.kind {
            case .delivered:
                row.delivered = event.event.at
                row.channel = event.event.channel
            case .opened: row.opened = event.event.at
            case .snoozed: row.snoozed = true
            case .completed, .late:
                // A prompt has at most one of them (a late answer is one no completion had).
                row.sheet = event.event.sheetId
            case .planned, .expired, .withdrawn: break
            }
        }
    }
}

extension ServerStore {
    /// One prompt event of a study's participant, with what the prompt table needs beside it.
    struct StudyPromptEvent: Sendable {
        var userId: Int64
        var pseudonym: String
        var promptId: String
        var questionnaireId: String
        var event: PromptEvent
        /// When the participant last became a member of the study (nil: unknown).
        var joinedAt: Date?
        /// The answering sheet's first answer and its saving (completed and late events whose
        /// sheet the server holds).
        var firstAnswer: Date?
        var saved: Date?
    }

    /// The prompt events of the study's questionnaires, ordered by pseudonym, questionnaire, the
    /// prompt's due time and id, and the order they arrived in; handed to `body` one at a time.
    /// A prompt's events come after each other, `delivered` before `completed` or `late` (the
    /// device records them in that order).
    func promptEvents(studyId: String, userId: Int64? = nil, _ body: @escaping @Sendable (StudyPromptEvent) throws -> Void) async throws {
        let questionnaires = try await questionnaireLinks(studyId: studyId).map(\.questionnaireId)
        guard !questionnaires.isEmpty else { return }
        let person: SQL = userId.map { " AND e.user_id = \($0)" } ?? ""
        try await database.forEachRow("""
            SELECT e.user_id, u.pseudonym, e.prompt_id, e.questionnaire_id, e.event, m.joined_at, s.ended_at, s.started_at,
                (SELECT MIN(a.answered_at) FROM answers a WHERE a.sheet_id = s.id) AS first_answer
            FROM prompt_events e
            JOIN users u ON u.id = e.user_id
            LEFT JOIN memberships m ON m.user_id = e.user_id AND m.study_id = \(studyId)
            LEFT JOIN answer_sheets s ON e.sheet_id IS NOT NULL AND s.user_id = e.user_id AND s.client_id = e.sheet_id
            WHERE e.questionnaire_id IN (\(list: questionnaires))\(person)
            ORDER BY u.pseudonym, e.questionnaire_id, e.due_at, e.prompt_id, e.id
            """) { row in
            let ended: Date? = try row["ended_at"], started: Date? = try row["started_at"], first: String? = try row["first_answer"]
            try body(StudyPromptEvent(
                userId: try row["user_id"], pseudonym: try row["pseudonym"], promptId: try row["prompt_id"],
                questionnaireId: try row["questionnaire_id"],
                event: try JSONCoding.decode(PromptEvent.self, from: try row["event"] as String),
                joinedAt: try row["joined_at"],
                firstAnswer: first.flatMap { OffsetTimestamp(parsing: $0)?.date },
                saved: ended ?? started))
        }
    }
}
