import Foundation
import UNITIProtocol

/// What a randomised participant's arm gives them now (issue 48, "Arms switch the app"): the
/// modules in force (day 0 is the first 24 hours after randomisation), the questionnaires, and
/// what they are told to do. The study's info a participant's programs sync
/// (``StudyPresenter/info(_:membership:questionnaires:consentAgreed:arm:)``) carries these in
/// place of the study's own, so the shell, the standalone programs and the portal offer exactly
/// the arm's modules; data of the others stay where they are. The arm's id and label never reach
/// a participant.
struct ArmView: Sendable, Equatable {
    /// nil: the study's modules.
    var modules: [String]?
    /// nil: all of the study's questionnaires.
    var questionnaires: Set<String>?
    var notice: LocalizedText?

    /// The person's arm in the study now; nil when the study has no trial or they were not randomised.
    static func of(_ store: ServerStore, studyId: String, userId: Int64, now: Date) async throws -> ArmView? {
        guard let made = try await store.allocation(studyId: studyId, userId: userId),
              let trial = try await store.trial(studyId: studyId),
              let arm = trial.design.arms.first(where: { $0.id == made.allocation.arm }) else { return nil }
        let day = max(0, Int((now.timeIntervalSince(made.allocatedAt) / 86_400).rounded(.down)))
        return ArmView(modules: arm.modules(onDay: day), questionnaires: arm.questionnaires.map(Set.init), notice: arm.notice)
    }
}
