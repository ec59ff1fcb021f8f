import Foundation
import UNITIProtocol

/// The rule book of study administration: every rule a study team's change must keep, written
/// once for the console (``ConsoleRoutes``, as ``AuditActor/staff(_:)``) and the `uniti-server`
/// subcommands (as ``AuditActor/operator``). The doors only parse their input into the values
/// taken here (``StudySettings``, a definition's bytes, a role) and render what comes back; a
/// rule broken is an ``APIError`` whose code both doors answer with (the console from its string
/// tables, the command line with its message), or ``QuestionnaireProblems``.
///
/// Each change goes to the store and leaves its line in the audit trail
/// (``ServerStore/appendAudit(_:studyId:action:detail:now:)``) in the same transaction
/// (``ServerStore/transaction(_:)``), so nothing changes a study's set-up or data unrecorded,
/// whichever door it came through. A line says what changed from what to what
/// (``AuditValues``): each field's old and new value, a consent by its version numbers, a
/// password only that it changed.
///
/// Siblings: ``StudyTeam`` (invitations, which send mail), ``StudyExports`` (the exports and
/// their lines), ``StudyService`` (what participants do, with their own lines).
///
/// Topics: studies; questionnaires; join requests; the team; exports.
struct StudyAdministration: Sendable {
    let store: ServerStore
    let actor: AuditActor
    let now: Date
    /// Hashes a new study password: the server's hasher in the console, ``commandLinePasswords``
    /// on the command line.
    var passwords: PasswordHasher = Self.commandLinePasswords

    /// What the subcommands hash a study password with (cost 10: a command waits for it once).
    static let commandLinePasswords = PasswordHasher(cost: 10)

    // MARK: Studies

    /// Creates a study from its settings (``StudySettings``; a title is needed) and, when `owner`
    /// names a staff account by address (the console's administrator does), appoints its owner.
    /// Refuses an invalid id (`invalid_study_id`), a taken one (409 `study_exists`) and an
    /// unknown owner (`unknown_staff`).
    @discardableResult
    func create(_ id: String, _ settings: StudySettings, owner: String? = nil) async throws -> StudyRecord {
        guard StudyRules.isValidId(id) else {
            throw APIError.invalid("invalid_study_id", "Study id '\(id.prefix(64))' must be lower-case letters, digits, '-', '_' or '.'.")
        }
        guard settings.title != nil else { throw APIError.invalid("invalid_title", "A new study needs a title.") }
        let study = try await settings.apply(to: StudyRecord(id: id, title: LocalizedText([:])), passwords: passwords)
        let switches = try switchChanges(settings, from: [])
        var appointed: StaffMember?
        if let owner {
            guard let member = try await store.staffMember(email: owner.trimmingCharacters(in: .whitespaces)) else {
                throw APIError.invalid("unknown_staff", "No staff member has this address; add them with 'uniti-server staff add'.")
            }
            appointed = member
        }
        let owning = appointed
        return try await audited { store, audit in
            do {
                try await store.createStudy(study, now: now)
            } catch StoreConflict.studyExists {
                throw APIError(.conflict, "study_exists", "Study '\(id)' exists; change it with 'study update \(id)'.")
            }
            let created = try await store.study(id: id) ?? study
            try await store.setStudySwitches(studyId: id, switches)
            let changes = AuditValues.studyChanges(from: nil, to: created).merging(AuditValues.switchChanges(switches)) { $1 }
            try await audit(id, "study.create", ["changes": .object(changes)])
            if let owning {
                try await store.setStudyRole(staffId: owning.id, studyId: id, role: .owner)
                try await audit(id, "team.set", AuditValues.member(owning, role: (nil, .owner)))
            }
            return created
        }
    }

    /// Changes a study's settings (``StudySettings``, checked by its rules) and its module
    /// switches; the line names each field and switch that changed with its old and new value.
    /// Nothing is written when nothing changed. Returns the study as stored.
    @discardableResult
    func update(_ studyId: String, _ settings: StudySettings) async throws -> StudyRecord {
        let before = try await existingStudy(studyId)
        let study = try await settings.apply(to: before, passwords: passwords)
        let switches = try switchChanges(settings, from: try await store.studySwitches(studyId: studyId))
        let changed = AuditValues.studyChanges(from: before, to: study)
        guard !changed.isEmpty || !switches.isEmpty else { return before }
        return try await audited { store, audit in
            if !changed.isEmpty { try await store.updateStudy(study, now: now) }
            try await store.setStudySwitches(studyId: studyId, switches)
            let after = try await store.study(id: studyId) ?? study
            let changes = AuditValues.studyChanges(from: before, to: after).merging(AuditValues.switchChanges(switches)) { $1 }
            try await audit(studyId, "study.update", ["changes": .object(changes)])
            return after
        }
    }

    /// The switches `settings` turn on or off that are not so already (`on`: those on now), by
    /// key. Throws 422 `unknown_setting` for a name no installed module's switch has.
    private func switchChanges(_ settings: StudySettings, from on: Set<StudySwitch.Key>) throws -> [StudySwitch.Key: Bool] {
        var changes: [StudySwitch.Key: Bool] = [:]
        for (name, value) in settings.switches {
            guard let declared = store.modules.studySwitch(named: name) else {
                let known = store.modules.studySwitches.map(\.name)
                throw APIError.invalid("unknown_setting", "No installed module has the study setting '\(name.prefix(64))'"
                                       + (known.isEmpty ? "." : "; they have: \(known.joined(separator: ", ")).") )
            }
            if on.contains(declared.key) != value { changes[declared.key] = value }
        }
        return changes
    }

    /// The study, or 404 naming it.
    func existingStudy(_ studyId: String) async throws -> StudyRecord {
        guard StudyRules.isValidId(studyId), let study = try await store.study(id: studyId) else {
            throw APIError.notFound("No study '\(studyId.prefix(64))'; see 'study list'.")
        }
        return study
    }

    // MARK: Questionnaires

    /// Checks a definition with the shared validator and stores it as the study's questionnaire
    /// version, presented by `module` (a known module's id; nil keeps the module it has, or gives
    /// a new one its default). Throws ``QuestionnaireProblems`` listing every problem (nothing
    /// stored), `unknown_module`, or the store's `version_exists` and `questionnaire_owned`.
    func importQuestionnaire(_ data: Data, into studyId: String,
                             module: String?) async throws -> (document: QuestionnaireDocument, result: QuestionnaireImportResult) {
        let module = try module.map(StudyRules.knownModule)
        let study = try await existingStudy(studyId)
        let document = try QuestionnaireImport.document(from: data, studyId: study.id)
        return (document, try await addQuestionnaire(document, module: module))
    }

    /// Stores a questionnaire version (checked through ``QuestionnaireImport``). A new version is
    /// one line; a module that changes (which module presents the questionnaire to participants)
    /// is a line of its own, also when the version was stored already.
    func addQuestionnaire(_ document: QuestionnaireDocument, module: ModuleID?) async throws -> QuestionnaireImportResult {
        try await audited { store, audit in
            let result = try await store.addQuestionnaire(document, module: module, now: now)
            if result.versionAdded {
                try await audit(document.studyId, "questionnaire.add", ["questionnaire": .string(document.id),
                                                                          "version": .number(Double(document.version)),
                                                                          "module": .string(result.module.rawValue)])
            }
            if let previous = result.previousModule, previous != result.module {
                try await audit(document.studyId, "questionnaire.module", [
                    "questionnaire": .string(document.id),
                    "changes": .object(["module": AuditValues.change(.string(previous.rawValue), .string(result.module.rawValue))]),
                ])
            }
            return result
        }
    }

    /// Stores `document`, the next version of `before` with changed settings (schedule,
    /// reminders, completion window, message after saving), as `questionnaire update` and the
    /// console's settings form make it; the line names each setting that changed with its old
    /// and new value. Nothing is stored (and nil returned) when none did.
    func updateQuestionnaire(_ document: QuestionnaireDocument, from before: QuestionnaireDocument) async throws -> QuestionnaireImportResult? {
        let changes = AuditValues.settingChanges(before.definition, document.definition)
        guard !changes.isEmpty else { return nil }
        return try await audited { store, audit in
            let result = try await store.addQuestionnaire(document, module: nil, now: now)
            try await audit(document.studyId, "questionnaire.update", ["questionnaire": .string(document.id),
                                                                         "version": .number(Double(document.version)),
                                                                         "changes": .object(changes)])
            return result
        }
    }

    /// Activates or deactivates; nil when the study has no such questionnaire.
    func setQuestionnaireActive(id: String, studyId: String, active: Bool) async throws -> (before: Date?, after: Date?)? {
        try await audited { store, audit in
            guard let before = try await store.questionnaireLink(id: id), before.studyId == studyId,
                  let after = try await store.setQuestionnaireActive(id: id, studyId: studyId, active: active, now: now) else { return nil }
            if (before.deactivatedAt == nil) != (after.deactivatedAt == nil) {
                try await audit(studyId, active ? "questionnaire.activate" : "questionnaire.deactivate", [
                    "questionnaire": .string(id),
                    "changes": .object(["active": AuditValues.change(.bool(before.deactivatedAt == nil), .bool(after.deactivatedAt == nil))]),
                ])
            }
            return (before.deactivatedAt, after.deactivatedAt)
        }
    }

    // MARK: Join requests

    /// Decides an open request: a pending one is approved (`member`) or denied, and a denied one
    /// may still be approved. Anything else is refused (`no_request`): a member is no request,
    /// and taking a member out of a study is not a decision on a request. The line names the
    /// person by pseudonym only, as everything staff see.
    func decideJoinRequest(studyId: String, userId: Int64, status: MembershipStatus) async throws {
        try await audited { store, audit in
            let current = try await store.membership(studyId: studyId, userId: userId)
            let open = current == .pending || (current == .denied && status == .member)
            guard open, status == .member || status == .denied else {
                throw APIError.invalid("no_request", "This person has no open request to join study '\(studyId)' (they are: \(current.rawValue)).")
            }
            try await store.setMembership(studyId: studyId, userId: userId, status: status, now: now)
            let pseudonym = try await store.user(id: userId)?.pseudonym ?? "?"
            try await audit(studyId, status == .member ? "joinRequest.approve" : "joinRequest.deny", [
                "participant": .string(pseudonym),
                "changes": .object(["status": AuditValues.change(.string(current.rawValue), .string(status.rawValue))]),
            ])
        }
        try await settleScreening(studyId: studyId, userId: userId, approved: status == .member)
    }

    /// A decided request's screening answers (kept in the log while it waited): an approved
    /// member's first sheet of the study (stored once, by its id, before the log lets them go),
    /// or dropped with a refusal.
    private func settleScreening(studyId: String, userId: Int64, approved: Bool) async throws {
        guard let waiting = try await store.waitingScreening(studyId: studyId, userId: userId) else { return }
        if approved {
            var sheet = try JSONCoding.decode(AnswerSheet.self, from: waiting)
            let link = try await store.questionnaireLinks(studyId: studyId).first { $0.questionnaireId == sheet.questionnaireID }
            sheet.owner = sheet.owner ?? link?.module
            _ = try await store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: sheet, studyId: studyId)], receivedAt: now)
        }
        try await store.dropWaitingScreening(studyId: studyId, userId: userId)
    }

    // MARK: The team

    /// Gives a staff member a role in the study (replacing one they had). The study keeps at least
    /// one owner: the last owner cannot step down (`last_owner`).
    func setRole(_ role: StudyRole, of member: StaffMember, in studyId: String) async throws {
        _ = try await existingStudy(studyId)
        try await audited { store, audit in
            try await store.lockTeam(studyId: studyId)
            let team = try await store.studyTeam(studyId: studyId)
            let before = team.first { $0.member.id == member.id }?.role
            guard before != role else { return }
            if before == .owner { try Self.keepsAnOwner(team, without: member, studyId: studyId) }
            try await store.setStudyRole(staffId: member.id, studyId: studyId, role: role)
            _ = try await store.removeInvitation(staffId: member.id, studyId: studyId)
            try await audit(studyId, "team.set", AuditValues.member(member, role: (before, role)))
        }
    }

    /// Takes the member's role in the study away; false (and no line) when they had none. The
    /// last owner stays (`last_owner`).
    func removeRole(of member: StaffMember, in studyId: String) async throws -> Bool {
        try await audited { store, audit in
            try await store.lockTeam(studyId: studyId)
            let team = try await store.studyTeam(studyId: studyId)
            guard let before = team.first(where: { $0.member.id == member.id })?.role else { return false }
            if before == .owner { try Self.keepsAnOwner(team, without: member, studyId: studyId) }
            _ = try await store.removeStudyRole(staffId: member.id, studyId: studyId)
            try await audit(studyId, "team.remove", AuditValues.member(member, role: (before, nil)))
            return true
        }
    }

    /// Closes the member's access (``ServerStore/disableStaff(staffId:now:)``): a line on the
    /// account-wide trail, and one in each study they had a role in. Returns those studies.
    ///
    /// Who may: the operator; an administrator, anyone but themselves; another staff member only
    /// a member who is no administrator and whose every role is in a study where the actor
    /// reaches the team pages (``ConsolePage/disableStaff``), since disabling ends the account
    /// everywhere. Nobody disables themselves, so one administrator always remains, and no study
    /// loses its last owner (`last_owner`, naming it).
    func disable(_ member: StaffMember) async throws -> [String] {
        try await mayDisable(member)
        return try await audited { store, audit in
            let roles = try await store.studyRoles(staffId: member.id)
            for studyId in roles.keys.sorted() {
                try await store.lockTeam(studyId: studyId)
                if roles[studyId] == .owner { try Self.keepsAnOwner(try await store.studyTeam(studyId: studyId), without: member, studyId: studyId) }
            }
            let studies = try await store.disableStaff(staffId: member.id, now: now)
            try await audit(nil, "staff.disable", ["staff": .number(Double(member.id)), "email": .string(member.email)])
            for studyId in studies {
                try await audit(studyId, "team.disable", AuditValues.member(member, role: (roles[studyId], nil)))
            }
            return studies
        }
    }

    /// Throws the rule ``disable(_:)`` would refuse with (asked before the console's
    /// confirmation, so nobody confirms a step that is then refused).
    func mayDisable(_ member: StaffMember) async throws {
        guard case .staff(let actorId) = actor else { return }
        guard member.id != actorId else { throw APIError.invalid("disable_self", "You cannot disable your own account.") }
        guard let acting = try await store.staffMember(id: actorId) else { throw APIError.invalid("disable_other_studies", "Sign in again.") }
        guard !acting.admin else { return }
        guard !member.admin else { throw APIError.invalid("disable_admin", "Only an administrator disables an administrator.") }
        let actorRoles = try await store.studyRoles(staffId: actorId)
        let minimum = ConsolePage.disableStaff.minimumRole ?? .owner
        for studyId in try await store.studyRoles(staffId: member.id).keys {
            guard let role = actorRoles[studyId], role >= minimum else {
                throw APIError.invalid("disable_other_studies", "This member also works on studies you do not own; ask an administrator.")
            }
        }
        for (studyId, role) in try await store.studyRoles(staffId: member.id) where role == .owner {
            try Self.keepsAnOwner(try await store.studyTeam(studyId: studyId), without: member, studyId: studyId)
        }
    }

    /// Throws the rule ``removeRole(of:in:)`` would refuse with (the last owner stays).
    func mayRemoveRole(of member: StaffMember, in studyId: String) async throws {
        let team = try await store.studyTeam(studyId: studyId)
        if team.first(where: { $0.member.id == member.id })?.role == .owner { try Self.keepsAnOwner(team, without: member, studyId: studyId) }
    }

    /// Refuses a change that leaves the study without an owner.
    private static func keepsAnOwner(_ team: [(member: StaffMember, role: StudyRole)], without member: StaffMember, studyId: String) throws {
        guard team.contains(where: { $0.role == .owner && $0.member.id != member.id }) else {
            throw APIError.invalid("last_owner", "A study keeps at least one owner: \(member.name) is the only owner of '\(studyId)'; make someone else owner first.")
        }
    }

    // MARK: Exports

    /// Records a finished export: its format, filters and how many rows (or resources) it had
    /// (one statement, nothing else to commit with it). ``StudyExports`` calls it.
    func recordExport(studyId: String, format: String, filters: [String: String], rows: Int) async throws {
        try await store.appendAudit(actor, studyId: studyId, action: "export",
                                    detail: .object(["format": .string(format), "filters": .object(filters.mapValues { .string($0) }),
                                                     "rows": .number(Double(rows))]),
                                    now: now)
    }

    /// Appends a line of the audit trail: the study (nil: a staff account's own line), the action, what changed.
    typealias AuditLine = @Sendable (_ studyId: String?, _ action: String, _ detail: [String: JSONValue]) async throws -> Void

    /// Runs a change and its lines in one transaction: `body` changes through the store it is
    /// given and appends with `audit`; a line that cannot be written undoes the change.
    func audited<T: Sendable>(_ body: @escaping @Sendable (ServerStore, AuditLine) async throws -> T) async throws -> T {
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
