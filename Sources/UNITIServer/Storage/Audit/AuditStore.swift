import Foundation
import UNITIProtocol

/// Who made a change: a staff member in the console, the machine's operator with a
/// `uniti-server` subcommand (who may be anyone with the database; the line says so), or a
/// participant, by their pseudonym only (joining, agreeing to a consent version, leaving,
/// deleting their account), or the server itself (an alert raised by a rule).
public enum AuditActor: Sendable, Hashable {
    case `operator`
    case server
    case staff(Int64)
    case participant(String)
}

/// One line of the audit trail before it is written: who, in which study (nil: a staff
/// account's own line), what, and its detail. A store change that commits with its lines takes
/// them as values (``ServerStore/leaveStudy(userId:studyId:deleteAnswers:now:recording:)``).
struct AuditRecord: Sendable {
    var actor: AuditActor
    var studyId: String?
    var action: String
    var detail: [String: JSONValue]
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

    /// `operator`, the staff member's name, address and id, or the participant's pseudonym.
    public var actorText: String {
        switch actor {
        case .operator: "operator"
        case .server: "server"
        case .staff(let id): "\(actorName ?? "staff") (staff \(id))"
        case .participant(let pseudonym): "participant \(pseudonym)"
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
        let participant: String? = if case .participant(let pseudonym) = actor { pseudonym } else { nil }
        let text = try JSONCoding.string(detail)
        try await db.execute("""
            INSERT INTO audit_log (at, staff_id, participant, study_id, action, detail, by_server)
            VALUES (\(now), \(staffId), \(participant), \(studyId), \(action), \(text), \(actor == .server))
            """)
    }

    /// Appends the records in the caller's transaction.
    static func appendAudit(_ db: any SQLExecutor, _ records: [AuditRecord], now: Date) async throws {
        for record in records {
            try await appendAudit(db, record.actor, studyId: record.studyId, action: record.action, detail: .object(record.detail), now: now)
        }
    }

    /// A study's lines, oldest first.
    func auditTrail(studyId: String) async throws -> [AuditEntry] {
        try await auditLines(where: "a.study_id = \(studyId)")
    }

    /// Every line, of every study and of the staff accounts (those without a study), oldest
    /// first: the account-wide trail administrators read (`/console/audit`, `uniti-server audit`).
    func auditTrail() async throws -> [AuditEntry] {
        try await auditLines(where: "1 = 1")
    }

    /// The lines of a study about one participant, oldest first: what they did (joined, asked,
    /// agreed, left), the team's decisions on their requests, the alerts about them (raised,
    /// seen), and their randomisation.
    func participantHistory(studyId: String, pseudonym: String) async throws -> [AuditEntry] {
        try await auditLines(where: "a.study_id = \(studyId) AND (a.participant = \(pseudonym) OR a.action LIKE 'joinRequest.%' OR a.action LIKE 'alert.%' OR a.action LIKE 'trial.%' OR a.action LIKE 'site.%')")
            .filter { $0.actor == .participant(pseudonym) || $0.detail["participant"] == .string(pseudonym) }
    }

    /// How a study's participants left it and whether their answers went with them, by
    /// pseudonym (the newest leaving counts), and how many deleted their account while in it.
    func departures(studyId: String) async throws -> (answersDeleted: [String: Bool], accountsDeleted: Int) {
        var deleted: [String: Bool] = [:]
        var accounts = Set<String>()
        for line in try await auditLines(where: "a.study_id = \(studyId) AND a.action IN ('participant.leave', 'participant.deleteAccount')") {
            guard case .participant(let pseudonym) = line.actor else { continue }
            if line.action == "participant.deleteAccount" { accounts.insert(pseudonym) } else { deleted[pseudonym] = line.detail["answers"] == .string("deleted") }
        }
        return (deleted, accounts.count)
    }

    private func auditLines(where condition: SQL) async throws -> [AuditEntry] {
        try await database.rows("""
            SELECT a.id, a.at, a.staff_id, a.participant, a.study_id, a.action, a.detail, a.by_server, s.name AS staff_name, s.email AS staff_email
            FROM audit_log a LEFT JOIN staff s ON s.id = a.staff_id WHERE \(condition) ORDER BY a.id
            """).map { row in
            let line = try row.decode(AuditLine.self)
            let actor: AuditActor = if let staffId = line.staffId { .staff(staffId) }
                else if let participant = line.participant { .participant(participant) } else if line.byServer { .server } else { .operator }
            return AuditEntry(id: line.id, at: line.at, actor: actor,
                              actorName: line.staffName.map { n in line.staffEmail.map { "\(n) <\($0)>" } ?? n },
                              studyId: line.studyId, action: line.action, detail: line.detail)
        }
    }

    /// A row of `audit_log` with its staff member's name and address.
    private struct AuditLine: Decodable {
        var id: Int64, at: Date, staffId: Int64?, participant: String?, studyId: String?, action: String, detail: JSONValue, byServer: Bool
        var staffName: String?, staffEmail: String?
    }
}
