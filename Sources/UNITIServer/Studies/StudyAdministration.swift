import Foundation
import UNITIProtocol

/// What a study team changes, one place for the console (``ConsoleRoutes``) and the
/// `uniti-server` subcommands (as ``AuditActor/operator``): each change goes to the store and
/// leaves its line in the audit trail (``ServerStore/appendAudit(_:studyId:action:detail:now:)``)
/// in the same transaction (``ServerStore/transaction(_:)``), so nothing changes a study's set-up
/// or data unrecorded, whichever door it came through, even when the line cannot be written or
/// the process dies between the two.
///
/// Topics: studies; questionnaires; join requests; the team; exports.
struct StudyAdministration: Sendable {
    let store: ServerStore
    let actor: AuditActor
    let now: Date

    // MARK: Studies

    /// Creates a study; throws ``StoreConflict/studyExists``.
    func create(_ study: StudyRecord) async throws {
        try await audited { store, audit in
            try await store.createStudy(study, now: now)
            try await audit(study.id, "study.create", ["fields": .array(Self.fieldNames.map { .string($0) })])
        }
    }

    /// Stores the changed study; the line names the fields that changed (never a password).
    func update(_ study: StudyRecord, from before: StudyRecord) async throws {
        let changed = Self.changedFields(before, study)
        guard !changed.isEmpty else { return }
        try await audited { store, audit in
            try await store.updateStudy(study, now: now)
            try await audit(study.id, "study.update", ["changed": .array(changed.map { .string($0) })])
        }
    }

    static let fieldNames = ["title", "description", "consent", "access", "password", "participantsMayLeave", "running",
                             "starts", "ends", "modules", "schedules", "rewards"]

    /// The names of the fields (``fieldNames``) that differ.
    static func changedFields(_ a: StudyRecord, _ b: StudyRecord) -> [String] {
        let differs: [Bool] = [a.title != b.title, a.description != b.description, a.consent != b.consent, a.access != b.access,
                               a.passwordHash != b.passwordHash, a.participantsMayLeave != b.participantsMayLeave,
                               a.running != b.running, a.startsAt != b.startsAt, a.endsAt != b.endsAt, a.modules != b.modules,
                               a.schedules != b.schedules, a.rewards != b.rewards]
        return zip(fieldNames, differs).filter(\.1).map(\.0)
    }

    // MARK: Questionnaires

    /// Stores a questionnaire version (validated by the caller through ``QuestionnaireImport``).
    func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?) async throws -> QuestionnaireImportResult {
        try await audited { store, audit in
            let result = try await store.addQuestionnaire(document, module: module, now: now)
            if result.versionAdded {
                try await audit(document.studyId, "questionnaire.add", ["questionnaire": .string(document.id),
                                                                          "version": .number(Double(document.version)),
                                                                          "module": .string(result.module.rawValue)])
            }
            return result
        }
    }

    /// Stores `document`, the next version of `before` with changed settings (schedule,
    /// reminders, completion window, message after saving), as `questionnaire update` and the
    /// console's settings form make it; the line names the settings that changed. Nothing is
    /// stored (and nil returned) when none did.
    func updateQuestionnaire(_ document: QuestionnaireDocument, from before: QuestionnaireDocument) async throws -> QuestionnaireImportResult? {
        let changed = Self.changedSettings(before.definition, document.definition)
        guard !changed.isEmpty else { return nil }
        return try await audited { store, audit in
            let result = try await store.addQuestionnaire(document, module: nil, now: now)
            try await audit(document.studyId, "questionnaire.update", ["questionnaire": .string(document.id),
                                                                         "version": .number(Double(document.version)),
                                                                         "changed": .array(changed.map { .string($0) })])
            return result
        }
    }

    /// The names of the settings a team changes without a new definition file that differ.
    static func changedSettings(_ a: QuestionnaireDefinition, _ b: QuestionnaireDefinition) -> [String] {
        let differs: [(String, Bool)] = [("schedule", a.schedule != b.schedule), ("scheduleChangeable", a.scheduleChangeable != b.scheduleChangeable),
                                         ("completionWindowMinutes", a.completionWindowMinutes != b.completionWindowMinutes),
                                         ("afterSaving", a.afterSaving != b.afterSaving)]
        return differs.filter(\.1).map(\.0)
    }

    /// Activates or deactivates; nil when the study has no such questionnaire.
    func setQuestionnaireActive(id: String, studyId: String, active: Bool) async throws -> (before: Date?, after: Date?)? {
        try await audited { store, audit in
            guard let before = try await store.questionnaireLink(id: id), before.studyId == studyId,
                  let after = try await store.setQuestionnaireActive(id: id, studyId: studyId, active: active, now: now) else { return nil }
            if (before.deactivatedAt == nil) != (after.deactivatedAt == nil) {
                try await audit(studyId, active ? "questionnaire.activate" : "questionnaire.deactivate", ["questionnaire": .string(id)])
            }
            return (before.deactivatedAt, after.deactivatedAt)
        }
    }

    // MARK: Join requests

    /// Approves (`member`) or denies a request; false when the person has none to decide. The
    /// line names the person by pseudonym only, as everything staff see.
    func decideJoinRequest(studyId: String, userId: Int64, status: MembershipStatus) async throws -> Bool {
        try await audited { store, audit in
            let current = try await store.membership(studyId: studyId, userId: userId)
            guard current == .pending || current == .denied || (current == .member && status == .denied) else { return false }
            try await store.setMembership(studyId: studyId, userId: userId, status: status, now: now)
            let pseudonym = try await store.user(id: userId)?.pseudonym ?? "?"
            try await audit(studyId, status == .member ? "joinRequest.approve" : "joinRequest.deny", ["participant": .string(pseudonym)])
            return true
        }
    }

    // MARK: The team

    /// Gives a staff member a role in the study (replacing one they had).
    func setRole(_ role: StudyRole, of member: StaffMember, in studyId: String) async throws {
        try await audited { store, audit in
            try await store.setStudyRole(staffId: member.id, studyId: studyId, role: role)
            try await audit(studyId, "team.set", ["staff": .number(Double(member.id)), "email": .string(member.email),
                                                  "role": .string(role.rawValue)])
        }
    }

    /// Takes the member's role in the study away; false (and no line) when they had none.
    func removeRole(of member: StaffMember, in studyId: String) async throws -> Bool {
        try await audited { store, audit in
            guard try await store.removeStudyRole(staffId: member.id, studyId: studyId) else { return false }
            try await audit(studyId, "team.remove", ["staff": .number(Double(member.id)), "email": .string(member.email)])
            return true
        }
    }

    /// Closes the member's access (``ServerStore/disableStaff(staffId:now:)``); each study they
    /// had a role in gets its line. Returns those studies.
    func disable(_ member: StaffMember) async throws -> [String] {
        try await audited { store, audit in
            let studies = try await store.disableStaff(staffId: member.id, now: now)
            for studyId in studies {
                try await audit(studyId, "team.disable", ["staff": .number(Double(member.id)), "email": .string(member.email)])
            }
            return studies
        }
    }

    // MARK: Exports

    /// Records a finished export: its format, filters and how many rows (or resources) it had
    /// (one statement, nothing else to commit with it).
    func recordExport(studyId: String, format: String, filters: [String: String], rows: Int) async throws {
        try await store.appendAudit(actor, studyId: studyId, action: "export",
                                    detail: .object(["format": .string(format), "filters": .object(filters.mapValues { .string($0) }),
                                                     "rows": .number(Double(rows))]),
                                    now: now)
    }

    /// Appends a line of the audit trail: the study, the action, what changed.
    typealias AuditLine = @Sendable (_ studyId: String, _ action: String, _ detail: [String: JSONValue]) async throws -> Void

    /// Runs a change and its lines in one transaction: `body` changes through the store it is
    /// given and appends with `audit`; a line that cannot be written undoes the change.
    private func audited<T: Sendable>(_ body: @escaping @Sendable (ServerStore, AuditLine) async throws -> T) async throws -> T {
        let (actor, now) = (actor, now)
        return try await store.transaction { store in
            try await body(store) { studyId, action, detail in
                try await store.appendAudit(actor, studyId: studyId, action: action, detail: .object(detail), now: now)
            }
        }
    }
}

extension QuestionnaireDocument {
    /// The same definition as the next version: where a change of its settings starts, since a
    /// stored version never changes (sheets name the version they answer).
    func nextVersion() -> QuestionnaireDocument {
        var next = self
        next.version += 1
        next.definition.version = next.version
        return next
    }
}
