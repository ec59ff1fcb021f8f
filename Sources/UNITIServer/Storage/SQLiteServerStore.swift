import Foundation
import GRDB
import Synchronization
import UNITIProtocol

/// The default `ServerStore`: one SQLite file through GRDB, in WAL mode so that coordinator
/// commands can read and write the same file while `serve` runs; a busy timeout makes the second
/// writer wait instead of failing.
public final class SQLiteServerStore: ServerStore {
    let pool: DatabasePool
    /// Decoded questionnaire versions by `id#version`. A stored version never changes (a changed
    /// definition needs a higher version), so a version once read is kept: every sheet upload
    /// needs its questionnaire, and decoding the definition each time was a large part of it.
    private let questionnaireCache = Mutex<[String: QuestionnaireDocument]>([:])
    /// Sheet uploads arrive concurrently, one small batch each; they share transactions.
    private let sheetWrites: GroupCommit<SheetWrite, [AnswerSheetBatchResult.Outcome]>

    /// Opens (creating if needed) the database at `path` and runs the migrations.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: path, configuration: configuration)
        self.pool = pool
        sheetWrites = GroupCommit(writer: pool) { db, write in try Self.insert(db, write) }
        try ServerMigrations.migrator.migrate(pool)
    }

    // MARK: Accounts

    public func createUser(username: String, email: String, passwordHash: String, language: String,
                           pseudonym: String, now: Date) async throws -> Int64 {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ?", arguments: [username]) != nil {
                throw StoreConflict.usernameTaken
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE email = ?", arguments: [email]) != nil {
                throw StoreConflict.emailTaken
            }
            try db.execute(sql: """
                INSERT INTO users (username, email, password_hash, language, pseudonym, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [username, email, passwordHash, language, pseudonym, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    public func user(id: Int64) async throws -> UserAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]).map(Self.account)
        }
    }

    public func user(login: String) async throws -> UserAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE email = ? OR username = ? LIMIT 1",
                             arguments: [login, login]).map(Self.account)
        }
    }

    public func users() async throws -> [UserAccount] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM users ORDER BY id").map(Self.account)
        }
    }

    public func setActivated(userId: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET activated = 1 WHERE id = ?", arguments: [userId])
        }
    }

    public func setActive(userId: Int64, active: Bool) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET active = ? WHERE id = ?", arguments: [active, userId])
        }
    }

    public func setPasswordHash(userId: Int64, hash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash, userId])
        }
    }

    public func updateProfile(userId: Int64, update: ProfileUpdate) async throws {
        try await pool.write { db in
            if let username = update.username {
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ? AND id != ?",
                                     arguments: [username, userId]) != nil {
                    throw StoreConflict.usernameTaken
                }
                try db.execute(sql: "UPDATE users SET username = ? WHERE id = ?", arguments: [username, userId])
            }
            if let first = update.firstName {
                try db.execute(sql: "UPDATE users SET first_name = ? WHERE id = ?", arguments: [first.isEmpty ? nil : first, userId])
            }
            if let last = update.lastName {
                try db.execute(sql: "UPDATE users SET last_name = ? WHERE id = ?", arguments: [last.isEmpty ? nil : last, userId])
            }
            if let gender = update.gender {
                try db.execute(sql: "UPDATE users SET gender = ? WHERE id = ?", arguments: [gender.rawValue, userId])
            }
            if let language = update.language {
                try db.execute(sql: "UPDATE users SET language = ? WHERE id = ?", arguments: [language, userId])
            }
        }
    }

    public func storeMailToken(userId: Int64, purpose: MailTokenPurpose, tokenHash: String, expiresAt: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO mail_tokens (token_hash, user_id, purpose, expires_at) VALUES (?, ?, ?, ?)",
                           arguments: [tokenHash, userId, purpose.rawValue, expiresAt.timeIntervalSince1970])
        }
    }

    public func consumeMailToken(purpose: MailTokenPurpose, tokenHash: String, now: Date) async throws -> Int64? {
        try await pool.write { db in
            guard let userId = try Int64.fetchOne(db, sql: """
                SELECT user_id FROM mail_tokens
                WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
                """, arguments: [tokenHash, purpose.rawValue, now.timeIntervalSince1970]) else { return nil }
            try db.execute(sql: "UPDATE mail_tokens SET used_at = ? WHERE token_hash = ?",
                           arguments: [now.timeIntervalSince1970, tokenHash])
            return userId
        }
    }

    public func createSession(userId: Int64, accessHash: String, accessExpiresAt: Date, refreshHash: String,
                              refreshExpiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO sessions (user_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [userId, accessHash, accessExpiresAt.timeIntervalSince1970, refreshHash,
                                 refreshExpiresAt.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    public func session(accessHash: String, now: Date) async throws -> (sessionId: Int64, account: UserAccount)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT s.id AS session_id, u.* FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE s.access_hash = ? AND s.revoked_at IS NULL AND s.access_expires_at > ?
                """, arguments: [accessHash, now.timeIntervalSince1970]).map { row -> (sessionId: Int64, account: UserAccount) in
                (sessionId: row["session_id"], account: Self.account(row))
            }
        }
    }

    public func rotateSession(refreshHash: String, newAccessHash: String, accessExpiresAt: Date,
                              newRefreshHash: String, refreshExpiresAt: Date, now: Date) async throws -> Int64? {
        try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT id, user_id FROM sessions
                WHERE refresh_hash = ? AND revoked_at IS NULL AND refresh_expires_at > ?
                """, arguments: [refreshHash, now.timeIntervalSince1970]) else { return nil }
            let sessionId: Int64 = row["id"]
            try db.execute(sql: """
                UPDATE sessions SET access_hash = ?, access_expires_at = ?, refresh_hash = ?, refresh_expires_at = ?
                WHERE id = ?
                """, arguments: [newAccessHash, accessExpiresAt.timeIntervalSince1970, newRefreshHash,
                                 refreshExpiresAt.timeIntervalSince1970, sessionId])
            return row["user_id"]
        }
    }

    public func revokeSession(id: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE id = ?",
                           arguments: [Date().timeIntervalSince1970, id])
        }
    }

    public func revokeSessions(userId: Int64) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                           arguments: [Date().timeIntervalSince1970, userId])
        }
    }

    // MARK: Studies

    public func createStudy(_ study: StudyRecord, now: Date) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM studies WHERE id = ?", arguments: [study.id]) != nil {
                throw StoreConflict.studyExists
            }
            try db.execute(sql: """
                INSERT INTO studies (id, title, description, consent, starts_at, ends_at, running, access, password_hash,
                                     participants_may_leave, modules, schedules, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments(Self.studyValues(study) + [now.timeIntervalSince1970, now.timeIntervalSince1970]))
        }
    }

    public func updateStudy(_ study: StudyRecord, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                UPDATE studies SET title = ?, description = ?, consent = ?, starts_at = ?, ends_at = ?, running = ?,
                    access = ?, password_hash = ?, participants_may_leave = ?, modules = ?, schedules = ?, updated_at = ?
                WHERE id = ?
                """, arguments: StatementArguments(Array(Self.studyValues(study).dropFirst()) + [now.timeIntervalSince1970, study.id]))
        }
    }

    public func study(id: String) async throws -> StudyRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM studies WHERE id = ?", arguments: [id]).map(Self.study)
        }
    }

    public func studies() async throws -> [StudyRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM studies ORDER BY id").map(Self.study)
        }
    }

    public func membership(studyId: String, userId: Int64) async throws -> MembershipStatus {
        try await pool.read { db in
            let raw = try String.fetchOne(db, sql: "SELECT status FROM memberships WHERE study_id = ? AND user_id = ?",
                                          arguments: [studyId, userId])
            return raw.flatMap(MembershipStatus.init(rawValue:)) ?? .none
        }
    }

    public func memberships(userId: Int64) async throws -> [String: MembershipStatus] {
        try await pool.read { db in
            var result: [String: MembershipStatus] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT study_id, status FROM memberships WHERE user_id = ?", arguments: [userId]) {
                result[row["study_id"]] = MembershipStatus(rawValue: row["status"]) ?? MembershipStatus.none
            }
            return result
        }
    }

    public func setMembership(studyId: String, userId: Int64, status: MembershipStatus, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO memberships (study_id, user_id, status, requested_at, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (study_id, user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at,
                    requested_at = CASE WHEN excluded.status = 'pending' THEN excluded.requested_at ELSE memberships.requested_at END
                """, arguments: [studyId, userId, status.rawValue, now.timeIntervalSince1970, now.timeIntervalSince1970])
        }
    }

    public func joinRequests(studyId: String?) async throws -> [JoinRequestRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT m.study_id, m.user_id, u.username, m.status, m.requested_at
                FROM memberships m JOIN users u ON u.id = m.user_id JOIN studies s ON s.id = m.study_id
                WHERE s.access = 'byRequest' AND (? IS NULL OR m.study_id = ?)
                ORDER BY m.requested_at, m.user_id
                """, arguments: [studyId, studyId]).map { row in
                JoinRequestRecord(studyId: row["study_id"], userId: row["user_id"], username: row["username"],
                                  status: MembershipStatus(rawValue: row["status"]) ?? .pending,
                                  requestedAt: Date(timeIntervalSince1970: row["requested_at"]))
            }
        }
    }

    // MARK: Questionnaires

    public func addQuestionnaire(_ document: QuestionnaireDocument, now: Date) async throws -> Bool {
        let text = try JSONCoding.string(document.definition)
        return try await pool.write { db in
            if let existing = try Row.fetchOne(db, sql: "SELECT study_id, definition FROM questionnaires WHERE id = ? AND version = ?",
                                               arguments: [document.id, document.version]) {
                let sameStudy = (existing["study_id"] as String) == document.studyId
                if sameStudy && (existing["definition"] as String) == text { return false }
                throw APIError.invalid("version_exists", "Questionnaire \(document.id) version \(document.version) is already stored with other content; give the changed definition a higher version.")
            }
            if let owner = try String.fetchOne(db, sql: "SELECT study_id FROM questionnaires WHERE id = ? LIMIT 1", arguments: [document.id]),
               owner != document.studyId {
                throw APIError.invalid("questionnaire_owned", "Questionnaire \(document.id) belongs to study \(owner).")
            }
            try db.execute(sql: "INSERT INTO questionnaires (id, version, study_id, definition, imported_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [document.id, document.version, document.studyId, text, now.timeIntervalSince1970])
            return true
        }
    }

    public func questionnaire(id: String, version: Int) async throws -> QuestionnaireDocument? {
        let key = "\(id)#\(version)"
        if let cached = questionnaireCache.withLock({ $0[key] }) { return cached }
        let document = try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM questionnaires WHERE id = ? AND version = ?", arguments: [id, version])
                .map(Self.questionnaire)
        }
        if let document { questionnaireCache.withLock { $0[key] = document } }
        return document
    }

    public func studyId(ofQuestionnaire id: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT study_id FROM questionnaires WHERE id = ? LIMIT 1", arguments: [id])
        }
    }

    public func latestQuestionnaires(studyId: String) async throws -> [QuestionnaireDocument] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT q.* FROM questionnaires q
                WHERE q.study_id = ? AND q.version = (SELECT MAX(version) FROM questionnaires WHERE id = q.id)
                ORDER BY q.id
                """, arguments: [studyId]).map(Self.questionnaire)
        }
    }

    // MARK: Answer sheets

    /// One upload's sheets, encoded outside the transaction.
    struct SheetWrite: Sendable {
        struct Row: Sendable {
            let validated: ValidatedSheet
            let json: String
            /// (label, answer, value as JSON) in label order.
            let answers: [(String, Answer, String)]
        }
        let userId: Int64
        let rows: [Row]
        let receivedAt: Date
    }

    public func storeSheets(userId: Int64, sheets: [ValidatedSheet], receivedAt: Date) async throws -> [AnswerSheetBatchResult.Outcome] {
        let rows = try sheets.map { validated in
            SheetWrite.Row(validated: validated, json: try JSONCoding.string(validated.sheet),
                           answers: try validated.sheet.answers.keys.sorted().map { label in
                               let answer = validated.sheet.answers[label]!
                               return (label, answer, try JSONCoding.string(answer.value))
                           })
        }
        return try await sheetWrites.submit(SheetWrite(userId: userId, rows: rows, receivedAt: receivedAt))
    }

    private static func insert(_ db: Database, _ write: SheetWrite) throws -> [AnswerSheetBatchResult.Outcome] {
        var outcomes: [AnswerSheetBatchResult.Outcome] = []
        let insertSheet = try db.cachedStatement(sql: """
            INSERT INTO answer_sheets (user_id, client_id, study_id, questionnaire_id, questionnaire_version,
                started_at, ended_at, received_at, sheet)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO NOTHING
            """)
        let insertAnswer = try db.cachedStatement(sql: """
            INSERT INTO answers (sheet_id, position, label, value, number, answered_at) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for row in write.rows {
            let sheet = row.validated.sheet
            try insertSheet.execute(arguments: [write.userId, sheet.id.uuidString.lowercased(), row.validated.studyId,
                                                sheet.questionnaireID, sheet.questionnaireVersion,
                                                sheet.startedAt.date.timeIntervalSince1970, sheet.endedAt?.date.timeIntervalSince1970,
                                                write.receivedAt.timeIntervalSince1970, row.json])
            guard db.changesCount > 0 else {
                outcomes.append(.duplicate)
                continue
            }
            let sheetId = db.lastInsertedRowID
            for (position, (label, answer, value)) in row.answers.enumerated() {
                try insertAnswer.execute(arguments: [sheetId, position, label, value, answer.value.number, answer.answeredAt.text])
            }
            outcomes.append(.stored)
        }
        return outcomes
    }

    public func sheets(userId: Int64, offset: Int, limit: Int) async throws -> (sheets: [StoredAnswerSheet], total: Int) {
        try await pool.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM answer_sheets WHERE user_id = ?", arguments: [userId]) ?? 0
            let rows = try Row.fetchAll(db, sql: """
                SELECT sheet, study_id, received_at FROM answer_sheets WHERE user_id = ?
                ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?
                """, arguments: [userId, limit, offset])
            let sheets = try rows.map { row in
                StoredAnswerSheet(sheet: try JSONCoding.decode(AnswerSheet.self, from: row["sheet"]), studyId: row["study_id"],
                                  receivedAt: Timestamps.format(Date(timeIntervalSince1970: row["received_at"])))
            }
            return (sheets, total)
        }
    }

    public func participantMeans(questionnaireId: String, label: String, from: Date?, to: Date?) async throws -> [Int64: Double] {
        try await pool.read { db in
            var result: [Int64: Double] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT s.user_id, AVG(a.number) AS mean FROM answers a JOIN answer_sheets s ON s.id = a.sheet_id
                WHERE s.questionnaire_id = ? AND a.label = ? AND a.number IS NOT NULL
                  AND (? IS NULL OR s.started_at >= ?) AND (? IS NULL OR s.started_at < ?)
                GROUP BY s.user_id
                """, arguments: [questionnaireId, label, from?.timeIntervalSince1970, from?.timeIntervalSince1970,
                                 to?.timeIntervalSince1970, to?.timeIntervalSince1970])
            for row in rows { result[row["user_id"]] = row["mean"] }
            return result
        }
    }

    public func exportRows(studyId: String) async throws -> [ExportRow] {
        try await pool.read { db in
            var rows: [ExportRow] = []
            let sheets = try Row.fetchAll(db, sql: """
                SELECT s.id, u.pseudonym, s.sheet, s.received_at FROM answer_sheets s JOIN users u ON u.id = s.user_id
                WHERE s.study_id = ? ORDER BY u.pseudonym, s.started_at, s.id
                """, arguments: [studyId])
            for row in sheets {
                let sheet = try JSONCoding.decode(AnswerSheet.self, from: row["sheet"])
                let receivedAt = Timestamps.format(Date(timeIntervalSince1970: row["received_at"]))
                for label in sheet.answers.keys.sorted(by: { Self.itemOrder($0, $1, sheet: sheet) }) {
                    let answer = sheet.answers[label]!
                    rows.append(ExportRow(participant: row["pseudonym"], sheetId: sheet.id.uuidString.lowercased(),
                                          questionnaireId: sheet.questionnaireID, questionnaireVersion: sheet.questionnaireVersion,
                                          label: label, value: answer.value.description, answeredAt: answer.answeredAt.text,
                                          startedAt: sheet.startedAt.text, endedAt: sheet.endedAt?.text, receivedAt: receivedAt))
                }
            }
            return rows
        }
    }

    /// Answers in the order they were given, then by label.
    private static func itemOrder(_ a: String, _ b: String, sheet: AnswerSheet) -> Bool {
        let first = sheet.answers[a]!.answeredAt.date, second = sheet.answers[b]!.answeredAt.date
        return first == second ? a < b : first < second
    }

    // MARK: Module records

    public func applyRecords(userId: Int64, changes: [RecordChange]) async throws -> [ModuleRecordBatchResult.Outcome] {
        let payloads = try changes.map { change -> String? in
            guard change.upsert.deleted != true, let payload = change.upsert.payload else { return nil }
            return try JSONCoding.string(payload)
        }
        return try await pool.write { db in
            var sequence = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(sequence), 0) FROM module_records") ?? 0
            var outcomes: [ModuleRecordBatchResult.Outcome] = []
            for (index, change) in changes.enumerated() {
                let existing = try Double.fetchOne(db, sql: """
                    SELECT updated_at FROM module_records WHERE user_id = ? AND module_id = ? AND client_id = ?
                    """, arguments: [userId, change.upsert.moduleId, change.upsert.clientId])
                // Last writer by update time wins; an equal time keeps what the server has, so a
                // repeated push is harmless.
                if let existing, existing >= change.updatedAt.timeIntervalSince1970 {
                    outcomes.append(.stale)
                    continue
                }
                sequence += 1
                try db.execute(sql: """
                    INSERT INTO module_records (user_id, module_id, client_id, updated_at, deleted, payload, sequence)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, module_id, client_id) DO UPDATE SET updated_at = excluded.updated_at,
                        deleted = excluded.deleted, payload = excluded.payload, sequence = excluded.sequence
                    """, arguments: [userId, change.upsert.moduleId, change.upsert.clientId,
                                     change.updatedAt.timeIntervalSince1970, change.upsert.deleted == true,
                                     payloads[index], sequence])
                outcomes.append(.applied)
            }
            return outcomes
        }
    }

    public func records(userId: Int64, after cursor: Int64, moduleId: String?, updatedSince: Date?,
                        limit: Int) async throws -> (records: [ModuleRecord], cursor: Int64, more: Bool) {
        let since = updatedSince?.timeIntervalSince1970
        return try await pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM module_records WHERE user_id = ? AND sequence > ? AND (? IS NULL OR module_id = ?)
                    AND (? IS NULL OR updated_at >= ?)
                ORDER BY sequence LIMIT ?
                """, arguments: [userId, cursor, moduleId, moduleId, since, since, limit + 1])
            let page = rows.prefix(limit)
            let records = try page.map { row in
                let payload: String? = row["payload"]
                return ModuleRecord(moduleId: row["module_id"], clientId: row["client_id"],
                                    updatedAt: Timestamps.formatMilliseconds(Date(timeIntervalSince1970: row["updated_at"])),
                                    deleted: row["deleted"], payload: try payload.map { try JSONCoding.decode(JSONValue.self, from: $0) })
            }
            let last: Int64? = page.last?["sequence"]
            return (records, last ?? cursor, rows.count > limit)
        }
    }

    // MARK: Row mapping

    private static func account(_ row: Row) -> UserAccount {
        UserAccount(id: row["id"], username: row["username"], email: row["email"], passwordHash: row["password_hash"],
                    firstName: row["first_name"], lastName: row["last_name"],
                    gender: Gender(rawValue: row["gender"]) ?? .undisclosed, language: row["language"],
                    activated: row["activated"], active: row["active"], pseudonym: row["pseudonym"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    private static func studyValues(_ study: StudyRecord) -> [(any DatabaseValueConvertible)?] {
        [study.id, try? JSONCoding.string(study.title), try? study.description.map(JSONCoding.string),
         try? study.consent.map(JSONCoding.string), study.startsAt?.timeIntervalSince1970, study.endsAt?.timeIntervalSince1970,
         study.running, study.access.rawValue, study.passwordHash, study.participantsMayLeave,
         try? JSONCoding.string(study.modules), try? study.schedules.map(JSONCoding.string)]
    }

    private static func study(_ row: Row) throws -> StudyRecord {
        let description: String? = row["description"]
        let consent: String? = row["consent"]
        let schedules: String? = row["schedules"]
        let startsAt: Double? = row["starts_at"]
        let endsAt: Double? = row["ends_at"]
        return StudyRecord(
            id: row["id"], title: try JSONCoding.decode(LocalizedText.self, from: row["title"]),
            description: try description.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            consent: try consent.map { try JSONCoding.decode(LocalizedText.self, from: $0) },
            startsAt: startsAt.map(Date.init(timeIntervalSince1970:)), endsAt: endsAt.map(Date.init(timeIntervalSince1970:)),
            running: row["running"], access: StudyAccess(rawValue: row["access"]) ?? .byRequest,
            passwordHash: row["password_hash"], participantsMayLeave: row["participants_may_leave"],
            modules: try JSONCoding.decode([String].self, from: row["modules"]),
            schedules: try schedules.map { try JSONCoding.decode(JSONValue.self, from: $0) })
    }

    private static func questionnaire(_ row: Row) throws -> QuestionnaireDocument {
        QuestionnaireDocument(id: row["id"], version: row["version"], studyId: row["study_id"],
                              definition: try JSONCoding.decode(QuestionnaireDefinition.self, from: row["definition"]))
    }
}
