import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText
import Synchronization

/// Participants: a study's members with their adherence, and the join requests to decide.
extension ConsolePage {
    static let participants = study("participants", "studies/:study/participants", .viewer, tab: "participants") {
        try await $0.participants($1, $2)
    }
    static let decideRequest = study("decideRequest", .post, "studies/:study/participants/decide", .editor) {
        try await $0.decideRequest($1, $2)
    }

    /// This feature's pages, in the order of its tabs (``all``).
    static let participantPages: [ConsolePage] = [participants, decideRequest]
}

extension ConsoleRoutes {
    /// Members by pseudonym with their sheets and adherence (flagged by the report's rule,
    /// ``AdherenceReport/console``: below half, or no prompt event for a week), the open join
    /// requests, and those denied (as `join-requests list --all` lists them; an approved one is a
    /// member).
    func participants(_ request: Request, _ context: StudyContext) async throws -> Response {
        let current = context.study, language = context.console.language
        let now = environment.clock.now()
        let counts = AdherenceTotals()
        try await store.adherence(studyId: current.study.id, from: nil, to: nil) { line in counts.add(line) }
        let adherence = counts.byParticipant
        let everyone = try await store.studyParticipants(studyId: current.study.id)
        let members = everyone.filter { $0.status == .member }.map { person -> ConsoleParticipantsPage.Member in
            let line = adherence[person.pseudonym]
            let flags = AdherenceReport.console.flags(rate: line?.counts.rate, lastSync: line?.lastSync, now: now).map {
                PortalText.text($0 == .below ? "console.participants.flagBelow" : "console.participants.flagSilent", language)
            }
            return .init(pseudonym: person.pseudonym, joined: person.joinedAt.map(Self.day) ?? "", lastSheet: person.lastSheetAt.map(Self.day) ?? "",
                         consent: person.consentVersion.map(String.init) ?? "", sheets: person.sheets,
                         rate: line?.counts.rate.map { String(format: "%.0f %%", $0 * 100) } ?? "", flags: flags.joined(separator: ", "))
        }
        func requests(_ status: MembershipStatus) -> [ConsoleParticipantsPage.Request] {
            everyone.filter { $0.status == status }.map { .init(pseudonym: $0.pseudonym, requested: $0.requestedAt.map(Self.day) ?? "") }
        }
        return try await page(ConsoleParticipantsPage(members: members, requests: requests(.pending), denied: requests(.denied),
                                                      canDecide: ConsolePage.decideRequest.allows(current.role)), context,
                              notice: notice(request, language))
    }

    static func day(_ date: Date) -> String { String(Timestamps.format(date).prefix(10)) }

    func decideRequest(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        guard let person = try await store.studyParticipants(studyId: studyId).first(where: { $0.pseudonym == form["participant"] }),
              ["approve", "deny"].contains(form["decision"]) else { throw ConsoleRefusal(.unprocessableContent, "console.error.noRequest") }
        try await administration(context).decideJoinRequest(studyId: studyId, userId: person.userId,
                                                            status: form["decision"] == "approve" ? .member : .denied)
        return context.console.base.redirect(to: "/console/studies/\(studyId)/participants?notice=decided")
    }
}

/// Adherence lines summed per participant over the study's questionnaires (the store hands them
/// over one at a time, on its reading thread).
final class AdherenceTotals: Sendable {
    struct Total: Sendable {
        var counts = AdherenceCounts()
        var lastSync: Date?
    }

    private let totals = Mutex<[String: Total]>([:])

    func add(_ line: ServerStore.AdherenceLine) {
        totals.withLock { totals in
            var total = totals[line.participant] ?? Total()
            total.counts.add(line.counts)
            total.lastSync = [total.lastSync, line.lastSync].compactMap { $0 }.max()
            totals[line.participant] = total
        }
    }

    var byParticipant: [String: Total] { totals.withLock { $0 } }
}
