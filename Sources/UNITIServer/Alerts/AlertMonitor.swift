import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UNITIProtocol

/// Checks every running study's alert rules (``AlertRule``) and raises what they find: a service
/// of the server's service group beside the mail queue.
///
/// Safety rules are checked every ``interval`` (15 s) against the sheets that arrived since the
/// last check (a cursor per study in the store), so a sheet above a threshold is mailed within a
/// minute of its arrival; a sheet is looked at once it is ``settle`` (5 s) old, so that a sheet
/// whose transaction commits after a later one's is not passed over. Adherence, silence and consent
/// rules describe days, not moments, and are checked every ``conditionInterval`` (10 min).
///
/// Every raise is an insert that happens once per rule, participant and occurrence however many
/// server processes check (``ServerStore/raiseAlert(_:userId:pseudonym:occurrence:now:)``): a
/// sheet for a safety rule; for adherence the period of `days` days the check fell in (a
/// participant who stays below the rate is raised again one period later, not at every check);
/// for silence the time of their last upload (a new silence after they sync again is a new alert);
/// for consent the version. The process whose insert went in writes the mail's audit line and
/// queues the mail to the team members the rule names (``MailQueue``); the mail names the study,
/// the rule and the pseudonym, links to the participant's page and carries no answer.
///
/// Every ``conditionInterval`` it also folds the day tallies' changes (``TallySchema``), alert
/// rules or not.
public final class AlertMonitor: Service, Sendable {
    let environment: ServerEnvironment
    let interval: Duration
    let conditionInterval: TimeInterval
    let settle: TimeInterval
    let logger: Logger
    private let lastConditions = Mutex<Date?>(nil)
    /// Sheets read per statement while catching up.
    static let batch = 500

    public init(environment: ServerEnvironment, interval: Duration = .seconds(15), conditionInterval: TimeInterval = 600,
                settle: TimeInterval = 5, logger: Logger = Logger(label: "uniti-server.alerts")) {
        self.environment = environment
        self.interval = interval
        self.conditionInterval = conditionInterval
        self.settle = settle
        self.logger = logger
    }

    var store: ServerStore { environment.store }

    public func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await self.check()
                } catch {
                    self.logger.error("checking the alert rules failed: \(error)")
                }
                try? await Task.sleep(for: self.interval)
            }
        }
    }

    /// One check: the safety rules always, the others when ``conditionInterval`` has passed since
    /// their last check (or `conditions` says so). Returns the ids of the alerts raised.
    @discardableResult
    func check(conditions: Bool? = nil) async throws -> [Int64] {
        let now = environment.clock.now()
        let conditionsDue = conditions ?? lastConditions.withLock { last in
            guard last.map({ now.timeIntervalSince($0) < conditionInterval }) ?? false else {
                last = now
                return true
            }
            return false
        }
        var raised: [Int64] = []
        if conditionsDue {
            // The day tallies' changes are folded here too, so that they stay few however long
            // nobody opens an overview (``ServerStore/foldDayTallies()``).
            do { try await store.foldDayTallies() } catch { logger.error("folding the day tallies failed: \(error)") }
        }
        let byStudy = Dictionary(grouping: try await store.alertRulesInForce(), by: \.studyId)
        for (studyId, rules) in byStudy.sorted(by: { $0.key < $1.key }) {
            // One study's failure (a definition that no longer decodes) does not hold up the others.
            do {
                raised += try await checkSafety(studyId: studyId, rules: rules.filter { $0.rule.kind == .safety }, now: now)
                if conditionsDue {
                    raised += try await checkConditions(studyId: studyId, rules: rules.filter { $0.rule.kind != .safety }, now: now)
                }
            } catch {
                logger.error("checking the alert rules of \(studyId) failed: \(error)")
            }
        }
        return raised
    }

    private func checkSafety(studyId: String, rules: [StoredAlertRule], now: Date) async throws -> [Int64] {
        guard !rules.isEmpty else { return [] }
        var raised: [Int64] = []
        let questionnaires = Set(rules.compactMap(\.rule.questionnaireId)).sorted()
        while true {
            let (sheets, through) = try await store.sheetsForAlerts(studyId: studyId, questionnaires: questionnaires,
                                                                    before: now.addingTimeInterval(-settle), limit: Self.batch)
            for sheet in sheets {
                guard let document = try await store.questionnaire(id: sheet.sheet.questionnaireID, version: sheet.sheet.questionnaireVersion) else { continue }
                for rule in rules where sheet.receivedAt >= rule.createdAt && rule.rule.matches(sheet.sheet, definition: document.definition) {
                    if let id = try await raise(rule, userId: sheet.userId, pseudonym: sheet.pseudonym,
                                                occurrence: "sheet:\(sheet.sheet.id.uuidString.lowercased())", now: now) {
                        raised.append(id)
                    }
                }
            }
            if let through { try await store.advanceAlertCursor(studyId: studyId, to: through) }
            if sheets.count < Self.batch { break }
        }
        return raised
    }

    private func checkConditions(studyId: String, rules: [StoredAlertRule], now: Date) async throws -> [Int64] {
        guard !rules.isEmpty else { return [] }
        var raised: [Int64] = []
        let members = try await store.memberActivity(studyId: studyId)
        let ids = Dictionary(members.map { ($0.pseudonym, $0.userId) }, uniquingKeysWith: { first, _ in first })
        let today = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        for rule in rules {
            let days = rule.rule.days ?? 1
            switch rule.rule.kind {
            case .safety:
                continue
            case .silence:
                for member in members where now.timeIntervalSince(member.since) >= Double(days) * 86_400 {
                    if let id = try await raise(rule, userId: member.userId, pseudonym: member.pseudonym,
                                                occurrence: "since:\(Int(member.since.timeIntervalSince1970))", now: now) { raised.append(id) }
                }
            case .adherence:
                let counts = Mutex<[String: AdherenceCounts]>([:])
                try await store.adherence(studyId: studyId, from: now.addingTimeInterval(-Double(days) * 86_400), to: now) { line in
                    counts.withLock { $0[line.participant, default: AdherenceCounts()].add(line.counts) }
                }
                let least = (rule.rule.percent ?? 0) / 100
                for (pseudonym, counts) in counts.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
                    guard let userId = ids[pseudonym], let rate = counts.rate, rate < least - 1e-9 else { continue }
                    if let id = try await raise(rule, userId: userId, pseudonym: pseudonym, occurrence: "period:\(today / days)", now: now) {
                        raised.append(id)
                    }
                }
            case .consent:
                guard let study = try await store.study(id: studyId), let current = study.consentVersion,
                      let published = try await store.consentVersions(studyId: studyId).first(where: { $0.version == current })?.publishedAt,
                      now.timeIntervalSince(published) >= Double(days) * 86_400 else { continue }
                for member in try await store.membersWithoutConsent(studyId: studyId, version: current) {
                    if let id = try await raise(rule, userId: member.userId, pseudonym: member.pseudonym, occurrence: "version:\(current)", now: now) {
                        raised.append(id)
                    }
                }
            }
        }
        return raised
    }

    /// Raises the alert (once) and, when it is new, mails the members the rule names; a member
    /// held to a site only when the participant is of that site (a site's staff learn nothing of
    /// another site's participants, not even a pseudonym).
    private func raise(_ rule: StoredAlertRule, userId: Int64, pseudonym: String, occurrence: String, now: Date) async throws -> Int64? {
        guard let id = try await store.raiseAlert(rule, userId: userId, pseudonym: pseudonym, occurrence: occurrence, now: now) else { return nil }
        let held = try await store.staffSites(studyId: rule.studyId)
        var site: String?
        if !held.isEmpty { site = try await store.memberSites(studyId: rule.studyId)[userId] }
        let team = try await store.studyTeam(studyId: rule.studyId).filter { entry in
            rule.rule.roles.contains(entry.role) && entry.member.enrolled
                && (entry.role == .owner || held[entry.member.id].map { $0 == site } ?? true)
        }
        let study = try await store.study(id: rule.studyId)
        let link = "\(environment.publicURL ?? "")/console/studies/\(rule.studyId)/participants/\(pseudonym)"
        // Each member's mail in their language (``StaffMember/mailLanguages``).
        func mail(to member: StaffMember) -> OutgoingMail {
            let languages = member.mailLanguages
            func values(_ language: String) -> [String: String] {
                ["study": study?.title.text(in: language, fallback: study?.fallbackLanguage) ?? rule.studyId, "rule": rule.rule.name,
                 "participant": pseudonym, "link": link, "kind": PortalText.text("console.alerts.kind.\(rule.rule.kind.rawValue)", language)]
            }
            let subject = languages.map { PortalText.text("mail.alert.subject", $0, values($0)) }.joined(separator: " / ")
            let body = languages.map { PortalText.text("mail.alert.body", $0, values($0)) }.joined(separator: "\n----\n\n")
            return OutgoingMail(to: member.email, subject: subject, body: body)
        }
        guard !team.isEmpty else {
            logger.warning("alert \(id) of \(rule.studyId): no enrolled team member has a role the rule mails")
            return id
        }
        try await store.appendAudit(.server, studyId: rule.studyId, action: "alert.mail", detail: .object([
            "alert": .number(Double(id)), "participant": .string(pseudonym),
            "to": .array(team.map { .number(Double($0.member.id)) }),
        ]), now: now)
        for member in team {
            environment.mail.enqueue(mail(to: member.member))
        }
        logger.info("alert \(id) raised by rule \(rule.id) of \(rule.studyId); mailed to \(team.count)")
        return id
    }
}
