import Foundation
import UNITIProtocol

/// Turns a stored study into what a participant is shown, and states who may see a study.
enum StudyPresenter {
    /// `consentAgreed`: the newest consent version the person agreed to; `arm`: what a
    /// randomised member's arm gives them now, in place of the study's modules and questionnaires.
    static func info(_ study: StudyRecord, membership: MembershipStatus, questionnaires: [QuestionnaireDocument],
                     consentAgreed: Int? = nil, arm: ArmView? = nil) -> StudyInfo {
        var info = StudyInfo(id: study.id, title: study.title, description: mayReadDescription(study, membership: membership) ? study.description : nil,
                             consent: study.consent,
                             startsAt: study.startsAt.map(Timestamps.format), endsAt: study.endsAt.map(Timestamps.format),
                             running: study.running, access: study.access, participantsMayLeave: study.participantsMayLeave,
                             modules: arm?.modules ?? study.modules.map(\.rawValue),
                             questionnaires: questionnaires.filter { arm?.questionnaires?.contains($0.id) ?? true }
                                 .map { QuestionnaireReference(id: $0.id, version: $0.version) },
                             membership: membership, consentVersion: study.consentVersion, consentAgreed: consentAgreed)
        info.notice = arm?.notice
        info.visits = arm?.visits
        info.languages = study.languages
        return info
    }

    /// May read the study's description: anyone for a public study; for a password or by-request
    /// study its members and those whose request is pending — the study team told them about it,
    /// while anyone else only guessed or was handed its id (issue 27). The title, the access kind
    /// and the consent stay visible: the consent is what joining means, so the person reads it
    /// before joining.
    static func mayReadDescription(_ study: StudyRecord, membership: MembershipStatus) -> Bool {
        study.access == .public || membership == .member || membership == .pending
    }

    /// May read the study's questionnaires: members, and anyone for a public study.
    static func mayReadContent(_ study: StudyRecord, membership: MembershipStatus) -> Bool {
        study.access == .public || membership == .member
    }

    /// May send answers to the study's questionnaires: members only. Reading a public study's
    /// questionnaires needs no join, but answers belong to people who joined (and consented).
    static func mayAnswer(membership: MembershipStatus) -> Bool {
        membership == .member
    }

    /// Open for joining now: marked running and within its start and end.
    static func isOpen(_ study: StudyRecord, now: Date) -> Bool {
        study.running && (study.startsAt.map { $0 <= now } ?? true) && (study.endsAt.map { now < $0 } ?? true)
    }
}
