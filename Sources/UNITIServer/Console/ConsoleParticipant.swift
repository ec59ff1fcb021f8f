import Foundation
import Hummingbird
import Synchronization
import UNITIProtocol

/// One participant's page (`/console/studies/{id}/participants/{pseudonym}`): their standing,
/// the consent versions agreed and outstanding, their devices' sign-ins and last upload, a
/// 14-day heat-map of their prompts as the shell's `adherence` draws it, the prompts (the prompt
/// table's rows) and sheets, and the history of their requests and decisions. Someone who left
/// and had their answers deleted is shown without data, as erasure requires.
extension ConsolePage {
    static let participant = study("participant", "studies/:study/participants/:participant", .viewer, site: true) { try await $0.participant($1, $2) }
}

extension ConsoleRoutes {
    func participant(_ request: Request, _ context: StudyContext) async throws -> Response {
        let study = context.study.study, language = context.console.language, now = environment.clock.now()
        guard let pseudonym = context.parameters.get("participant"),
              let person = try await store.studyParticipants(studyId: study.id, pseudonym: pseudonym).first, context.study.reaches(person) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        let answersDeleted = try await store.departures(studyId: study.id).answersDeleted[pseudonym] ?? false
        let withdrawn = person.status == .left && answersDeleted
        let t = { (key: String) in PortalText.text(key, language) }
        var page = ConsoleParticipantPage(
            pseudonym: pseudonym, status: t("console.participant.status.\(withdrawn ? "withdrawn" : person.status.rawValue)"),
            hasData: !withdrawn, joined: person.joinedAt.map(Timestamps.format) ?? "", requested: person.requestedAt.map(Timestamps.format) ?? "")
        let agreements = try await store.consentAgreements(userId: person.userId, studyId: study.id)
        page.agreements = agreements.map { .init(version: $0.version, agreed: Timestamps.format($0.agreedAt)) }
        if let current = study.consentVersion, (agreements.last?.version ?? 0) < current, person.status == .member,
           let published = try await store.consentVersions(studyId: study.id).first(where: { $0.version == current }) {
            page.outstanding = PortalText.text("console.participant.consentOutstanding", language,
                                               ["version": "\(current)", "date": Self.day(published.publishedAt)])
        }
        page.history = try await store.participantHistory(studyId: study.id, pseudonym: pseudonym).map {
            .init(at: Timestamps.format($0.at), action: PortalText.text("console.participant.action.\($0.action)", language))
        }
        page.site = person.site ?? t("console.participant.noSite")
        // An owner moves anyone; an editor (a site's: to their own) places someone of no site.
        let sites = try await siteChoices(study.id, chosen: person.site)
        if !sites.isEmpty, ConsolePage.assignSite.allows(context.study), person.site == nil || (context.study.role == .owner && context.study.site == nil) {
            page.siteChoices = context.study.site.map { own in sites.filter { $0.id == own } } ?? sites
        }
        page.trial = try await trialSection(context, person: person)
        guard !withdrawn else { return try await self.page(page, context, notice: notice(request, language)) }
        page.alerts = try await store.studyAlerts(studyId: study.id, pseudonym: pseudonym).map { alertRow($0, study: study.id, language) }
        page.canMarkSeen = ConsolePage.markAlertSeen.allows(context.study)
        page.devices = try await store.deviceSessions(userId: person.userId).map {
            .init(started: Timestamps.format($0.started), renewed: $0.renewed.map(Timestamps.format) ?? "", ended: $0.ended.map(Timestamps.format) ?? "")
        }
        page.lastUpload = try await store.lastUpload(userId: person.userId).map(Timestamps.format) ?? ""
        let rows = Mutex<[PromptTable.Row]>([])
        try await PromptTable.rows(of: study.id, in: store, userId: person.userId) { row in rows.withLock { $0.append(row) } }
        let prompts = rows.withLock { $0 }
        (page.heat, page.rate) = Self.heat(prompts, now: now, language: language)
        page.prompts = prompts.sorted { $0.scheduled.date > $1.scheduled.date }.map {
            .init(scheduled: $0.scheduled.text, questionnaire: $0.questionnaire, outcome: t("console.participant.outcome.\($0.outcome)"),
                  delivered: $0.delivered?.text ?? "", sheet: $0.sheet?.uuidString.lowercased() ?? "")
        }
        page.sheets = try await store.participantSheets(userId: person.userId, studyId: study.id).map {
            .init(id: $0.id.uuidString.lowercased(), questionnaire: "\($0.questionnaireID) v\($0.questionnaireVersion)", started: $0.startedAt.text,
                  ended: $0.endedAt?.text ?? "", initiatedBy: $0.initiatedBy.map { t("console.participant.initiatedBy.\($0.rawValue)") } ?? "")
        }
        return try await self.page(page, context, notice: notice(request, language))
    }

    /// The last 14 days of the participant's prompts, by the local day of their scheduled time
    /// (the offset the device gave, so a day is the participant's day), each as the shell's
    /// heat-map cell, and the rate over all their prompts.
    static func heat(_ rows: [PromptTable.Row], now: Date, language: String) -> ([ConsoleParticipantPage.HeatDay], String) {
        func localDay(_ date: Date, offset: Int) -> Int { Int(((date.timeIntervalSince1970 + Double(offset)) / 86_400).rounded(.down)) }
        let offset = rows.max { $0.scheduled.date < $1.scheduled.date }?.scheduled.offsetSeconds ?? 0
        let today = localDay(now, offset: offset)
        var days: [Int: AdherenceCounts] = [:]
        var overall = AdherenceCounts()
        for row in rows {
            overall.add(outcome: row.outcome)
            days[localDay(row.scheduled.date, offset: row.scheduled.offsetSeconds), default: AdherenceCounts()].add(outcome: row.outcome)
        }
        let heat = ((today - 13)...today).map { day -> ConsoleParticipantPage.HeatDay in
            let counts = days[day] ?? AdherenceCounts()
            let date = String(Timestamps.format(Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10))
            return .init(date: date, cell: counts.heatCell,
                         label: PortalText.text("console.participant.heatDay", language, [
                            "date": date, "inTime": "\(counts.answeredInTime)", "delivered": "\(counts.delivered)"]))
        }
        return (heat, overall.rate.map { String(format: "%.0f %%", $0 * 100) } ?? "")
    }
}

struct ConsoleParticipantPage: PortalPage {
    var template: String { "console_participant" }
    var pseudonym: String
    var status: String
    /// False for someone who left with their answers deleted: nothing of theirs is shown.
    var hasData: Bool
    var joined: String
    var requested: String
    var agreements: [Agreement] = []
    /// The current consent version when a member has not agreed to it yet.
    var outstanding: String?
    var devices: [Device] = []
    var lastUpload = ""
    var heat: [HeatDay] = []
    var rate = ""
    var prompts: [Prompt] = []
    var sheets: [Sheet] = []
    var history: [History] = []
    /// The alerts about them, newest first; open ones with the form that marks them seen.
    var alerts: [ConsoleAlertsPage.Alert] = []
    var canMarkSeen = false
    /// In a randomised study: the allocation, or what stands in the way and the form.
    var trial: ConsoleTrialSection?
    /// Their site, and the sites the member may put them at (empty: no form).
    var site = ""
    var siteChoices: [ConsoleSite] = []

    struct Agreement: Sendable { var version: Int; var agreed: String }
    struct Device: Sendable { var started: String; var renewed: String; var ended: String }
    struct HeatDay: Sendable { var date: String; var cell: String; var label: String }
    struct Prompt: Sendable { var scheduled: String; var questionnaire: String; var outcome: String; var delivered: String; var sheet: String }
    struct Sheet: Sendable { var id: String; var questionnaire: String; var started: String; var ended: String; var initiatedBy: String }
    struct History: Sendable { var at: String; var action: String }
}
