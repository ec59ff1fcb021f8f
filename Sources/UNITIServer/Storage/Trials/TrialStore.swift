import Foundation
import UNITIProtocol

/// A randomised study's design and seed as stored.
struct StoredTrial: Sendable {
    var design: TrialDesign
    var seed: Data
    var createdAt: Date
}

/// An allocation with whom (nil: an erased account) and when it was made.
struct StoredAllocation: Sendable, Equatable {
    var allocation: Randomiser.Allocation
    var userId: Int64?
    var pseudonym: String?
    var allocatedAt: Date
}

/// Where trials and their allocations are kept (``TrialSchema``). An allocation is made in one
/// transaction that holds the study's allocation lock, reads every earlier allocation, works out
/// the next one (``Randomiser``) and inserts it; the table's keys would refuse a number or a
/// place given twice if the lock ever failed.
extension ServerStore {
    /// Stores the design and seed of a study's trial, replacing one no participant was
    /// randomised by; throws when someone was (the design is fixed from then on).
    func setTrial(studyId: String, design: TrialDesign, seed: Data, actor: AuditActor, now: Date) async throws {
        let text = try JSONCoding.string(design), seedText = seed.base64EncodedString()
        try await database.transaction { db in
            if let count: Int64 = try await db.row("SELECT COUNT(*) AS n FROM allocations WHERE study_id = \(studyId)")?["n"], count > 0 {
                throw TrialError("\(count) participant(s) of \(studyId) are randomised already: the design is fixed")
            }
            try await db.execute("""
                INSERT INTO trials (study_id, design, seed, created_at) VALUES (\(studyId), \(text), \(seedText), \(now))
                ON CONFLICT (study_id) DO UPDATE SET design = excluded.design, seed = excluded.seed, created_at = excluded.created_at
                """)
            try await Self.appendAudit(db, actor, studyId: studyId, action: "trial.setup", detail: .object([
                "method": .string(design.method.rawValue), "arms": .array(design.arms.map { .string("\($0.id) (\($0.ratio))") }),
                "factors": .array(design.factors.map { .string($0.id) }),
            ]), now: now)
        }
    }

    /// The study's trial; nil when it has none.
    func trial(studyId: String) async throws -> StoredTrial? {
        try await Self.trial(database, studyId: studyId)
    }

    private static func trial(_ db: any SQLExecutor, studyId: String) async throws -> StoredTrial? {
        guard let row = try await db.row("SELECT design, seed, created_at FROM trials WHERE study_id = \(studyId)") else { return nil }
        guard let seed = Data(base64Encoded: try row["seed"] as String) else { throw StoreCorruption("the trial of \(studyId) has an unreadable seed") }
        return StoredTrial(design: try JSONCoding.decode(TrialDesign.self, from: try row["design"]), seed: seed, createdAt: try row["created_at"])
    }

    /// The study's allocations in the order they were made.
    func allocations(studyId: String) async throws -> [StoredAllocation] {
        try await Self.allocations(database, studyId: studyId)
    }

    /// The study's allocations in order, or (with `userId`) that person's.
    private static func allocations(_ db: any SQLExecutor, studyId: String, userId: Int64? = nil) async throws -> [StoredAllocation] {
        var sql: SQL = """
            SELECT a.sequence, a.levels, a.stratum, a.place, a.arm, a.user_id, u.pseudonym, a.allocated_at
            FROM allocations a LEFT JOIN users u ON u.id = a.user_id
            WHERE a.study_id = \(studyId)
            """
        if let userId { sql += " AND a.user_id = \(userId)" }
        return try await db.rows(sql + " ORDER BY a.sequence").map { row in
            StoredAllocation(
                allocation: Randomiser.Allocation(sequence: Int(try row["sequence"] as Int64),
                                                  levels: try JSONCoding.decode([String].self, from: try row["levels"]),
                                                  stratum: try row["stratum"], place: Int(try row["place"] as Int64), arm: try row["arm"]),
                userId: try row["user_id"], pseudonym: try row["pseudonym"], allocatedAt: try row["allocated_at"])
        }
    }

    /// The person's allocation in the study; nil when they were not randomised.
    func allocation(studyId: String, userId: Int64) async throws -> StoredAllocation? {
        try await Self.allocations(database, studyId: studyId, userId: userId).first
    }

    /// Randomises the participant: the next allocation of the study for these levels, recorded
    /// with its audit line (which names the sequence number and stratum, not the arm: the audit
    /// trail is read by blinded staff too). Throws ``TrialError`` when the person was randomised
    /// already or the study has no trial.
    func randomise(studyId: String, userId: Int64, pseudonym: String, levels: [String], actor: AuditActor, now: Date) async throws -> Randomiser.Allocation {
        try await database.transaction { db in
            // One allocation of a study at a time, in every process: each follows from all the
            // allocations before it. (SQLite's write transaction is one at a time anyway.)
            try await db.lock(.name(studyId, .allocations))
            guard let trial = try await Self.trial(db, studyId: studyId) else { throw TrialError("\(studyId) is not a randomised study") }
            let earlier = try await Self.allocations(db, studyId: studyId)
            if let made = earlier.first(where: { $0.userId == userId }) {
                throw TrialError("\(pseudonym) was randomised already (number \(made.allocation.sequence), \(Timestamps.format(made.allocatedAt))); an allocation is final")
            }
            let randomiser = Randomiser(design: trial.design, seed: trial.seed)
            var state = Randomiser.State(design: trial.design)
            for made in earlier { try randomiser.record(made.allocation, in: &state) }
            let allocation = randomiser.allocate(levels, in: &state)
            let staffId: Int64? = if case .staff(let id) = actor { id } else { nil }
            try await db.execute("""
                INSERT INTO allocations (study_id, sequence, user_id, levels, stratum, place, arm, allocated_at, allocated_by)
                VALUES (\(studyId), \(allocation.sequence), \(userId), \(try JSONCoding.string(levels)), \(allocation.stratum),
                        \(allocation.place), \(allocation.arm), \(now), \(staffId))
                """)
            try await Self.appendAudit(db, actor, studyId: studyId, action: "trial.randomise", detail: .object([
                "participant": .string(pseudonym), "sequence": .number(Double(allocation.sequence)), "stratum": .string(allocation.stratum),
            ]), now: now)
            return allocation
        }
    }

    /// When each participant's sheets of these questionnaires in the study were begun, by user
    /// id; with `userId`, that person's only.
    func sheetStarts(studyId: String, questionnaires: [String], userId: Int64? = nil) async throws -> [Int64: [(questionnaire: String, started: Date)]] {
        var starts: [Int64: [(questionnaire: String, started: Date)]] = [:]
        var sql: SQL = """
            SELECT user_id, questionnaire_id, started_at FROM answer_sheets
            WHERE study_id = \(studyId) AND questionnaire_id IN (\(list: questionnaires))
            """
        if let userId { sql += " AND user_id = \(userId)" }
        for row in try await database.rows(sql) {
            starts[try row["user_id"], default: []].append((try row["questionnaire_id"], try row["started_at"]))
        }
        return starts
    }

    /// The participant's newest numeric answer to `item` of `questionnaire` in the study; nil when none.
    func newestNumber(userId: Int64, studyId: String, questionnaire: String, item: String) async throws -> Double? {
        try await database.row("""
            SELECT a.number FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
            WHERE s.user_id = \(userId) AND s.study_id = \(studyId) AND s.questionnaire_id = \(questionnaire)
              AND a.label = \(item) AND a.number IS NOT NULL
            ORDER BY s.started_at DESC, s.id DESC LIMIT 1
            """)?["number"]
    }

    /// When the person last became a member of the study; nil when they never did.
    func joinedAt(studyId: String, userId: Int64) async throws -> Date? {
        try await database.row("SELECT joined_at FROM memberships WHERE study_id = \(studyId) AND user_id = \(userId)")?["joined_at"]
    }
}
