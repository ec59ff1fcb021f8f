import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol

/// The trial tab (issue 48): a randomised study's design, its allocations per stratum and arm,
/// each arm's completion of each visit and the CONSORT flow (drawn, and as SVG and JSON), the
/// allocation list for those who export; and on the team page an owner's blinding and audited
/// unblinding of a member. A member blind to allocation sees every arm as its code, here, on a
/// participant's page and in what they download.
extension ConsolePage {
    static let trial = study("trial", "studies/:study/trial", .viewer, tab: "trial") { try await $0.trial($2) }
    static let consortSVG = study("consortSVG", "studies/:study/trial/consort.svg", .viewer) { try await $0.consort($1, $2, json: false) }
    static let consortJSON = study("consortJSON", "studies/:study/trial/consort.json", .viewer) { try await $0.consort($1, $2, json: true) }
    static let allocationList = study("allocationList", "studies/:study/trial/allocations.csv", .statistician) { try await $0.allocationList($2) }
    static let seedFile = study("seedFile", "studies/:study/trial/seed.json", only: .statistician) { try await $0.seedFile($2) }
    static let blindMember = study("blindMember", .post, "studies/:study/team/blind", .owner) { try await $0.blind($1, $2, true) }
    static let unblindMember = study("unblindMember", .post, "studies/:study/team/unblind", .owner) { try await $0.blind($1, $2, false) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let trialPages: [ConsolePage] = [trial, consortSVG, consortJSON, allocationList, seedFile, blindMember, unblindMember]
}

struct ConsoleTrialPage: PortalPage {
    var template: String { "console_trial" }
    var randomised: Bool
    var blinded = false
    var method = ""
    var arms: [Arm] = []
    var factors: [Factor] = []
    var visits: [Visit] = []
    var hasVisits = false
    /// The allocation table: a header per arm, a row per stratum and the total.
    var armHeaders: [String] = []
    var strata: [Row] = []
    /// Per arm and visit, how many participants are in each state.
    var stateHeaders: [String] = []
    var completion: [Row] = []
    /// The CONSORT counts in words, beside the diagram (``ConsortDiagram/lines(_:language:)``).
    var consort: [String] = []
    /// Per site: assessed, randomised, allocated per arm, completed the primary visit; each
    /// site's diagram by its link.
    var siteHeaders: [String] = []
    var sites: [SiteRow] = []
    var canExport = false
    /// Whether the member is the trial's statistician, who downloads the seed.
    var canDownloadSeed = false
    /// The study's screening before joining, whether or not it randomises; nil when it has none.
    var screening: Screening?

    struct Screening: Sendable {
        var questionnaire: String
        var rules: [ScreeningRule]
        var counts: String
    }

    struct ScreeningRule: Sendable { var id: String; var condition: String; var notMet: Int }

    struct Arm: Sendable { var name: String; var ratio: Int }
    struct Factor: Sendable { var id: String; var levels: String; var source: String }
    struct Visit: Sendable { var label: String; var day: Int; var window: Int; var questionnaires: String; var primary: Bool }
    struct Row: Sendable { var name: String; var cells: [String] }
    struct SiteRow: Sendable { var id: String; var name: String; var cells: [String] }
}

extension ConsoleRoutes {
    /// Whether the signed-in member is blind to allocation in the page's study.
    func isBlinded(_ context: StudyContext) async throws -> Bool {
        try await store.isBlinded(staffId: context.staff.member.id, studyId: context.study.study.id)
    }

    func trial(_ context: StudyContext) async throws -> Response {
        let study = context.study.study, language = context.console.language, now = environment.clock.now()
        let screening = try await screeningSection(study.id, language)
        guard let trial = try await store.trial(studyId: study.id) else {
            var page = ConsoleTrialPage(randomised: false)
            page.screening = screening
            return try await self.page(page, context)
        }
        let blinded = try await isBlinded(context), design = trial.design
        let names = ArmNames(trial: trial, blinded: blinded), service = TrialService(administration: administration(context))
        let arms = names.ordered
        var page = ConsoleTrialPage(randomised: true, blinded: blinded)
        page.screening = screening
        page.method = design.method == .blocks
            ? PortalText.text("console.trialPage.blocks", language, ["multiples": design.multiples.map(String.init).joined(separator: ", "), "round": "\(design.round)"])
            : PortalText.text("console.trialPage.minimisation", language, ["probability": PortalText.number(design.preference, language)])
        page.arms = arms.map { .init(name: names.name($0.id), ratio: $0.ratio) }
        page.factors = design.factors.map { factor in
            .init(id: factor.id, levels: factor.levels.joined(separator: ", "), source: factor.from.map {
                PortalText.text("console.trialPage.fromAnswers", language, ["questionnaire": $0.questionnaire, "item": $0.item,
                                                                            "cuts": $0.cuts.map { PortalText.number($0, language) }.joined(separator: ", ")])
            } ?? factor.measure.map { measure in
                PortalText.text("console.trialPage.fromMeasure", language, [
                    "measure": store.modules.stratificationMeasures.first { $0.name == measure.name }?.text.text(in: language) ?? measure.name,
                    "cuts": measure.cuts.map { PortalText.number($0, language) }.joined(separator: ", ")])
            } ?? PortalText.text(factor.fromSite ? "console.trialPage.fromSite" : "console.trialPage.entered", language))
        }
        let visits = design.visits ?? []
        page.visits = visits.map { .init(label: $0.label, day: $0.day, window: $0.window, questionnaires: $0.questionnaires.joined(separator: ", "),
                                         primary: $0.id == design.primary?.id) }
        page.hasVisits = !visits.isEmpty

        let made = try await store.allocations(studyId: study.id)
        page.armHeaders = arms.map { names.id($0.id) }
        page.strata = Dictionary(grouping: made, by: \.allocation.stratum).sorted { $0.key < $1.key }.map { stratum, members in
            .init(name: stratum, cells: arms.map { arm in String(members.filter { $0.allocation.arm == arm.id }.count) })
        } + [.init(name: PortalText.text("console.trialPage.total", language), cells: arms.map { arm in String(made.filter { $0.allocation.arm == arm.id }.count) })]

        if !visits.isEmpty {
            let people = try await service.visits(studyId: study.id, now: now).filter { $0.arm != nil }
            let states = VisitStatus.State.allCases.filter { $0 != .unscheduled }
            page.stateHeaders = states.map { PortalText.text("console.trial.visit.\($0.rawValue)", language) }
            page.completion = arms.flatMap { arm in
                let members = people.filter { $0.arm == arm.id }
                return visits.indices.map { index in
                    ConsoleTrialPage.Row(name: "\(names.id(arm.id)) · \(visits[index].label)",
                                         cells: states.map { state in String(members.filter { $0.visits[index].state == state }.count) })
                }
            }
        }
        let sites = try await store.sites(studyId: study.id)
        let flows = try await service.flows(studyId: study.id, blinded: blinded, sites: [nil] + sites.map(\.id), now: now)
        page.consort = ConsortDiagram.lines(flows[0], language: language)
        if !sites.isEmpty {
            let t = { (key: String) in PortalText.text("console.trialPage.\(key)", language) }
            page.siteHeaders = [t("assessed"), t("randomised")] + names.ordered.map { names.name($0.id) } + (design.primary == nil ? [] : [t("completedPrimary")])
            for (site, flow) in zip(sites, flows.dropFirst()) {
                let completed = flow.arms.compactMap(\.completed)
                page.sites.append(.init(id: site.id, name: "\(site.name) (\(site.id))", cells: [String(flow.assessed), String(flow.randomised)]
                    + names.ordered.map { arm in String(flow.arms.first { $0.arm == names.id(arm.id) }?.allocated ?? 0) }
                    + (design.primary == nil ? [] : [String(completed.reduce(0, +))])))
            }
        }
        page.canExport = ConsolePage.allocationList.allows(context.study)
        page.canDownloadSeed = ConsolePage.seedFile.allows(context.study)
        return try await self.page(page, context)
    }

    /// The screening's questionnaire, its rules in the reader's words and the log's counts.
    private func screeningSection(_ studyId: String, _ language: String) async throws -> ConsoleTrialPage.Screening? {
        guard let screening = try await store.screening(studyId: studyId) else { return nil }
        let counts = ScreeningCounts(try await store.screenings(studyId: studyId), rules: screening.rules.map(\.id))
        func t(_ key: String, _ values: [String: String] = [:]) -> String { PortalText.text("console.trialPage.\(key)", language, values) }
        func number(_ value: Double) -> String { PortalText.number(value, language) }
        return .init(questionnaire: screening.questionnaire, rules: screening.rules.map { rule in
            var parts: [String] = []
            switch (rule.min, rule.max) {
            case let (min?, max?): parts.append(t("ruleFromTo", ["min": number(min), "max": number(max)]))
            case let (min?, nil): parts.append(t("ruleAtLeast", ["min": number(min)]))
            case let (nil, max?): parts.append(t("ruleAtMost", ["max": number(max)]))
            case (nil, nil): break
            }
            if let allowed = rule.in { parts.append(t("ruleOneOf", ["values": allowed.map(number).joined(separator: ", ")])) }
            let reads = rule.item ?? t("ruleScore", ["score": rule.score ?? ""])
            return .init(id: rule.id, condition: "\(rule.text?.text(in: language) ?? reads): \(parts.joined(separator: ", "))",
                         notMet: counts.byRule.first { $0.rule == rule.id }?.count ?? 0)
        }, counts: t("screeningCounts", ["screened": "\(counts.screened)", "eligible": "\(counts.eligible)",
                                          "ineligible": "\(counts.ineligible)", "kept": "\(counts.answersKept)"]))
    }

    /// The CONSORT flow as an SVG file or as JSON, arms by code for a blinded member.
    func consort(_ request: Request, _ context: StudyContext, json: Bool) async throws -> Response {
        let study = context.study.study
        guard try await store.trial(studyId: study.id) != nil else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        let site = request.uri.queryParameters["site"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let flow = try await TrialService(administration: administration(context))
            .flow(studyId: study.id, blinded: try await isBlinded(context), site: site, now: environment.clock.now())
        if json {
            return Self.download(try flow.json(), name: "\(study.id)-consort.json", type: "application/json")
        }
        return Self.download(ConsortDiagram.svg(flow, language: context.console.language), name: "\(study.id)-consort.svg", type: "image/svg+xml")
    }

    /// The design and the secret seed as `randomisation seed` writes them, for the trial's
    /// statistician (``ConsolePage/seedFile``: that role only), audited as `trial.seed`: with
    /// them `randomisation verify --seed-file` makes every allocation again.
    func seedFile(_ context: StudyContext) async throws -> Response {
        let study = context.study.study
        guard let trial = try await store.trial(studyId: study.id) else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        let data = try SeedFile.data(study: study.id, trial: trial)
        try await store.appendAudit(.staff(context.staff.member.id), studyId: study.id, action: "trial.seed",
                                    detail: .object(["file": .string("\(study.id)-seed.json")]), now: environment.clock.now())
        return Response(status: .ok, headers: [.contentType: "application/json", .contentDisposition: "attachment; filename=\"\(study.id)-seed.json\""],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The allocation list (CSV), arms by code for a blinded member; audited as an export.
    func allocationList(_ context: StudyContext) async throws -> Response {
        let study = context.study.study
        guard try await store.trial(studyId: study.id) != nil else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        let text = try await TrialService(administration: administration(context)).allocationList(studyId: study.id, blinded: try await isBlinded(context))
        return Self.download(text, name: "\(study.id)-allocations.csv", type: "text/csv; charset=utf-8")
    }

    /// An owner makes a team member blind to allocation, or (after a confirmation: it cannot be
    /// taken back once they have seen an arm) unblinds them; each is an audit line.
    func blind(_ request: Request, _ context: StudyContext, _ blinded: Bool) async throws -> Response {
        let form = try await PortalForm.read(request), studyId = context.study.study.id, language = context.console.language
        guard let member = try await store.studyTeam(studyId: studyId).first(where: { $0.member.email == form["email"] })?.member else {
            throw ConsoleRefusal(.unprocessableContent, "console.error.notInTeam")
        }
        if !blinded && form["confirm"] != "yes" {
            return try await page(ConsoleConfirmPage(question: PortalText.text("console.team.unblindQuestion", language, ["name": member.name]),
                                                     action: "unblind", email: member.email, submit: PortalText.text("console.team.unblind", language)),
                                  context)
        }
        _ = try await TrialService(administration: administration(context)).setBlinded(blinded, email: member.email, studyId: studyId)
        return context.console.base.redirect(to: "/console/studies/\(studyId)/team?notice=\(blinded ? "memberBlinded" : "memberUnblinded")")
    }
}
