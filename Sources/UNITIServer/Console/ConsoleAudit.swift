import Foundation
import HTTPTypes
import Hummingbird
import UNITIProtocol
import UNITIText

/// Audit: a study's trail (its owners) and the account-wide trail (administrators).
extension ConsolePage {
    static let audit = study("audit", "studies/:study/audit", .owner, tab: "audit") { try await $0.audit($2) }
    static let accountAudit = administrator("accountAudit", "audit") { try await $0.accountAudit($1, $2) }

    /// This feature's pages, in the order of its tabs (``all``).
    static let auditPages: [ConsolePage] = [audit, accountAudit]
}

extension ConsoleRoutes {
    /// The study's trail, oldest first.
    func audit(_ context: StudyContext) async throws -> Response {
        try await page(ConsoleAuditPage(lines: Self.lines(try await store.auditTrail(studyId: context.study.study.id)), accountWide: false), context)
    }

    /// Every line, of every study and of the staff accounts (who was added, enrolled, used a
    /// recovery code, changed a password, was disabled): an administrator's page.
    func accountAudit(_ request: Request, _ context: StaffContext) async throws -> Response {
        try await page(ConsoleAuditPage(lines: Self.lines(try await store.auditTrail()), accountWide: true), context)
    }

    static func lines(_ entries: [AuditEntry]) -> [ConsoleAuditPage.Line] {
        entries.map {
            ConsoleAuditPage.Line(at: Timestamps.format($0.at), who: $0.actorText, study: $0.studyId ?? "", action: $0.action,
                                  detail: (try? JSONCoding.string($0.detail)) ?? "")
        }
    }
}
