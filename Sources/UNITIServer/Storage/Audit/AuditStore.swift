import Foundation
import UNITIProtocol

/// Who made a change: a staff member in the console, or the machine's operator with a
/// `uniti-server` subcommand (who may be anyone with the database; the line says so).
public enum AuditActor: Sendable, Hashable {
    case `operator`
    case staff(Int64)
}

/// One line of the audit trail (``StaffSchema``, `audit_log`).
public struct AuditEntry: Sendable, Hashable, Encodable {
    public var id: Int64
    public var at: Date
    public var actor: AuditActor
    /// The staff member's name and address when the actor is one (nil for the operator).
    public var actorName: String?
    public var studyId: String?
    /// What was done, a dotted word (`study.update`, `export`, `team.add`, ...).
    public var action: String
    /// What changed, as JSON (for an export: format, filters and rows).
    public var detail: JSONValue

    enum CodingKeys: String, CodingKey { case id, at, actor, study, action, detail }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(Timestamps.format(at), forKey: .at)
        try container.encode(actorText, forKey: .actor)
        try container.encodeIfPresent(studyId, forKey: .study)
        try container.encode(action, forKey: .action)
        try container.encode(detail, forKey: .detail)
    }

    /// `operator`, or the staff member's name, address and id.
    public var actorText: String {
        switch actor {
        case .operator: "operator"
        case .staff(let id): "\(actorName ?? "staff") (staff \(id))"
        }
    }
}

/// The audit trail: appended to, read, and nothing else (no path here updates or deletes a line,
/// and the tables' triggers refuse one written by hand).
extension ServerStore {
    /// Appends one line.
    func appendAudit(_ actor: AuditActor, studyId: String?, action: String, detail: JSONValue, now: Date) async throws {
        try await Self.appendAudit(database, actor, studyId: studyId, action: action, detail: detail, now: now)
    }

    /// ``appendAudit(_:studyId:action:detail:now:)`` in the caller's transaction (a change and its
    /// line commit together).
    static func appendAudit(_ db: any SQLExecutor, _ actor: AuditActor, studyId: String?, action: String, detail: JSONValue,
                            now: Date) async throws {
        let staffId: Int64? = if case .staff(let id) = actor { id } else { nil }
        let text = try JSONCoding.string(detail)
        try await db.execute("""
            INSERT INTO audit_log (at, staff_id, study_id, action, detail)
            VALUES (\(now), \(staffId), \(studyId), \(action), \(text))
            """)
    }

    /// A study's lines, oldest first.
    func auditTrail(studyId: String) async throws -> [AuditEntry] {
        try await database.rows("""
            SELECT a.id, a.at, a.staff_id, a.study_id, a.action, a.detail, s.name AS staff_name, s.email AS staff_email
            FROM audit_log a LEFT JOIN staff s ON s.id = a.staff_id WHERE a.study_id = \(studyId) ORDER BY a.id
            """).map { row in
            let staffId: Int64? = try row["staff_id"]
            let name: String? = try row["staff_name"]
            let email: String? = try row["staff_email"]
            return AuditEntry(id: try row["id"], at: try row["at"], actor: staffId.map { .staff($0) } ?? .operator,
                              actorName: name.map { n in email.map { "\(n) <\($0)>" } ?? n }, studyId: try row["study_id"],
                              action: try row["action"],
                              detail: try JSONCoding.decode(JSONValue.self, from: try row["detail"] as String))
        }
    }
}
