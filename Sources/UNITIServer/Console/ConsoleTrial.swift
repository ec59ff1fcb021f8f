import Foundation
import Hummingbird
import UNITIProtocol

/// Randomising from a participant's page (issue 48): in a randomised study the page shows the
/// allocation once made, or else what stands in the way (each in the member's language) and, for
/// an editor or owner, the levels staff enter and the button that randomises. The rules are
/// ``TrialService``'s, as on the command line.
extension ConsolePage {
    static let randomise = study("randomise", .post, "studies/:study/participants/:participant/randomise", .editor, site: true) { try await $0.randomise($1, $2) }
}

/// The participant page's randomisation section.
struct ConsoleTrialSection: Sendable {
    var allocated: String?
    var missing: [String] = []
    var known: [Level] = []
    var entries: [Entry] = []
    /// Whether the member may randomise now (an editor or owner, and only levels to enter are missing).
    var canRandomise = false
    /// For the template (it reads stored values): whether `known` and `missing` hold anything.
    var hasKnown = false
    var hasMissing = false

    /// The visits (when the design has any): each with its window and state.
    var visits: [Visit] = []
    var hasVisits = false

    struct Visit: Sendable { var label: String; var window: String; var state: String; var done: String }
    struct Level: Sendable { var factor: String; var level: String }
    struct Entry: Sendable { var factor: String; var levels: [String] }
}

extension ConsoleRoutes {
    /// The section for a member of a randomised study; nil when the study has no trial, or the
    /// person is neither randomised nor a member.
    func trialSection(_ context: StudyContext, person: StudyParticipant) async throws -> ConsoleTrialSection? {
        let study = context.study.study, language = context.console.language
        guard let trial = try await store.trial(studyId: study.id) else { return nil }
        let service = TrialService(administration: administration(context))
        // The visits, each window as the days it spans (UTC).
        let visits = try await service.visits(studyId: study.id, participant: person, now: environment.clock.now()).first?.visits ?? []
        let rows = visits.map { status in
            ConsoleTrialSection.Visit(
                label: status.visit.label,
                window: status.opens.flatMap { opens in status.closes.map { "\(Self.day(opens)) – \(Self.day($0.addingTimeInterval(-1)))" } } ?? "",
                state: PortalText.text("console.trial.visit.\(status.state.rawValue)", language), done: status.doneAt.map(Timestamps.format) ?? "")
        }
        if let made = try await store.allocation(studyId: study.id, userId: person.userId) {
            let names = ArmNames(trial: trial, blinded: try await isBlinded(context))
            return ConsoleTrialSection(allocated: PortalText.text("console.trial.allocated", language, [
                "number": "\(made.allocation.sequence)", "time": Timestamps.format(made.allocatedAt), "stratum": made.allocation.stratum,
                "arm": names.name(made.allocation.arm),
            ]), visits: rows, hasVisits: !rows.isEmpty)
        }
        guard person.status == .member else { return nil }
        let (design, readiness) = try await service.readiness(studyId: study.id, pseudonym: person.pseudonym, entered: [:])
        var section = ConsoleTrialSection(visits: rows, hasVisits: !rows.isEmpty)
        for missing in readiness.missing {
            switch missing {
            case .consent(let version):
                section.missing.append(PortalText.text("console.trial.missing.consent", language, ["version": "\(version)"]))
            case .answer(let factor, let questionnaire, let item):
                section.missing.append(PortalText.text("console.trial.missing.answer", language,
                                                       ["factor": factor, "questionnaire": questionnaire, "item": item]))
            case .entry(let factor, let levels):
                section.entries.append(.init(factor: factor, levels: levels))
            case .site(let factor):
                section.missing.append(PortalText.text("console.trial.missing.site", language, ["factor": factor]))
            case .measure(let factor, let name):
                section.missing.append(PortalText.text("console.trial.missing.measure", language, ["factor": factor, "measure": name]))
            }
        }
        section.known = design.factors.compactMap { factor in readiness.levels[factor.id].map { .init(factor: factor.id, level: $0) } }
        section.canRandomise = section.missing.isEmpty && ConsolePage.randomise.allows(context.study)
        (section.hasKnown, section.hasMissing) = (!section.known.isEmpty, !section.missing.isEmpty)
        return section
    }

    /// Randomises the participant with the levels entered in the form; back to their page with
    /// a notice either way (the page then shows the allocation, or what is still missing).
    func randomise(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), study = context.study.study
        guard let pseudonym = context.parameters.get("participant"),
              let person = try await store.studyParticipants(studyId: study.id, pseudonym: pseudonym).first, context.study.reaches(person),
              let trial = try await store.trial(studyId: study.id) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        var entered: [String: String] = [:]
        for factor in trial.design.factors where factor.from == nil && !factor.fromSite && factor.measure == nil {
            let level = form["level-\(factor.id)"]
            if !level.isEmpty { entered[factor.id] = level }
        }
        let back = ConsolePage.participant.uri(study: study.id, participant: pseudonym)
        do {
            _ = try await TrialService(administration: administration(context)).randomise(studyId: study.id, pseudonym: pseudonym, entered: entered)
        } catch is TrialError {
            return context.console.base.redirect(to: back + "?notice=randomiseRefused")
        }
        return context.console.base.redirect(to: back + "?notice=randomised")
    }
}
