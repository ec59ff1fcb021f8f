import Foundation
import Hummingbird
import UNITIProtocol

/// Alerts: a study's alert rules (``AlertRule``), the alerts they raised, and marking one seen
/// with a note. Viewers read them (a monitor follows the alerts); editors make and remove rules
/// and mark alerts seen. The overview counts the open alerts and a participant's page lists theirs.
extension ConsolePage {
    static let alerts = study("alerts", "studies/:study/alerts", .viewer, tab: "alerts", site: true) { try await $0.alerts($1, $2) }
    static let addAlertRule = study("addAlertRule", .post, "studies/:study/alerts/rules", .editor) { try await $0.addAlertRule($1, $2) }
    static let removeAlertRule = study("removeAlertRule", .post, "studies/:study/alerts/rules/:rule/remove", .editor) {
        try await $0.removeAlertRule($2)
    }
    static let markAlertSeen = study("markAlertSeen", .post, "studies/:study/alerts/:alert/seen", .editor, site: true) { try await $0.markAlertSeen($1, $2) }

    /// This feature's pages (``all``).
    static let alertPages: [ConsolePage] = [alerts, addAlertRule, removeAlertRule, markAlertSeen]
}

/// The rule form as typed, kept when it is shown again with its problems.
struct AlertRuleForm: Sendable {
    var name = ""
    var kind = AlertRule.Kind.safety.rawValue
    /// `questionnaire|item|label` or `questionnaire|score|id`.
    var target = ""
    var comparison = AlertRule.Comparison.atLeast.rawValue
    var threshold = ""
    var grades = ""
    var percent = ""
    var days = ""
    var roles: Set<String> = [StudyRole.editor.rawValue, StudyRole.owner.rawValue]
    var reviewed = false

    init() {}

    init(_ form: PortalForm) {
        name = form["name"].trimmingCharacters(in: .whitespacesAndNewlines)
        kind = form["kind"]
        target = form["target"]
        comparison = form["comparison"]
        threshold = form["threshold"].trimmingCharacters(in: .whitespaces)
        grades = form["grades"]
        percent = form["percent"].trimmingCharacters(in: .whitespaces)
        days = form["days"].trimmingCharacters(in: .whitespaces)
        roles = Set(StudyRole.allCases.map(\.rawValue).filter { !form["role-\($0)"].isEmpty })
        reviewed = !form["reviewed"].isEmpty
    }

    /// The rule the form describes (fields of other kinds left out), or the field whose value
    /// cannot be read at all.
    var rule: AlertRule {
        let kind = AlertRule.Kind(rawValue: kind) ?? .safety
        let parts = target.split(separator: "|", maxSplits: 2).map(String.init)
        let number = { (text: String) in Double(text.replacingOccurrences(of: ",", with: ".")) }
        var rule = AlertRule(name: name, kind: kind, roles: StudyRole.allCases.filter { roles.contains($0.rawValue) }, reviewed: reviewed)
        switch kind {
        case .safety:
            rule.questionnaireId = parts.first
            if parts.count == 3 {
                if parts[1] == "item" { rule.item = parts[2] } else if parts[1] == "score" { rule.score = parts[2] }
            }
            rule.comparison = AlertRule.Comparison(rawValue: comparison)
            if rule.comparison == .grade {
                rule.grades = grades.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } else {
                rule.threshold = number(threshold)
            }
        case .adherence:
            rule.percent = number(percent)
            rule.days = Int(days)
        case .silence, .consent:
            rule.days = Int(days)
        }
        return rule
    }
}

extension AlertRule {
    init(name: String, kind: Kind, roles: [StudyRole], reviewed: Bool) {
        self.init(name: name, kind: kind, questionnaireId: nil, item: nil, score: nil, comparison: nil, threshold: nil, grades: nil,
                  percent: nil, days: nil, roles: roles, reviewed: reviewed)
    }

    /// The rule in a line of the page's language: what it watches and whom it mails.
    func summary(_ language: String) -> String {
        let t = { (key: String, values: [String: String]) in PortalText.text(key, language, values) }
        let number = { (value: Double?) in value.map { $0.rounded() == $0 ? String(Int($0)) : String($0) } ?? "" }
        let watched: String
        switch kind {
        case .safety:
            let target = item.map { t("console.alerts.summary.item", ["item": $0]) } ?? t("console.alerts.summary.score", ["score": score ?? ""])
            let test = comparison == .grade ? t("console.alerts.summary.grade", ["grades": (grades ?? []).joined(separator: ", ")])
                : t("console.alerts.summary.\(comparison?.rawValue ?? "atLeast")", ["threshold": number(threshold)])
            watched = t("console.alerts.summary.safety", ["questionnaire": questionnaireId ?? "", "target": target, "test": test])
        case .adherence:
            watched = t("console.alerts.summary.adherence", ["percent": number(percent), "days": String(days ?? 0)])
        case .silence, .consent:
            watched = t("console.alerts.summary.\(kind.rawValue)", ["days": String(days ?? 0)])
        }
        let whom = roles.map { t("console.role.\($0.rawValue)", [:]) }.joined(separator: ", ")
        return watched + " " + t("console.alerts.summary.mails", ["roles": whom])
            + " " + t(reviewed ? "console.alerts.summary.reviewed" : "console.alerts.summary.notReviewed", [:])
    }
}

extension ConsoleRoutes {
    func alerts(_ request: Request, _ context: StudyContext) async throws -> Response {
        try await page(alertsPage(context, form: AlertRuleForm()), context, notice: notice(request, context.console.language))
    }

    func alertsPage(_ context: StudyContext, form: AlertRuleForm, errors: [String: String] = [:]) async throws -> ConsoleAlertsPage {
        let study = context.study.study, language = context.console.language
        let canEdit = ConsolePage.addAlertRule.allows(context.study)
        let t = { (key: String) in PortalText.text(key, language) }
        let all = try await reachableAlerts(context)
        var targets: [ConsoleSettingsPage.Choice] = []
        for document in try await store.latestQuestionnaires(studyId: study.id) {
            let definition = document.definition
            for item in definition.items where item.element.isQuestion && item.element.isNumeric {
                let value = "\(document.id)|item|\(item.label)"
                targets.append(.init(value: value, label: "\(document.id): \(item.label)", chosen: form.target == value))
            }
            for score in definition.scoring?.scores ?? [] {
                let value = "\(document.id)|score|\(score.id)"
                let grades = score.bands.map(\.grade).joined(separator: ", ")
                targets.append(.init(value: value, label: "\(document.id): \(t("console.alerts.score")) \(score.id)" + (grades.isEmpty ? "" : " (\(grades))"),
                                     chosen: form.target == value))
            }
        }
        let seen = all.filter { $0.seenAt != nil }.prefix(100).map { alertRow($0, study: study.id, language) }
        return ConsoleAlertsPage(
            open: all.filter { $0.seenAt == nil }.map { alertRow($0, study: study.id, language) },
            seen: seen, hasSeen: !seen.isEmpty,
            rules: try await store.alertRules(studyId: study.id).map {
                .init(id: $0.id, name: $0.rule.name, kind: t("console.alerts.kind.\($0.rule.kind.rawValue)"), summary: $0.rule.summary(language),
                      created: Timestamps.format($0.createdAt))
            },
            canEdit: canEdit, name: form.name,
            kinds: AlertRule.Kind.allCases.map { .init(value: $0.rawValue, label: t("console.alerts.kind.\($0.rawValue)"), chosen: form.kind == $0.rawValue) },
            targets: targets,
            comparisons: AlertRule.Comparison.allCases.map {
                .init(value: $0.rawValue, label: t("console.alerts.comparison.\($0.rawValue)"), chosen: form.comparison == $0.rawValue)
            },
            threshold: form.threshold, grades: form.grades, percent: form.percent, days: form.days,
            roles: StudyRole.allCases.map { .init(value: $0.rawValue, label: t("console.role.\($0.rawValue)"), chosen: form.roles.contains($0.rawValue)) },
            reviewed: form.reviewed, errors: errors.mapValues { t($0) })
    }

    /// The study's alerts the member reaches: all of them, or for a site's staff those about
    /// their site's participants.
    func reachableAlerts(_ context: StudyContext) async throws -> [StudyAlert] {
        let all = try await store.studyAlerts(studyId: context.study.study.id)
        guard context.study.site != nil else { return all }
        let reached = Set(try await store.studyParticipants(studyId: context.study.study.id).filter(context.study.reaches).map(\.pseudonym))
        return all.filter { reached.contains($0.pseudonym) }
    }

    func alertRow(_ alert: StudyAlert, study: String, _ language: String) -> ConsoleAlertsPage.Alert {
        .init(id: alert.id, rule: alert.rule.name, kind: PortalText.text("console.alerts.kind.\(alert.rule.kind.rawValue)", language),
              participant: alert.pseudonym, href: ConsolePage.participant.uri(study: study, participant: alert.pseudonym),
              raised: Timestamps.format(alert.raisedAt), seen: alert.seenAt.map(Timestamps.format),
              seenBy: alert.seenByName ?? "", note: alert.note ?? "")
    }

    /// Makes a rule after checking it against the study's questionnaires; each problem is named
    /// beside its field and nothing is stored.
    func addAlertRule(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = AlertRuleForm(try await PortalForm.read(request)), study = context.study.study
        let rule = form.rule
        let definitions = Dictionary(try await store.latestQuestionnaires(studyId: study.id).map { ($0.id, $0.definition) },
                                     uniquingKeysWith: { first, _ in first })
        let problems = rule.problems(questionnaires: definitions)
        guard problems.isEmpty else {
            return try await page(alertsPage(context, form: form, errors: problems), context, status: .unprocessableContent,
                                  error: PortalText.text("console.error.fields", context.console.language))
        }
        _ = try await store.addAlertRule(studyId: study.id, rule, actor: .staff(context.staff.member.id), now: environment.clock.now())
        return context.console.base.redirect(to: ConsolePage.alerts.uri(study: study.id) + "?notice=alertRuleAdded")
    }

    func removeAlertRule(_ context: StudyContext) async throws -> Response {
        let study = context.study.study
        guard let id = context.parameters.get("rule").flatMap(Int64.init),
              try await store.removeAlertRule(studyId: study.id, id: id, actor: .staff(context.staff.member.id), now: environment.clock.now()) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        return context.console.base.redirect(to: ConsolePage.alerts.uri(study: study.id) + "?notice=alertRuleRemoved")
    }

    /// Marks an alert seen with the member's note (required: what was done or why nothing was),
    /// then goes back to the page the form was on (the alerts or the participant's page).
    func markAlertSeen(_ request: Request, _ context: StudyContext) async throws -> Response {
        let form = try await PortalForm.read(request), study = context.study.study
        let note = form["note"].trimmingCharacters(in: .whitespacesAndNewlines)
        guard let id = context.parameters.get("alert").flatMap(Int64.init),
              try await reachableAlerts(context).contains(where: { $0.id == id }) else { throw ConsoleRefusal(.notFound, "console.error.notFound") }
        // Back to the participant's page by the alert's own pseudonym (read from the store, not the form).
        func back(_ pseudonym: String?) -> String {
            guard form["back"] == "participant", let pseudonym else { return ConsolePage.alerts.uri(study: study.id) }
            return ConsolePage.participant.uri(study: study.id, participant: pseudonym)
        }
        guard !note.isEmpty, note.count <= 2000 else {
            let pseudonym = try await store.studyAlerts(studyId: study.id).first { $0.id == id }?.pseudonym
            return context.console.base.redirect(to: back(pseudonym) + "?notice=alertNoteMissing")
        }
        guard let pseudonym = try await store.markAlertSeen(studyId: study.id, id: id, staffId: context.staff.member.id, note: note,
                                                           now: environment.clock.now()) else {
            throw ConsoleRefusal(.notFound, "console.error.notFound")
        }
        return context.console.base.redirect(to: back(pseudonym) + "?notice=alertSeen")
    }
}

struct ConsoleAlertsPage: PortalPage {
    var template: String { "console_alerts" }
    var open: [Alert]
    var seen: [Alert]
    var hasSeen: Bool
    var rules: [Rule]
    /// Whether the member may make and remove rules and mark alerts seen (a viewer reads).
    var canEdit: Bool
    var name: String
    var kinds: [ConsoleSettingsPage.Choice]
    var targets: [ConsoleSettingsPage.Choice]
    var comparisons: [ConsoleSettingsPage.Choice]
    var threshold: String
    var grades: String
    var percent: String
    var days: String
    var roles: [ConsoleSettingsPage.Choice]
    var reviewed: Bool
    /// Problems by field (`name`, `target`, `threshold`, `grades`, `percent`, `days`, `roles`, `questionnaire`).
    var errors: [String: String]

    struct Alert: Sendable {
        var id: Int64
        var rule: String
        var kind: String
        var participant: String
        var href: String
        var raised: String
        /// When it was marked seen; nil while it waits.
        var seen: String?
        var seenBy: String
        var note: String
    }

    struct Rule: Sendable {
        var id: Int64
        var name: String
        var kind: String
        var summary: String
        var created: String
    }
}
