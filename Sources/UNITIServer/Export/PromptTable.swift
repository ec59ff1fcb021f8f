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
        ExportColumn(name: "site", text: "The participant's site (empty: none)", type: .text, level: .nominal),
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
        /// The participant's site (empty: none); the exports fill it in.
        var site = ""

        var cells: [String] {
            func local(_ time: OffsetTimestamp?) -> String { time?.text ?? "" }
            func utc(_ time: OffsetTimestamp?) -> String { time.map { Timestamps.format($0.date) } ?? "" }
            func seconds(_ value: Double?) -> String { value.map { String(Int($0.rounded())) } ?? "" }
            return [participant, questionnaire, module, prompt, studyDay.map(String.init) ?? "", String(dayIndex),
                    utc(scheduled), local(scheduled), utc(delivered), local(delivered), channel ?? "", utc(opened), snoozed ? "1" : "0",
                    outcome, sheet?.uuidString.lowercased() ?? "", seconds(secondsToFirstAnswer), seconds(secondsToSaving),
                    String(scheduled.offsetSeconds / 60), site]
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
        private var current: (userId: Int64, promptId: String, kinds: Int, row: Row,
                              answered: (first: Date?, saved: Date?)?)?
        /// The participant, questionnaire and local day (days since 1970) of the last row, and its index.
        private var day: (pseudonym: String, questionnaire: String, day: Int, index: Int)?
        private(set) var count = 0

        /// Adds an event; returns the previous prompt's row when this one starts another.
        mutating func add(_ event: ServerStore.StudyPromptEvent) throws -> Row? {
            var done: Row?
            if let open = current, open.userId != event.userId || open.promptId != event.promptId { done = finish() }
            if current == nil {
                current = (event.userId, event.promptId, 0, try start(event), nil)
            }
            current!.kinds |= PromptKinds.bit(event.kind)
            try apply(event, to: &current!.row)
            if event.kind == .completed || event.kind == .late { current!.answered = (event.firstAnswer, event.saved) }
            return done
        }

        /// The last prompt's row, once its events are all in.
        mutating func finish() -> Row? {
            guard var open = current else { return nil }
            current = nil
            // The bits the adherence report counts by (``PromptKinds``), so the two cannot differ.
            open.row.outcome = PromptTable.outcome(PromptKinds.flags(open.kinds))
            // Timed from the delivery, whichever of the prompt's events arrived first.
            if let delivered = open.row.delivered?.date, let answered = open.answered {
                open.row.secondsToFirstAnswer = answered.first.map { $0.timeIntervalSince(delivered) }
                open.row.secondsToSaving = answered.saved.map { $0.timeIntervalSince(delivered) }
            }
            count += 1
            return open.row
        }

        private mutating func start(_ event: ServerStore.StudyPromptEvent) throws -> Row {
            let scheduled = try PromptTable.timestamp(event.due, of: event)
            // Local days in the due time's offset: whole days of 86,400 seconds since 1970, as a
            // calendar in that fixed offset counts them.
            let localDay = PromptTable.day(of: scheduled.date, offsetSeconds: scheduled.offsetSeconds)
            let index: Int
            if let last = day, last.day == localDay, last.pseudonym == event.pseudonym, last.questionnaire == event.questionnaireId {
                index = last.index + 1
            } else {
                index = 1
            }
            day = (event.pseudonym, event.questionnaireId, localDay, index)
            let studyDay = event.joinedAt.map { localDay - PromptTable.day(of: $0, offsetSeconds: scheduled.offsetSeconds) + 1 }
            return Row(participant: event.pseudonym, questionnaire: event.questionnaireId, module: event.moduleId,
                       prompt: event.promptId, studyDay: studyDay, dayIndex: index, scheduled: scheduled, delivered: nil,
                       channel: nil, opened: nil, snoozed: false, outcome: "planned", sheet: nil,
                       secondsToFirstAnswer: nil, secondsToSaving: nil)
        }

        private func apply(_ event: ServerStore.StudyPromptEvent, to row: inout Row) throws {
            switch event.kind {
            case .delivered:
                row.delivered = try event.localAt.map { try PromptTable.timestamp($0, of: event) }
                row.channel = event.channel
            case .opened: row.opened = try event.localAt.map { try PromptTable.timestamp($0, of: event) }
            case .snoozed: row.snoozed = true
            case .completed, .late:
                // A prompt has at most one of them (a late answer is one no completion had).
                row.sheet = event.sheetId.flatMap(UUID.init(uuidString:))
            case .planned, .expired, .withdrawn: break
            }
        }
    }

    /// The local day of `date` at a fixed UTC offset, as days since 1970-01-01.
    static func day(of date: Date, offsetSeconds: Int) -> Int {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offsetSeconds
        return seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
    }

    /// A stored event's time with its offset; a stored text that is not one is a damaged store.
    static func timestamp(_ text: String, of event: ServerStore.StudyPromptEvent) throws -> OffsetTimestamp {
        guard let time = OffsetTimestamp(parsing: text) else {
            throw StoreCorruption("prompt event of \(event.promptId) holds the time \"\(text)\", not an ISO 8601 time with an offset")
        }
        return time
    }
}

extension ServerStore {
    /// One prompt event of a study's participant, with what the prompt table needs beside it:
    /// the stored event's columns, and of its JSON only the two times whose offsets the columns
    /// (UTC seconds) do not keep.
    struct StudyPromptEvent: Sendable {
        var userId: Int64
        var pseudonym: String
        var promptId: String
        var questionnaireId: String
        var moduleId: String
        var kind: PromptEventKind
        /// When the prompt was due, with its offset, as the device sent it.
        var due: String
        /// When a delivered or opened event happened, with its offset (nil for other kinds).
        var localAt: String?
        var channel: String?
        var sheetId: String?
        /// When the participant last became a member of the study (nil: unknown).
        var joinedAt: Date?
        /// The answering sheet (completed and late events whose sheet the server holds): its end,
        /// its start and its first answer.
        var endedAt: Date?
        var startedAt: Date?
        var firstAnswerText: String?

        /// When the answering sheet was saved.
        var saved: Date? { endedAt ?? startedAt }
        /// When its first answer was given.
        var firstAnswer: Date? { firstAnswerText.flatMap { OffsetTimestamp(parsing: $0)?.date } }
    }

    /// The prompt events of the study's questionnaires, ordered by pseudonym, questionnaire, the
    /// prompt's due time and id, and the order they arrived in; handed to `body` one at a time.
    /// A prompt's events come after each other, `delivered` before `completed` or `late` (the
    /// device records them in that order).
    ///
    /// The fields come from the event's columns; the two offset times are taken out of its JSON
    /// by the database (decoding the whole event in Swift was a third of a large export's time;
    /// Scripts/bench/prompt-table).
    func promptEvents(studyId: String, userId: Int64? = nil, _ body: @escaping @Sendable (StudyPromptEvent) throws -> Void) async throws {
        let questionnaires = try await questionnaireLinks(studyId: studyId).map(\.questionnaireId)
        guard !questionnaires.isEmpty else { return }
        let person: SQL = userId.map { " AND e.user_id = \($0)" } ?? ""
        try await database.forEachRow("""
            SELECT e.user_id, u.pseudonym, e.prompt_id, e.questionnaire_id, e.module_id, e.kind,
                \(sqlite: "json_extract(e.event, '$.dueAt')", postgres: "e.event::json ->> 'dueAt'") AS due,
                CASE WHEN e.kind IN ('delivered', 'opened')
                     THEN \(sqlite: "json_extract(e.event, '$.at')", postgres: "e.event::json ->> 'at'") END AS local_at,
                e.channel, e.sheet_id, m.joined_at, s.ended_at, s.started_at,
                (SELECT MIN(a.answered_at) FROM answers a WHERE a.sheet_id = s.id) AS first_answer_text
            FROM prompt_events e
            JOIN users u ON u.id = e.user_id
            LEFT JOIN memberships m ON m.user_id = e.user_id AND m.study_id = \(studyId)
            LEFT JOIN answer_sheets s ON e.sheet_id IS NOT NULL AND s.user_id = e.user_id AND s.client_id = e.sheet_id
            WHERE e.questionnaire_id IN (\(list: questionnaires))\(person)
            ORDER BY u.pseudonym, e.questionnaire_id, e.due_at, e.prompt_id, e.id
            """) { row in
            // Read in the statement's order, each column found where it is looked for first: by
            // hand, not by ``SQLRow/decode(_:prefix:naming:)``, whose Decodable containers cost a
            // fifth of a large export's time here (Scripts/bench/prompt-table).
            var position = 0
            func column<T: SQLDecodable>(_ name: String) throws -> T { try row.cell(name, at: &position).read(column: name) }
            let userId: Int64 = try column("user_id"), pseudonym: String = try column("pseudonym")
            let promptId: String = try column("prompt_id"), questionnaireId: String = try column("questionnaire_id")
            let moduleId: String = try column("module_id"), kindName: String = try column("kind")
            guard let kind = PromptEventKind(rawValue: kindName) else {
                throw StoreCorruption("prompt event of kind \"\(kindName)\", which no device records")
            }
            try body(StudyPromptEvent(
                userId: userId, pseudonym: pseudonym, promptId: promptId, questionnaireId: questionnaireId, moduleId: moduleId, kind: kind,
                due: try column("due"), localAt: try column("local_at"), channel: try column("channel"), sheetId: try column("sheet_id"),
                joinedAt: try column("joined_at"), endedAt: try column("ended_at"), startedAt: try column("started_at"),
                firstAnswerText: try column("first_answer_text")))
        }
    }
}
