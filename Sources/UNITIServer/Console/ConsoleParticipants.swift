import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Participants: a study's members with their adherence, and the join requests to decide.
extension ConsolePage {
    static let participants = study("participants", "studies/:study/participants", .viewer, tab: "participants", site: true) {
        try await $0.participants($1, $2)
    }
    static let decideRequest = study("decideRequest", .post, "studies/:study/participants/decide", .editor, site: true) {
        try await $0.decideRequest($1, $2)
    }

    /// This feature's pages, in the order of its tabs (``all``).
    static let participantPages: [ConsolePage] = [participants, participant, decideRequest, randomise]
}

extension ConsoleRoutes {
    /// Members by pseudonym, each linked to their page (``ConsolePage/participant``), with their
    /// sheets, their last answer and adherence (flagged by the report's rule,
    /// ``AdherenceReport/console``: below half, or no prompt event for a week, and by a consent
    /// version they have not agreed to); then those who left (withdrawn ones without data), how
    /// many deleted their account, the open join requests, and those denied (as
    /// `join-requests list --all` lists them; an approved one is a member).
    func participants(_ request: Request, _ context: StudyContext) async throws -> Response {
        let current = context.study, language = context.console.language
        let now = environment.clock.now()
        let adherence = try await store.adherenceByParticipant(studyId: current.study.id)
        let everyone = try await store.studyParticipants(studyId: current.study.id).filter(current.reaches)
        let departures = try await store.departures(studyId: current.study.id)
        let sorting = ParticipantSorting(request.uri.queryParameters)
        let consentVersion = current.study.consentVersion
        // Everyone's order is decided on the keys alone; the texts are made for the page shown.
        let listed = everyone.filter { $0.status == .member || $0.status == .left }.map { person -> ParticipantSorting.Key in
            let withdrawn = person.status == .left && departures.answersDeleted[person.pseudonym] == true
            guard !withdrawn else { return .init(person: person, withdrawn: true, rate: nil, lastSync: nil, flags: []) }
            let line = adherence[person.userId]
            var flags: [ParticipantSorting.Flag] = person.status == .left ? [] : AdherenceReport.console.flags(
                rate: line?.counts.rate, lastSync: line?.lastSync, now: now).map { $0 == .below ? .below : .silent }
            if person.status == .member, let version = consentVersion, (person.consentVersion ?? 0) < version { flags.append(.consent) }
            return .init(person: person, withdrawn: false, rate: line?.counts.rate, lastSync: line?.lastSync, flags: flags)
        }
        let sorted = listed.sorted { sorting.order($0, $1) }
        let pages = max(1, (sorted.count + ParticipantSorting.pageSize - 1) / ParticipantSorting.pageSize), shown = min(sorting.page, pages)
        let members = sorted.dropFirst((shown - 1) * ParticipantSorting.pageSize).prefix(ParticipantSorting.pageSize).map { key in
            let person = key.person
            let status = PortalText.text("console.participant.status.\(key.withdrawn ? "withdrawn" : person.status.rawValue)", language)
            guard !key.withdrawn else {
                return ConsoleParticipantsPage.Member(pseudonym: person.pseudonym, status: status, joined: "", lastAnswer: "", consent: "",
                                                      sheets: "", rate: "", flags: "")
            }
            let flags = key.flags.map { flag in
                switch flag {
                case .below: PortalText.text("console.participants.flagBelow", language)
                case .silent: PortalText.text("console.participants.flagSilent", language)
                case .consent: PortalText.text("console.participants.flagConsent", language, ["version": "\(consentVersion ?? 0)"])
                }
            }
            return ConsoleParticipantsPage.Member(pseudonym: person.pseudonym, status: status, joined: person.joinedAt.map(Self.day) ?? "",
                                                  lastAnswer: person.lastAnswerAt.map(Timestamps.format) ?? "",
                                                  consent: person.consentVersion.map(String.init) ?? "", sheets: String(person.sheets),
                                                  rate: key.rate.map { String(format: "%.0f %%", $0 * 100) } ?? "",
                                                  flags: flags.joined(separator: ", "), site: person.site ?? "")
        }
        // A count of the whole study, which a site's staff do not see.
        let deleted = current.site == nil ? departures.accountsDeleted : 0
        let waiting = try await waitingScreenings(current.study.id, people: everyone.filter { $0.status == .pending }, language: language)
        func requests(_ status: MembershipStatus) -> [ConsoleParticipantsPage.Request] {
            everyone.filter { $0.status == status }.map { person in
                var request = ConsoleParticipantsPage.Request(pseudonym: person.pseudonym, requested: person.requestedAt.map(Self.day) ?? "", site: person.site)
                if status == .pending, let screened = waiting[person.userId] { (request.screened, request.screeningAnswers) = screened }
                return request
            }
        }
        let sites = try await siteChoices(current.study.id, chosen: current.site)
        return try await page(ConsoleParticipantsPage(members: members, requests: requests(.pending), denied: requests(.denied),
                                                      canDecide: ConsolePage.decideRequest.allows(current),
                                                      paging: sorting.links(page: shown, of: pages, language: language),
                                                      sorts: sorting.choices(language),
                                                      accountsDeleted: deleted == 0 ? nil : PortalText.text(
                                                        "console.participants.accountsDeleted.\(deleted == 1 ? "one" : "other")", language, ["count": "\(deleted)"]),
                                                      sites: current.site.map { own in sites.filter { $0.id == own } } ?? sites, ownSite: current.site,
                                                      canAssign: !sites.isEmpty && ConsolePage.assignSite.allows(current)),
                              context,
                              notice: notice(request, language))
    }

    static func day(_ date: Date) -> String { String(Timestamps.format(date).prefix(10)) }
    /// The screening answers that wait with open requests, by account: the line saying when the
    /// rules found them eligible, and each answered question with its answer in words.
    private func waitingScreenings(_ studyId: String, people: [StudyParticipant], language: String) async throws
        -> [Int64: (String, [ConsoleParticipantsPage.ScreeningAnswer])] {
        let waiting = Set(people.map(\.userId))
        guard !waiting.isEmpty else { return [:] }
        var found: [Int64: (String, [ConsoleParticipantsPage.ScreeningAnswer])] = [:]
        for entry in try await store.screenings(studyId: studyId) where entry.eligible {
            guard let userId = entry.userId, waiting.contains(userId), let text = entry.answers,
                  let sheet = try? JSONCoding.decode(AnswerSheet.self, from: text) else { continue }
            let definition = try await store.questionnaire(id: sheet.questionnaireID, version: sheet.questionnaireVersion)?.definition
            let answers = (definition?.items ?? []).compactMap { item -> ConsoleParticipantsPage.ScreeningAnswer? in
                guard item.element.isQuestion, let answer = sheet.answers[item.label] else { return nil }
                return .init(question: item.text?.text(in: language) ?? item.label, answer: PortalRoutes.answerText(answer.value, item, language))
            }
            found[userId] = (PortalText.text("console.participants.screenedEligible", language, ["date": Self.day(entry.screenedAt)]), answers)
        }
        return found
    }

    func decideRequest(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id
        guard let person = try await store.studyParticipants(studyId: studyId).first(where: { $0.pseudonym == form["participant"] && context.study.reaches($0) }),
              ["approve", "deny"].contains(form["decision"]) else { throw ConsoleRefusal(.unprocessableContent, "console.error.noRequest") }
        try await administration(context).decideJoinRequest(studyId: studyId, userId: person.userId,
                                                            status: form["decision"] == "approve" ? .member : .denied)
        return context.console.base.redirect(to: "/console/studies/\(studyId)/participants?notice=decided")
    }
}

/// The participants page's order and page (`?sort=rate&page=3`): 100 a page, so a study of
/// 10,000 participants is a hundred pages, not one table the browser must lay out. By
/// pseudonym (those who left last), by rate (lowest first, none last), by last answer (the
/// longest silent first) or by flags (most first); ties by pseudonym.
struct ParticipantSorting {
    static let pageSize = 100
    static let orders = ["pseudonym", "rate", "lastAnswer", "flags"]
    let sort: String
    let page: Int

    /// A listed participant: what the order reads, and the page's row is made from.
    struct Key {
        var person: StudyParticipant
        /// Left with their answers deleted: listed without data.
        var withdrawn: Bool
        var rate: Double?
        var lastSync: Date?
        var flags: [Flag]

        var pseudonym: String { person.pseudonym }
        var left: Bool { person.status == .left }
        var lastAnswer: Date? { withdrawn ? nil : person.lastAnswerAt }
    }

    /// The flags of a participant's row: below half answered in time, no prompt event for a
    /// week (``AdherenceReport/console``), a consent version not agreed to.
    enum Flag { case below, silent, consent }

    init(_ query: some Sequence<(key: Substring, value: Substring)>) {
        var sort = "pseudonym", page = 1
        for (key, value) in query {
            if key == "sort", Self.orders.contains(String(value)) { sort = String(value) }
            if key == "page", let number = Int(value), number >= 1 { page = number }
        }
        (self.sort, self.page) = (sort, page)
    }

    func order(_ a: Key, _ b: Key) -> Bool {
        if a.left != b.left { return !a.left }
        switch sort {
        case "rate" where a.rate != b.rate: return (a.rate ?? .infinity) < (b.rate ?? .infinity)
        case "lastAnswer" where a.lastAnswer != b.lastAnswer: return (a.lastAnswer ?? .distantPast) < (b.lastAnswer ?? .distantPast)
        case "flags" where a.flags.count != b.flags.count: return a.flags.count > b.flags.count
        default: return a.pseudonym < b.pseudonym
        }
    }

    func links(page: Int, of pages: Int, language: String) -> ConsoleParticipantsPage.Paging? {
        guard pages > 1 else { return nil }
        func link(_ number: Int) -> String? { (1...pages).contains(number) ? "participants?sort=\(sort)&page=\(number)" : nil }
        return .init(text: PortalText.text("console.participants.page", language, ["page": "\(page)", "pages": "\(pages)"]),
                     previous: link(page - 1), next: link(page + 1))
    }

    func choices(_ language: String) -> [ConsoleParticipantsPage.Sort] {
        Self.orders.map { .init(href: "participants?sort=\($0)", label: PortalText.text("console.participants.sort.\($0)", language), chosen: $0 == sort) }
    }
}
