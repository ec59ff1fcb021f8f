import Foundation
import UNITIProtocol

/// Which staff members are blind to allocation in a study (``TrialSchema``'s `trial_blinding`):
/// they see arms as codes, everywhere the console shows or exports one. Blinding and unblinding
/// are an owner's acts, each with its audit line (`trial.blind`, `trial.unblind`), which names
/// the member, never an arm.
extension ServerStore {
    /// Whether the member is blind to allocation in the study.
    func isBlinded(staffId: Int64, studyId: String) async throws -> Bool {
        try await database.row("SELECT 1 AS one FROM trial_blinding WHERE study_id = \(studyId) AND staff_id = \(staffId)") != nil
    }

    /// The study's blinded members, by staff id.
    func blindedStaff(studyId: String) async throws -> Set<Int64> {
        Set(try await database.rows("SELECT staff_id FROM trial_blinding WHERE study_id = \(studyId)").map { try $0["staff_id"] })
    }

    /// Makes the member blind (`blinded`) or unblinds them, with the audit line; false when they
    /// were so already (nothing written).
    func setBlinded(_ blinded: Bool, member: StaffMember, studyId: String, actor: AuditActor, now: Date) async throws -> Bool {
        try await database.transaction { db in
            let changed = if blinded {
                try await db.rows("""
                    INSERT INTO trial_blinding (study_id, staff_id, since) VALUES (\(studyId), \(member.id), \(now))
                    ON CONFLICT (study_id, staff_id) DO NOTHING RETURNING staff_id
                    """).isEmpty == false
            } else {
                try await db.rows("DELETE FROM trial_blinding WHERE study_id = \(studyId) AND staff_id = \(member.id) RETURNING staff_id").isEmpty == false
            }
            if changed {
                try await Self.appendAudit(db, actor, studyId: studyId, action: blinded ? "trial.blind" : "trial.unblind",
                                           detail: .object(["member": .string(member.email)]), now: now)
            }
            return changed
        }
    }
}
