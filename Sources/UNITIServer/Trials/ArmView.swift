import Foundation
import UNITIProtocol

/// What a randomised participant's arm gives them now (issue 48, "Arms switch the app"): the
/// modules in force (day 0 is the first 24 hours after randomisation), the questionnaires, and
/// what they are told to do. The study's info a participant's programs sync
/// (``StudyPresenter/info(_:membership:questionnaires:consentAgreed:arm:)``) carries these in
/// place of the study's own, so the shell, the standalone programs and the portal offer exactly
/// the arm's modules; data of the others stay where they are. The arm's id and label never reach
/// a participant. With them go the participant's visits, which the programs show and remind of
/// while a window is open.
struct ArmView: Sendable, Equatable {
    /// nil: the study's modules.
    var modules: [String]?
    /// nil: all of the study's questionnaires.
    var questionnaires: Set<String>?
    var notice: LocalizedText?
    /// The participant's visits whose day is known (from their randomisation or joining), when
    /// the design has visits; nil otherwise.
    var visits: [StudyVisit]?

    /// What the study's trial gives the person now; nil when the study has no trial, or they
    /// were not randomised and have no visit counted from joining.
    /// `visits: false` skips the visits (and their two reads) where only the arm matters.
    static func of(_ store: ServerStore, studyId: String, userId: Int64, now: Date, visits withVisits: Bool = true) async throws -> ArmView? {
        guard let trial = try await store.trial(studyId: studyId) else { return nil }
        let made = try await store.allocation(studyId: studyId, userId: userId)
        var view = ArmView()
        if let made, let arm = trial.design.arms.first(where: { $0.id == made.allocation.arm }) {
            let day = max(0, Int((now.timeIntervalSince(made.allocatedAt) / 86_400).rounded(.down)))
            view = ArmView(modules: arm.modules(onDay: day), questionnaires: arm.questionnaires.map(Set.init), notice: arm.notice)
        }
        if withVisits, let visits = trial.design.visits, !visits.isEmpty {
            let joined = try await store.joinedAt(studyId: studyId, userId: userId)
            let sheets = try await store.sheetStarts(studyId: studyId, questionnaires: Set(visits.flatMap(\.questionnaires)).sorted(), userId: userId)
            let scheduled = VisitStatus.of(visits, randomised: made?.allocatedAt, joined: joined, sheets: sheets[userId] ?? [], now: now)
                .compactMap { status -> StudyVisit? in
                    guard let opens = status.opens, let closes = status.closes else { return nil }
                    return StudyVisit(id: status.visit.id, title: status.visit.participantTitle, opens: Timestamps.format(opens),
                                      closes: Timestamps.format(closes), questionnaires: status.visit.questionnaires,
                                      done: status.state == .inWindow || status.state == .outOfWindow)
                }
            if !scheduled.isEmpty { view.visits = scheduled }
        }
        return made == nil && view.visits == nil ? nil : view
    }

    /// Whether the arm offers a questionnaire of `module`: one its list names (when it has one)
    /// and of a module it has now (when it names modules). The shared baseline is the shell's and
    /// stays whatever the arm.
    func offers(_ questionnaire: String, module: ModuleID) -> Bool {
        if PortalQuestionnaires.baselineIds.contains(questionnaire) { return true }
        return (questionnaires?.contains(questionnaire) ?? true) && (modules?.contains(module.rawValue) ?? true)
    }

    /// The person's member questionnaires that their arms offer now (``offers(_:module:)``): the
    /// list the devices keep their study questionnaires from, and the portal's.
    static func offered(_ members: [MemberQuestionnaire], store: ServerStore, userId: Int64, now: Date) async throws -> [MemberQuestionnaire] {
        var arms: [String: ArmView?] = [:]
        var offered: [MemberQuestionnaire] = []
        for member in members {
            let studyId = member.link.studyId
            if arms[studyId] == nil { arms[studyId] = .some(try await of(store, studyId: studyId, userId: userId, now: now, visits: false)) }
            if arms[studyId].flatMap({ $0 })?.offers(member.link.questionnaireId, module: member.link.module) ?? true { offered.append(member) }
        }
        return offered
    }
}
