import Foundation

/// What happened to one prompt (a planned reminder to answer a questionnaire, or a module's
/// reminder), as the device recorded it: the lifecycle planned → delivered → opened →
/// completed, or expired (then perhaps answered late), or withdrawn when the plan changed before
/// it was due. Each kind happens at most once per prompt, and a recorded event is never changed
/// or removed: history is not rewritten, a delivered prompt stays delivered.
public enum PromptEventKind: String, Codable, Sendable, CaseIterable {
    /// The planner placed the prompt (at most two days ahead).
    case planned
    /// It was announced; ``PromptEvent/channel`` says by which program.
    case delivered
    /// The person started answering its questionnaire.
    case opened
    /// "Remind me in 10 minutes", once, inside the completion window.
    case snoozed
    /// Its questionnaire was saved inside the completion window (``PromptEvent/sheetId``).
    case completed
    /// The completion window ended without an answer.
    case expired
    /// Its questionnaire was saved after the window ended (``PromptEvent/sheetId``).
    case late
    /// The plan changed before it was due (a window moved, a day turned off, a study left).
    case withdrawn
}

/// One prompt event as the client sends it to `POST /api/v1/prompts/events` and keeps it.
///
/// `id` is name-based (``PromptEvent/eventID(promptId:kind:)``): the same event recorded twice
/// (two programs, a retried upload) is one, so the server stores it once.
public struct PromptEvent: Codable, Hashable, Sendable {
    public var id: UUID
    /// The prompt's stable id: module, rule, local date and wall-clock time (`tys/daily/2026-11-27T09:12`).
    public var promptId: String
    public var moduleId: String
    /// The questionnaire the prompt asks for; nil for a reminder that is only a message.
    public var questionnaireId: String?
    public var kind: PromptEventKind
    /// When it happened, by the device's clock.
    public var at: OffsetTimestamp
    /// When the prompt was due.
    public var dueAt: OffsetTimestamp
    /// The end of the completion window (delivered events): until then an answer counts as in time.
    public var expiresAt: OffsetTimestamp?
    /// Who delivered it (delivered events): `shell` (the shell at its prompt) or `daemon` (`reminders run`).
    public var channel: String?
    /// The answer sheet (completed and late events).
    public var sheetId: UUID?

    public init(promptId: String, moduleId: String, questionnaireId: String?, kind: PromptEventKind, at: OffsetTimestamp,
                dueAt: OffsetTimestamp, expiresAt: OffsetTimestamp? = nil, channel: String? = nil, sheetId: UUID? = nil) {
        self.id = Self.eventID(promptId: promptId, kind: kind)
        self.promptId = promptId
        self.moduleId = moduleId
        self.questionnaireId = questionnaireId
        self.kind = kind
        self.at = at
        self.dueAt = dueAt
        self.expiresAt = expiresAt
        self.channel = channel
        self.sheetId = sheetId
    }

    /// The id of a prompt's event of `kind`: each kind happens once per prompt, so the pair names it.
    public static func eventID(promptId: String, kind: PromptEventKind) -> UUID {
        UUID(uuidString: FHIRResourceID.named("prompt-event:\(promptId)#\(kind.rawValue)").uuid)!
    }
}

/// `POST /api/v1/prompts/events`: 1 to 500 events.
public struct PromptEventBatch: Codable, Hashable, Sendable {
    public var events: [PromptEvent]
    public init(events: [PromptEvent]) { self.events = events }
}

/// The ids the server holds now (stored by this request or before), in the order sent.
public struct PromptEventBatchResult: Codable, Hashable, Sendable {
    public var stored: [UUID]
    public init(stored: [UUID]) { self.stored = stored }
}
