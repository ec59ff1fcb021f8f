import Foundation
import UNITIProtocol

/// The study steps both front doors share, the JSON API (``StudyRoutes``) and the participant
/// portal (``PortalRoutes``): which studies a person sees, joining (public at once, password with
/// the throttled password check, by request as pending) and leaving. One place for these rules,
/// as ``AccountService`` is for accounts, so a browser and an app can never disagree.
///
/// Each step a participant takes in a study is a line of the study's audit trail, by pseudonym
/// only and in the transaction of the step: `participant.join` and `participant.request` (with
/// the consent version agreed to), `participant.consent` (a new version agreed to),
/// `participant.leave` (with or without the answers); ``AccountService`` adds
/// `participant.deleteAccount`.
///
/// Topics: listing; joining (throttled password check); leaving.
struct StudyService: Sendable {
    let environment: ServerEnvironment
    var store: ServerStore { environment.store }

    /// Which studies a list shows.
    enum Scope: String, Sendable {
        /// Every study, with the person's standing in it: a person finds a password or
        /// by-request study too, and joining it asks for the password or sends a request (Track
        /// Your Stress thesis 7.2.3). What a non-member reads of it is what the detail route
        /// shows (``StudyPresenter/info(_:membership:questionnaires:)``).
        case available
        /// Studies the person is a member of.
        case mine
    }

    /// A study with the person's standing in it and the newest consent version they agreed to.
    struct Listed: Sendable {
        var study: StudyRecord
        var membership: MembershipStatus
        var consentAgreed: Int?
    }

    /// The studies of `scope` for a person, in the store's order.
    func studies(userId: Int64, scope: Scope) async throws -> [Listed] {
        let memberships = try await store.memberships(userId: userId)
        let agreed = try await store.agreedConsentVersions(userId: userId)
        return try await store.studies().compactMap { study in
            let membership = memberships[study.id] ?? MembershipStatus.none
            return scope == .mine && membership != .member ? nil
                : Listed(study: study, membership: membership, consentAgreed: agreed[study.id])
        }
    }

    /// The study with this id, or 404 (an invalid id is as unknown as a missing one).
    func study(id: String) async throws -> StudyRecord {
        guard StudyRules.isValidId(id) else { throw APIError.notFound("No such study.") }
        guard let study = try await store.study(id: id) else { throw APIError.notFound("No study with id '\(id)'.") }
        return study
    }

    /// Joins a study by its access kind; returns the standing afterwards (`member`, or `pending`
    /// for a by-request study). The rules are ``enrol(userId:studyId:password:consentVersion:site:screening:)``'s.
    @discardableResult
    func join(userId: Int64, studyId: String, password: String?, consentVersion: Int? = nil, site: String? = nil,
              screening: ScreeningAnswers? = nil) async throws -> MembershipStatus {
        try await enrol(userId: userId, studyId: studyId, password: password, consentVersion: consentVersion, site: site,
                        screening: screening).membership
    }

    /// What a join made: the standing afterwards, and for someone a study's screening found not
    /// eligible, the study's words for it (the standing is then unchanged).
    struct Enrolment: Sendable {
        var membership: MembershipStatus
        var ineligible: LocalizedText?
    }

    /// Joins a study by its access kind. A wrong password counts towards
    /// ``StudyPasswordThrottle``; while throttled, even the right password is answered 429
    /// `too_many_study_attempts`, so guessing gains nothing from trying fast.
    ///
    /// A study with consent is joined only with the current version agreed to (`consentVersion`,
    /// what the person was shown): 409 `consent_required` otherwise, naming the version. The
    /// agreement is recorded with its time before the membership (for a by-request study, at
    /// the request), so every member's answers have a consent on record.
    ///
    /// `site` (a site's enrolment link or code) puts the person at that study site with the
    /// membership, in the same transaction; 422 `unknown_site` when the study has none by that id.
    /// Someone who belongs to a site already stays there (moving is an owner's step).
    ///
    /// A study that screens (``StudyScreening``) is joined only with its screening questionnaire
    /// answered whole (409 `screening_required` without, 422 `screening_invalid` for answers that
    /// are not whole or valid: nothing is decided or kept then). Someone the rules find not
    /// eligible (once the password is right) is not joined, and the log keeps the screening as a
    /// count, with their account and answers only when they agreed to that; no consent is needed
    /// for that answer. An eligible person joins as anyone does, with the screening's log line in
    /// the transaction of the membership, and their screening sheet is stored as their first
    /// answers to the study (for a by-request study, the log line keeps it while the request waits).
    func enrol(userId: Int64, studyId: String, password: String?, consentVersion: Int? = nil, site: String? = nil,
               screening answers: ScreeningAnswers? = nil) async throws -> Enrolment {
        let study = try await study(id: studyId)
        let id = study.id
        let now = environment.clock.now()
        let site = site.flatMap { $0.isEmpty ? nil : $0 }
        if let site, try await !store.sites(studyId: id).contains(where: { $0.id == site }) {
            throw APIError.invalid("unknown_site", "Study '\(id)' has no site '\(site.prefix(64))'; check the enrolment link or code you were given.")
        }
        let current = try await store.membership(studyId: id, userId: userId)
        if current == .member { return Enrolment(membership: .member) }
        guard StudyPresenter.isOpen(study, now: now) else {
            throw APIError(.conflict, "study_closed", "Study '\(id)' is not running at the moment; it cannot be joined.")
        }
        let screened = try await screen(study, answers)
        if screened?.outcome == .eligible || screened == nil, let required = study.consentVersion {
            guard consentVersion == required else { throw Self.consentRequired(id, version: required) }
        }
        if study.access == .password { try await checkPassword(password, of: study, userId: userId, now: now) }
        let status: MembershipStatus = study.access == .byRequest ? .pending : .member
        guard let screened else {
            try await enter(study, userId: userId, from: current, to: status, site: site, now: now)
            return Enrolment(membership: status)
        }
        guard case .ineligible(let failed) = screened.outcome else {
            // A request waiting for the team's decision keeps the answers in the log, for the team
            // to read; a member's are their first sheet of the study.
            let entry = ScreeningEntry(screenedAt: now, site: site, userId: userId, eligible: true, failed: [],
                                       answers: status == .pending ? try JSONCoding.string(screened.sheet.sheet) : nil)
            // A request already waiting is screened once: sending the join again (to agree to a
            // newer consent) adds no second line, and the team keeps reading the first answers.
            try await enter(study, userId: userId, from: current, to: status, site: site,
                            screening: current == .pending ? nil : entry, now: now)
            guard status == .member else { return Enrolment(membership: status) }
            var sheet = screened.sheet.sheet
            sheet.owner = sheet.owner ?? screened.module
            sheet.isPartial = false
            _ = try await store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: sheet, studyId: id)], receivedAt: now)
            return Enrolment(membership: status)
        }
        let kept = answers?.keepIfIneligible == true && screened.design.keepAnswersQuestion != nil
        try await store.logScreening(ScreeningEntry(screenedAt: now, site: site, userId: kept ? userId : nil, eligible: false,
                                                    failed: failed, answers: kept ? try JSONCoding.string(screened.sheet.sheet) : nil),
                                     studyId: id)
        return Enrolment(membership: current, ineligible: screened.design.ineligibleMessage)
    }

    /// A screening decided: the study's screening, the sheet checked against its questionnaire,
    /// the module presenting that questionnaire and what the rules made of it.
    private struct Screened: Sendable {
        var design: StudyScreening
        var sheet: ValidatedSheet
        var module: ModuleID
        var outcome: StudyScreening.Outcome
    }

    /// The screening of `answers` for a study that screens (nil for one that does not); throws
    /// when the answers are missing, not whole or not valid.
    private func screen(_ study: StudyRecord, _ answers: ScreeningAnswers?) async throws -> Screened? {
        guard let design = try await store.screening(studyId: study.id) else { return nil }
        guard let answers else {
            throw APIError(.conflict, "screening_required",
                           "Study '\(study.id)' asks a few screening questions before anyone joins; answer them (uniti: study join \(study.id)).")
        }
        guard let document = try await store.latestQuestionnaires(studyId: study.id).first(where: { $0.id == design.questionnaire }),
              let link = try await store.questionnaireLinks(studyId: study.id).first(where: { $0.questionnaireId == design.questionnaire }) else {
            throw APIError(.conflict, "screening_unavailable", "Study '\(study.id)' cannot screen at the moment; its screening questionnaire is missing.")
        }
        let outcome = try design.outcome(of: answers.sheet, definition: document.definition)
        let sheet = try SheetValidation.validate(answers.sheet, against: document)
        return Screened(design: design, sheet: sheet, module: link.module, outcome: outcome)
    }

    /// The throttled check of a password study's password.
    private func checkPassword(_ password: String?, of study: StudyRecord, userId: Int64, now: Date) async throws {
        let id = study.id
        guard let password, !password.isEmpty else {
            throw APIError(.forbidden, "study_password_required", "Study '\(id)' needs its password to join.")
        }
        let throttle = environment.studyPasswordThrottle
        // Counted before the check and taken back when right: guesses sent at once are
        // counted one by one, so they cannot all pass before the first failure is recorded.
        if let wait = try await throttle.startAttempt(userId: userId, studyId: id, store: store, now: now) {
            SecurityEvent.studyPasswordThrottled.record()
            throw APIError(.tooManyRequests, "too_many_study_attempts",
                           "Too many wrong passwords for study '\(id)'; wait \(wait) seconds before trying again.",
                           headers: ["Retry-After": "\(wait)"])
        }
        guard let hash = study.passwordHash, password.utf8.count <= 256,
              await environment.passwords.verify(password, hash: hash) else {
            SecurityEvent.studyPasswordRefused.record()
            throw APIError(.forbidden, "wrong_study_password", "The password for study '\(id)' is wrong.")
        }
        try await throttle.recordSuccess(userId: userId, studyId: id, store: store)
    }

    /// What a study that screens shows someone who has not joined it: its questionnaire, every
    /// question to be answered, and the keep-answers question; nil for a member, a study that
    /// does not screen, or one whose questionnaire is missing.
    func screeningInfo(_ study: StudyRecord, membership: MembershipStatus) async throws -> StudyScreeningInfo? {
        guard membership != .member, let design = try await store.screening(studyId: study.id),
              let document = try await store.latestQuestionnaires(studyId: study.id).first(where: { $0.id == design.questionnaire })
        else { return nil }
        return StudyScreeningInfo(questionnaire: StudyLanguages.served(document.definition, study: study).everyQuestionRequired(),
                                  keepAnswersQuestion: design.keepAnswersQuestion)
    }

    /// Records the consent agreed to (the study's current version, checked by the caller) and
    /// the new standing, with the participant's line, in one transaction: `participant.join` or
    /// `participant.request` naming the version, or `participant.consent` when only a newer
    /// version was agreed to (a repeated request).
    private func enter(_ study: StudyRecord, userId: Int64, from current: MembershipStatus, to status: MembershipStatus,
                       site: String? = nil, screening: ScreeningEntry? = nil, now: Date) async throws {
        let pseudonym = try await store.user(id: userId)?.pseudonym ?? "?"
        try await store.transaction { store in
            var detail: [String: JSONValue] = [:]
            var newlyAgreed: (from: Int?, to: Int)?
            if let version = study.consentVersion {
                let before = try await store.agreedConsentVersions(userId: userId)[study.id]
                _ = try await store.recordConsent(userId: userId, studyId: study.id, version: version, now: now)
                detail["consentVersion"] = .number(Double(version))
                if before != version { newlyAgreed = (before, version) }
            }
            if current != status {
                try await store.setMembership(studyId: study.id, userId: userId, status: status, now: now)
                detail["changes"] = .object(["status": AuditValues.change(.string(current.rawValue), .string(status.rawValue))])
                try await store.appendAudit(.participant(pseudonym), studyId: study.id,
                                            action: status == .member ? "participant.join" : "participant.request", detail: .object(detail), now: now)
            } else if let newlyAgreed {
                try await store.appendAudit(.participant(pseudonym), studyId: study.id, action: "participant.consent",
                                            detail: Self.consentChange(newlyAgreed), now: now)
            }
            // The site of the enrolment link or code, unless they belong to one already.
            if let site, try await store.memberSites(studyId: study.id)[userId] == nil {
                _ = try await store.setMemberSite(site, userId: userId, pseudonym: pseudonym, studyId: study.id,
                                                  actor: .participant(pseudonym), now: now)
            }
            if let screening { try await store.logScreening(screening, studyId: study.id) }
        }
    }

    static func consentChange(_ agreed: (from: Int?, to: Int)) -> JSONValue {
        .object(["changes": .object(["consentVersion": AuditValues.change(agreed.from.map { .number(Double($0)) } ?? .null,
                                                                          .number(Double(agreed.to)))])])
    }

    /// 409 `consent_required`: the study's current consent version must be agreed to first.
    static func consentRequired(_ studyId: String, version: Int) -> APIError {
        APIError(.conflict, "consent_required",
                 "Study '\(studyId)' asks for your consent to its version \(version); read it and agree to that version.")
    }

    /// Records the person's agreement to the study's current consent version (`version`, the
    /// one they were shown). A version that is not the current one is refused 409
    /// `consent_required` naming the current one: the text may have changed meanwhile.
    func agreeToConsent(userId: Int64, studyId: String, version: Int) async throws {
        let study = try await study(id: studyId)
        guard try await store.membership(studyId: study.id, userId: userId) == .member else {
            throw APIError(.conflict, "not_a_member", "You are not a participant of study '\(study.id)'.")
        }
        guard let current = study.consentVersion else {
            throw APIError(.conflict, "no_consent", "Study '\(study.id)' has no consent text to agree to.")
        }
        let now = environment.clock.now(), pseudonym = try await store.user(id: userId)?.pseudonym ?? "?"
        try await store.transaction { store in
            let before = try await store.agreedConsentVersions(userId: userId)[study.id]
            guard try await store.recordConsent(userId: userId, studyId: study.id, version: version, now: now) else {
                throw Self.consentRequired(study.id, version: current)
            }
            if before != version {
                try await store.appendAudit(.participant(pseudonym), studyId: study.id, action: "participant.consent",
                                            detail: Self.consentChange((before, version)), now: now)
            }
        }
    }

    /// Leaves a study or withdraws a pending request; a member of a study that does not let
    /// participants leave is refused 409 `leave_forbidden`. With `deleteAnswers`, the person's
    /// sheets for the study go with the membership (``ServerStore/leaveStudy(userId:studyId:deleteAnswers:now:)``):
    /// they are no longer in its export or comparison from that moment.
    func leave(userId: Int64, studyId: String, deleteAnswers: Bool = false) async throws {
        let study = try await study(id: studyId)
        let id = study.id
        let current = try await store.membership(studyId: id, userId: userId)
        guard current == .member || current == .pending else {
            throw APIError(.conflict, "not_a_member", "You are not a participant of study '\(id)'.")
        }
        if current == .member && !study.participantsMayLeave {
            throw APIError(.conflict, "leave_forbidden",
                           "Study '\(id)' does not let participants leave while it runs; contact the study team to withdraw.")
        }
        let pseudonym = try await store.user(id: userId)?.pseudonym ?? "?"
        let line = AuditRecord(actor: .participant(pseudonym), studyId: id, action: "participant.leave", detail: [
            "answers": .string(deleteAnswers ? "deleted" : "kept"),
            "changes": .object(["status": AuditValues.change(.string(current.rawValue), .string(MembershipStatus.left.rawValue))]),
        ])
        try await store.leaveStudy(userId: userId, studyId: id, deleteAnswers: deleteAnswers, now: environment.clock.now(), recording: line)
        // A withdrawn request's screening answers were kept for the team's decision only.
        if current == .pending { try await store.dropWaitingScreening(studyId: id, userId: userId) }
    }

    /// Whether a person may leave a study in this standing (what the portal offers a button for).
    static func mayLeave(_ study: StudyRecord, membership: MembershipStatus) -> Bool {
        membership == .pending || (membership == .member && study.participantsMayLeave)
    }
}
