import Foundation

/// How prompts count for adherence: the one definition the participant's `adherence` and the
/// coordinator's `uniti-server adherence` both use, so that they give the same numbers from the
/// same events (`Documentation/adherence.md` states it for papers).
///
/// A prompt counts when it asks for a questionnaire. From the kinds of event it has:
/// - **withdrawn**: withdrawn and never delivered;
/// - **delivered**: delivered (whatever came later);
/// - **answered in time**: delivered and completed (saved inside the completion window);
/// - **late**: delivered, not completed, answered after the window (`late`);
/// - **missed**: delivered, neither completed nor late, and expired;
/// - **open**: delivered, and its window has not been seen to end yet (no outcome so far).
///
/// The rate is answered in time ÷ (delivered − open): prompts still open are not held against anyone.
public enum PromptOutcome: String, Codable, Sendable, CaseIterable {
    case answeredInTime, late, missed, open, withdrawn
}

/// Which kinds of event one prompt has: all that decides its outcome.
public struct PromptFlags: Hashable, Sendable {
    public var delivered: Bool
    public var completed: Bool
    public var late: Bool
    public var expired: Bool
    public var withdrawn: Bool

    public init(delivered: Bool = false, completed: Bool = false, late: Bool = false, expired: Bool = false, withdrawn: Bool = false) {
        self.delivered = delivered
        self.completed = completed
        self.late = late
        self.expired = expired
        self.withdrawn = withdrawn
    }

    public init(kinds: some Sequence<PromptEventKind>) {
        self.init()
        for kind in kinds {
            switch kind {
            case .delivered: delivered = true
            case .completed: completed = true
            case .late: late = true
            case .expired: expired = true
            case .withdrawn: withdrawn = true
            case .planned, .opened, .snoozed: break
            }
        }
    }

    /// The prompt's outcome; nil when it was only planned (never delivered nor withdrawn), which
    /// does not count.
    public var outcome: PromptOutcome? {
        guard delivered else { return withdrawn ? .withdrawn : nil }
        if completed { return .answeredInTime }
        if late { return .late }
        return expired ? .missed : .open
    }
}

/// The adherence counts of a set of prompts (a day, a questionnaire, a participant).
/// Encoded with its rate (rounded to four places), for `--json` on both sides.
public struct AdherenceCounts: Encodable, Hashable, Sendable {
    public var delivered = 0
    public var answeredInTime = 0
    public var late = 0
    public var missed = 0
    public var open = 0
    public var withdrawn = 0

    public init() {}

    /// Adds `count` prompts with these flags.
    public mutating func add(_ flags: PromptFlags, count: Int = 1) {
        guard let outcome = flags.outcome else { return }
        if flags.delivered { delivered += count }
        switch outcome {
        case .answeredInTime: answeredInTime += count
        case .late: late += count
        case .missed: missed += count
        case .open: open += count
        case .withdrawn: withdrawn += count
        }
    }

    public mutating func add(_ other: AdherenceCounts) {
        delivered += other.delivered
        answeredInTime += other.answeredInTime
        late += other.late
        missed += other.missed
        open += other.open
        withdrawn += other.withdrawn
    }

    /// Answered in time ÷ (delivered − open); nil when no delivered prompt has an outcome yet.
    public var rate: Double? {
        let decided = delivered - open
        return decided > 0 ? Double(answeredInTime) / Double(decided) : nil
    }

    enum CodingKeys: String, CodingKey {
        case delivered, answeredInTime, late, missed, open, withdrawn, rate
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(delivered, forKey: .delivered)
        try c.encode(answeredInTime, forKey: .answeredInTime)
        try c.encode(late, forKey: .late)
        try c.encode(missed, forKey: .missed)
        try c.encode(open, forKey: .open)
        try c.encode(withdrawn, forKey: .withdrawn)
        try c.encodeIfPresent(rate.map { ($0 * 10_000).rounded() / 10_000 }, forKey: .rate)
    }
}

/// The timing rules of prompts.
public enum PromptTiming {
    /// The completion window of a questionnaire that sets none (``QuestionnaireDefinition/completionWindowMinutes``).
    public static let defaultCompletionWindowMinutes = 60
    /// The longest completion window a definition may set: a day.
    public static let completionWindowRange = 1...1440
    /// The late-answer allowances a definition may set (``QuestionnaireDefinition/lateAnswerMinutes``).
    public static let lateAnswerRange = 0...1440
    /// How far back the reminder service looks for snoozed prompts to announce again: a day.
    public static let recentPromptLookBack: TimeInterval = 86_400
    /// How much later a snoozed prompt comes again.
    public static let snoozeDelay: TimeInterval = 600
}

extension AdherenceCounts {
    /// One cell of a day heat-map: how much of a day's decided prompts were answered in time
    /// (`·` nothing delivered, `░` none, `▒` under half, `▓` half or more, `█` all). The shell's
    /// `adherence` and the console's participant page draw the same cells.
    public var heatCell: String {
        guard let rate else { return "·" }
        switch rate {
        case 1...: return "█"
        case 0.5...: return "▓"
        case 0 where answeredInTime == 0: return "░"
        default: return "▒"
        }
    }

    /// Adds one prompt by its outcome as the prompt table writes it (`completed`, `late`,
    /// `missed`, `open`, `withdrawn`; `planned` is not counted).
    public mutating func add(outcome: String) {
        switch outcome {
        case "completed": delivered += 1; answeredInTime += 1
        case "late": delivered += 1; late += 1
        case "missed": delivered += 1; missed += 1
        case "open": delivered += 1; open += 1
        case "withdrawn": withdrawn += 1
        default: break
        }
    }
}
