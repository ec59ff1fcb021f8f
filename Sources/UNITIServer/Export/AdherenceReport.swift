import Foundation
import UNITIProtocol

/// The adherence report of a study (Documentation/adherence.md), for `uniti-server adherence`
/// and the console's download and participants page alike: per participant pseudonym and
/// questionnaire the prompts delivered, answered in time, late, missed, open and withdrawn and
/// the rate, flagged by one rule (``Flags``); members of whom no prompt arrived get a line without
/// a questionnaire. Streamed: any number of participants needs the memory of one line.
enum AdherenceReport {
    /// One line of the report.
    struct Line: Encodable, Sendable {
        var participant: String
        var questionnaire: String
        var counts: AdherenceCounts
        var lastSync: String?
        var flags: [Flag]
        /// The participant's site (nil: none); the exports fill it in.
        var site: String?

        /// The cells under ``header``, for the table and the CSV.
        var cells: [String] {
            [participant, questionnaire, "\(counts.delivered)", "\(counts.answeredInTime)", "\(counts.late)", "\(counts.missed)",
             "\(counts.open)", "\(counts.withdrawn)", counts.rate.map { String(format: "%.4f", $0) } ?? "", lastSync ?? "",
             flags.map(\.rawValue).joined(separator: " "), site ?? ""]
        }
    }

    static let header = ["participant", "questionnaire", "delivered", "answered_in_time", "late", "missed", "open", "withdrawn",
                         "rate", "last_sync", "flags", "site"]

    /// What a line is flagged for.
    enum Flag: String, Encodable, Sendable {
        /// The rate is below the chosen one.
        case below
        /// No prompt event arrived for the chosen time (or none ever): the device stopped
        /// syncing, or the participant stopped using the program. A syncing device sends at least
        /// the next days' planned prompts, so the prompt events alone tell.
        case silent
    }

    /// The one rule of the flags, for the report (`--below`, `--silent-days`) and the console
    /// (``console``: the participants page and the download).
    struct Flags: Sendable {
        var below: Double?
        var silentFor: TimeInterval?

        func flags(rate: Double?, lastSync: Date?, now: Date) -> [Flag] {
            var flags: [Flag] = []
            if let below, let rate, rate < below { flags.append(.below) }
            if let silentFor, lastSync.map({ now.timeIntervalSince($0) > silentFor }) ?? true { flags.append(.silent) }
            return flags
        }
    }

    /// What the console flags: below half, silent for a week.
    static let console = Flags(below: 0.5, silentFor: 7 * 86_400)

    /// The report's lines, handed to `body` one at a time: the store's line per participant and
    /// questionnaire, then one for each member with no prompt on record (no questionnaire, no
    /// counts; silent when silence is flagged): they joined and were never heard of, whom a
    /// coordinator most needs to see.
    static func lines(of studyId: String, in store: ServerStore, from: Date?, to: Date?, flags: Flags, now: Date,
                      _ body: @escaping @Sendable (Line) throws -> Void) async throws {
        let line: @Sendable (ServerStore.AdherenceLine) throws -> Void = { stored in
            try body(Line(participant: stored.participant, questionnaire: stored.questionnaireId, counts: stored.counts,
                          lastSync: stored.lastSync.map(Timestamps.format),
                          flags: flags.flags(rate: stored.counts.rate, lastSync: stored.lastSync, now: now)))
        }
        try await store.adherence(studyId: studyId, from: from, to: to, line)
        for participant in try await store.membersWithoutPrompts(studyId: studyId) {
            try line(ServerStore.AdherenceLine(participant: participant, questionnaireId: "", counts: AdherenceCounts(), lastSync: nil))
        }
    }
}
