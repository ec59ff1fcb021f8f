import Foundation
import UNITIProtocol

/// How a staff account joins a study's team from the console: an owner invites an address with a
/// role, and the person accepts or declines in the console (issue 44: owners could attach any
/// staff account to their study, listing a stranger on their team with name and address, and the
/// answer told whether an address had a staff account).
///
/// The owner's answer is the same whether the address has a staff account or not: an invitation,
/// listed on the team page as "invited" with the name and address the owner typed (never what the
/// account holds), and a mail to the address. An address without an account gets one, with no
/// right beyond the invitation, and the enrolment link in the same mail. The role is the
/// person's only once they accept. A team member's role is changed at once (they are on the team
/// already). The machine's operator (`uniti-server staff role`) and an administrator creating a
/// study appoint directly (``StudyAdministration/setRole(_:of:in:)``).
///
/// Each step and its line in the audit trail commit together (``StudyAdministration/audited(_:)``).
struct StudyTeam: Sendable {
    let administration: StudyAdministration
    let environment: ServerEnvironment
    var store: ServerStore { administration.store }

    /// What an owner's step did; the page says one thing for either kind of invitation.
    enum Outcome: Sendable, Equatable {
        /// A member of the team has the new role.
        case roleChanged
        /// The address is invited (whether or not it had an account).
        case invited
    }

    /// Invites `email` to the study with `role` (the name is what the team knows the person by,
    /// needed in every case, so that the answer never depends on the account), or changes the
    /// role of a team member with that address.
    func invite(email rawEmail: String, name rawName: String, role: StudyRole, to studyId: String) async throws -> Outcome {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        let name = rawName.trimmingCharacters(in: .whitespaces)
        try AccountRules.validateEmail(email)
        let study = try await administration.existingStudy(studyId)
        if let member = try await store.studyTeam(studyId: studyId).first(where: { $0.member.email.lowercased() == email })?.member {
            try await administration.setRole(role, of: member, in: studyId)
            return .roleChanged
        }
        guard !name.isEmpty else { throw APIError.invalid("invitation_name", "Give the name of the person you invite.") }
        try AccountRules.validateName(name, field: "name")
        let staff = StaffService(environment: environment)
        let (actor, now) = (administration.actor, administration.now)
        let mail = try await administration.audited { store, audit in
            var added: (id: Int64, mail: OutgoingMail)?
            let existing = try await store.staffMember(email: email)
            if existing == nil {
                // An account with no right beyond this invitation; its line names the study on the
                // account-wide trail (administrators), not on the study's, whose owners must not
                // learn from it whether the address had an account.
                added = try await staff.add(name: name, email: email, admin: false, by: actor, invitedTo: studyId, in: store)
            }
            guard let staffId = existing?.id ?? added?.id else { throw APIError.invalid("invitation_name", "") }
            try await store.inviteStaff(staffId: staffId, studyId: studyId, role: role, name: name, email: email, now: now)
            try await audit(studyId, "team.invite", ["email": .string(email), "name": .string(name),
                                                     "changes": .object(["invitation": AuditValues.change(.null, .string(role.rawValue))])])
            return Self.invitationMail(to: email, name: name, study: study, role: role, enrolment: added?.mail, publicURL: environment.publicURL,
                                       languages: existing?.mailLanguages ?? PortalText.staffMailLanguages)
        }
        environment.mail.enqueue(mail)
        return .invited
    }

    /// The invited person accepts: the role is theirs. `not_invited` when there is no invitation.
    func accept(studyId: String, by member: StaffMember) async throws {
        try await administration.audited { store, audit in
            guard let invitation = try await store.removeInvitation(staffId: member.id, studyId: studyId) else {
                throw APIError.invalid("not_invited", "There is no invitation to this study (any more).")
            }
            try await store.lockTeam(studyId: studyId)
            let before = try await store.studyRole(staffId: member.id, studyId: studyId)
            try await store.setStudyRole(staffId: member.id, studyId: studyId, role: invitation.role)
            try await audit(studyId, "team.accept", AuditValues.member(member, role: (before, invitation.role)))
        }
    }

    /// The invited person declines: the invitation goes, nothing else changes.
    func decline(studyId: String, by member: StaffMember) async throws {
        try await administration.audited { store, audit in
            guard let invitation = try await store.removeInvitation(staffId: member.id, studyId: studyId) else {
                throw APIError.invalid("not_invited", "There is no invitation to this study (any more).")
            }
            try await audit(studyId, "team.decline", ["email": .string(invitation.email),
                                                      "changes": .object(["invitation": AuditValues.change(.string(invitation.role.rawValue), .null)])])
        }
    }

    /// An owner withdraws an open invitation by the address they invited; false when there is none.
    func withdraw(email rawEmail: String, from studyId: String) async throws -> Bool {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        guard let open = try await store.studyInvitations(studyId: studyId).first(where: { $0.email == email }) else { return false }
        return try await administration.audited { store, audit in
            guard let invitation = try await store.removeInvitation(staffId: open.staffId, studyId: studyId) else { return false }
            try await audit(studyId, "team.withdraw", ["email": .string(invitation.email),
                                                       "changes": .object(["invitation": AuditValues.change(.string(invitation.role.rawValue), .null)])])
            return true
        }
    }

    /// The mail of an invitation, in `languages` (the member's own, or each staff mail language
    /// for an address new to the console, English first): the study, the role, and where to
    /// accept; for an address new to the console, its enrolment link first.
    static func invitationMail(to email: String, name: String, study: StudyRecord, role: StudyRole, enrolment: OutgoingMail?,
                               publicURL: String?, languages: [String]) -> OutgoingMail {
        let body = languages.map { language in
            PortalText.text("mail.teamInvitation.body", language, [
                "name": name, "study": study.title.text(in: language, fallback: study.fallbackLanguage), "id": study.id,
                "role": PortalText.text("console.role.\(role.rawValue)", language), "link": "\(publicURL ?? "")/console",
            ])
        }.joined(separator: "\n----\n\n")
        let subject = languages.map { PortalText.text("mail.teamInvitation.subject", $0) }.joined(separator: " / ")
        guard let enrolment else { return OutgoingMail(to: email, subject: subject, body: body) }
        return OutgoingMail(to: email, subject: subject, body: enrolment.body + "\n====\n\n" + body)
    }
}
