import Foundation
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// Consent versions, leaving with deletion and account deletion on both stores (issue 30): what
/// the routes and commands rely on, and that a deletion leaves none of the person's values in the
/// database files.
@Suite("Consent and erasure (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct ConductStoreTests {
    let now = TestTime.now

    func with(_ kind: StoreKind, _ body: (ServerStore, OpenedStore) async throws -> Void) async throws {
        try await kind.with { try await body($0.store, $0) }
    }

    func user(_ store: ServerStore, _ name: String) async throws -> Int64 {
        try await store.createUser(username: name, email: "\(name)@example.org", passwordHash: "hash-\(name)", language: "en",
                                   pseudonym: "p-\(name)", now: now)
    }

    /// A stored sheet of the daily questionnaire with a free-text note (the store takes what the
    /// intake validated; the note is what a deletion must not leave behind).
    func store(_ store: ServerStore, _ userId: Int64, study: String, questionnaire: String = "daily", loudness: Double,
               note: String) async throws -> UUID {
        var answered = sheet(loudness: loudness, questionnaire: questionnaire)
        answered.answers["notes"] = Answer(value: .text(note), answeredAt: answered.startedAt)
        #expect(try await store.storeSheets(userId: userId, sheets: [ValidatedSheet(sheet: answered, studyId: study)], receivedAt: now)
                .outcomes == [.stored])
        return answered.id
    }

    func setUpStudy(_ store: ServerStore, _ id: String, questionnaire: String, consent: LocalizedText? = nil) async throws {
        try await store.createStudy(StudyRecord(id: id, title: LocalizedText(["en": "Study \(id)"]), consent: consent, modules: [.tyt]),
                                    now: now)
        let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: questionnaire).utf8), studyId: id)
        _ = try await store.addQuestionnaire(document, module: .tyt, now: now)
    }

    func count(_ store: ServerStore, _ sql: SQL) async throws -> Int {
        try await store.rows(sql).first?["n"] ?? 0
    }

    // MARK: Consent

    @Test("a changed consent text is a new version; agreeing is recorded per version with its time and text; uploads see what is missing",
          arguments: StoreKind.allCases)
    func consentVersions(_ kind: StoreKind) async throws {
        try await with(kind) { store, _ in
            try await setUpStudy(store, "s", questionnaire: "daily", consent: LocalizedText(["en": "First text."]))
            let ada = try await user(store, "ada")
            try await store.setMembership(studyId: "s", userId: ada, status: .member, now: now)
            #expect(try await store.study(id: "s")?.consentVersion == 1)
            #expect(try await store.sheetAccess(questionnaireId: "daily", studyId: "s", userId: ada).consentMissing == 1)

            #expect(try await store.recordConsent(userId: ada, studyId: "s", version: 1, now: now))
            #expect(try await store.sheetAccess(questionnaireId: "daily", studyId: "s", userId: ada).consentMissing == nil)

            // The same text again is no new version; another text is.
            var study = try #require(try await store.study(id: "s"))
            study.running = true
            try await store.updateStudy(study, now: now)
            #expect(try await store.study(id: "s")?.consentVersion == 1)
            study.consent = LocalizedText(["en": "Second text.", "de": "Zweiter Text."])
            try await store.updateStudy(study, now: now.addingTimeInterval(60))
            #expect(try await store.study(id: "s")?.consentVersion == 2)
            #expect(try await store.sheetAccess(questionnaireId: "daily", studyId: "s", userId: ada).consentMissing == 2)

            // An old version is refused (the text changed meanwhile); the current one is recorded once.
            #expect(try await !store.recordConsent(userId: ada, studyId: "s", version: 1, now: now.addingTimeInterval(120)))
            #expect(try await store.recordConsent(userId: ada, studyId: "s", version: 2, now: now.addingTimeInterval(180)))
            #expect(try await store.recordConsent(userId: ada, studyId: "s", version: 2, now: now.addingTimeInterval(240)))
            let agreements = try await store.consentAgreements(userId: ada, studyId: "s")
            #expect(agreements.map(\.version) == [1, 2])
            #expect(agreements.map(\.text) == [LocalizedText(["en": "First text."]), LocalizedText(["en": "Second text.", "de": "Zweiter Text."])])
            #expect(agreements.last?.agreedAt == now.addingTimeInterval(180), "agreeing again keeps the first time")
            #expect(try await store.agreedConsentVersions(studyId: "s") == [ada: 2])
            #expect(try await store.agreedConsentVersions(userId: ada) == ["s": 2])
            #expect(try await store.personalData(userId: ada)?.memberships.first?.consents.map(\.version) == [1, 2])
        }
    }

    @Test("a study without consent asks for none", arguments: StoreKind.allCases)
    func noConsent(_ kind: StoreKind) async throws {
        try await with(kind) { store, _ in
            try await setUpStudy(store, "plain", questionnaire: "daily")
            let ada = try await user(store, "ada")
            try await store.setMembership(studyId: "plain", userId: ada, status: .member, now: now)
            #expect(try await store.study(id: "plain")?.consentVersion == nil)
            #expect(try await store.sheetAccess(questionnaireId: "daily", studyId: "plain", userId: ada).consentMissing == nil)
            #expect(try await !store.recordConsent(userId: ada, studyId: "plain", version: 1, now: now))
        }
    }

    // MARK: Leaving with deletion

    @Test("leaving with deletion removes that study's sheets, answers and totals and nothing else; leaving without keeps them",
          arguments: StoreKind.allCases)
    func leaveWithDeletion(_ kind: StoreKind) async throws {
        try await with(kind) { store, _ in
            try await setUpStudy(store, "a", questionnaire: "qa")
            try await setUpStudy(store, "b", questionnaire: "qb")
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            for person in [ada, bo] {
                for study in ["a", "b"] { try await store.setMembership(studyId: study, userId: person, status: .member, now: now) }
            }
            _ = try await self.store(store, ada, study: "a", questionnaire: "qa", loudness: 10, note: "ada a")
            _ = try await self.store(store, ada, study: "b", questionnaire: "qb", loudness: 20, note: "ada b")
            _ = try await self.store(store, bo, study: "a", questionnaire: "qa", loudness: 30, note: "bo a")
            let boTotalsBefore = try await store.rows("SELECT questionnaire_id, label, total, count FROM comparison_totals WHERE user_id = \(bo) ORDER BY 1, 2")
            // Prompts of both studies, so adherence would count them.
            let prompts = PromptEventTests()
            for (person, study) in [(ada, "a"), (ada, "b"), (bo, "a")] {
                _ = try await store.storePromptEvents(userId: person, events: prompts.events("tys/\(study)/1", questionnaire: "q\(study)",
                                                                                            [.delivered, .completed]), receivedAt: now)
            }

            try await store.leaveStudy(userId: ada, studyId: "a", deleteAnswers: true, now: now)
            #expect(try await store.membership(studyId: "a", userId: ada) == .left)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM answer_sheets WHERE user_id = \(ada) AND study_id = 'a'") == 0)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM answers WHERE user_id = \(ada) AND questionnaire_id = 'qa'") == 0)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM comparison_totals WHERE user_id = \(ada) AND questionnaire_id = 'qa'") == 0)
            // The other study's data and the other person's stay, totals exact.
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM answer_sheets WHERE user_id = \(ada) AND study_id = 'b'") == 1)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM comparison_totals WHERE user_id = \(ada) AND questionnaire_id = 'qb'") == 2)
            let boTotalsAfter = try await store.rows("SELECT questionnaire_id, label, total, count FROM comparison_totals WHERE user_id = \(bo) ORDER BY 1, 2")
            #expect(try boTotalsAfter.map { [try $0["label"] as String, "\(try $0["total"] as Double)"] }
                    == boTotalsBefore.map { [try $0["label"] as String, "\(try $0["total"] as Double)"] })
            #expect(try await store.exportRows(studyId: "a").map(\.participant).allSatisfy { $0 == "p-bo" })
            // Adherence no longer counts the person in that study; the other study's and person's prompts stay.
            #expect(try await prompts.adherence(store, study: "a").keys.sorted() == ["p-bo qa"])
            #expect(try await prompts.adherence(store, study: "b").keys.sorted() == ["p-ada qb"])
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM prompt_events WHERE user_id = \(ada) AND questionnaire_id = 'qa'") == 0)

            try await store.leaveStudy(userId: bo, studyId: "a", deleteAnswers: false, now: now)
            #expect(try await store.membership(studyId: "a", userId: bo) == .left)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM answer_sheets WHERE user_id = \(bo)") == 1)
        }
    }

    // MARK: Account deletion

    @Test("account deletion removes every row of the person, throttle counts included, and nobody else's", arguments: StoreKind.allCases)
    func accountDeletion(_ kind: StoreKind) async throws {
        try await with(kind) { store, _ in
            try await setUpStudy(store, "s", questionnaire: "daily", consent: "Agree?")
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            for person in [ada, bo] {
                try await store.setMembership(studyId: "s", userId: person, status: .member, now: now)
                #expect(try await store.recordConsent(userId: person, studyId: "s", version: 1, now: now))
                _ = try await self.store(store, person, study: "s", loudness: 40, note: "note of \(person)")
                try await store.createSession(userId: person, accessHash: "a\(person)", accessExpiresAt: now + 60, refreshHash: "r\(person)",
                                              refreshExpiresAt: now + 600, now: now)
                try await store.storeMailToken(userId: person, purpose: .activation, tokenHash: "t\(person)", expiresAt: now + 60, now: now)
                _ = try await store.applyRecords(userId: person, changes: [RecordChange(
                    upsert: ModuleRecordUpsert(moduleId: "tn", clientId: "event-\(person)", updatedAt: "2027-01-01T08:00:00Z", payload: .string("x")),
                    updatedAt: now)])
            }
            let rule = ThrottleRule()
            _ = try await store.startThrottledAttempt([ThrottleKey("login:account:\(ada)", rule), ThrottleKey("reset-mail:ada@example.org", rule),
                                                       ThrottleKey("login:account:\(bo)", rule)], now: now)

            #expect(try await store.deleteAccount(userId: ada, now: now))
            #expect(try await store.user(id: ada) == nil)
            for (table, condition) in store.erasedTables(userId: ada) {
                #expect(try await count(store, "SELECT COUNT(*) AS n FROM \(raw: table) WHERE \(condition)") == 0, "\(table) keeps ada's rows")
            }
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM throttle_counts WHERE key LIKE '%ada%' OR key = \("login:account:\(ada)")") == 0)
            // Bo keeps everything.
            #expect(try await store.user(id: bo) != nil)
            #expect(try await store.personalData(userId: bo)?.sheets.count == 1)
            #expect(try await count(store, "SELECT COUNT(*) AS n FROM throttle_counts WHERE key = \("login:account:\(bo)")") == 1)
            #expect(try await store.exportRows(studyId: "s").map(\.participant).allSatisfy { $0 == "p-bo" })
            #expect(try await !store.deleteAccount(userId: ada, now: now), "a second deletion finds nothing")
        }
    }

    @Test("every table with per-user rows is deleted with the account (a table added later fails here)")
    func erasureCoversEveryPersonalTable() async throws {
        let server = try TestServer()
        let personal = try await PortalDataTests.personalTables(server.store)
        let erased = Set(server.store.erasedTables(userId: 1).map(\.table))
        #expect(personal.subtracting(erased).isEmpty, "not deleted with the account: \(personal.subtracting(erased).sorted())")
    }

    @Test("after an account deletion the database files hold none of the person's values", arguments: StoreKind.allCases)
    func deletionLeavesNoBytes(_ kind: StoreKind) async throws {
        try await with(kind) { store, opened in
            try await setUpStudy(store, "s", questionnaire: "daily")
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            let marker = "ERASE-ME-\(UUID().uuidString)"
            let kept = "KEEP-ME-\(UUID().uuidString)"
            for person in [ada, bo] { try await store.setMembership(studyId: "s", userId: person, status: .member, now: now) }
            // Enough sheets that they fill pages of their own, as a real participant's do.
            for _ in 0..<50 { _ = try await self.store(store, ada, study: "s", loudness: 40, note: marker) }
            _ = try await self.store(store, bo, study: "s", loudness: 40, note: kept)
            // PostgreSQL's planner samples the rows (as autovacuum does on its own after enough
            // writes): 50 equal notes make the most common value of `answers.value`.
            if kind == .postgres { try await store.database.execute("ANALYZE answers, answer_sheets") }
            let files = try DatabaseFiles(kind: kind, location: opened.location, store: store)
            try await files.settle()
            #expect(try files.contain(marker), "the value is in the files before the deletion (else the scan proves nothing)")

            #expect(try await store.deleteAccount(userId: ada, now: now))
            try await files.settle()
            let holding = try await files.relations(holding: marker)
            switch kind {
            case .sqlite:
                // secure_delete zeroed the rows as they went, and the checkpoint emptied the WAL.
                #expect(holding.isEmpty, "a deleted value is left in \(holding)")
            case .postgres:
                // Measured: VACUUM prunes the rows, but their bytes stay in the free space of the
                // pages of the two tables that hold the note (until new rows overwrite them), as
                // `Documentation/uniti-server.md` ("Deletion") says; `maintenance compact` removes them.
                // The planner's statistics hold the note too, until compacting renews them.
                #expect(Set(holding) == ["answer_sheets", "answers", "pg_statistic"], "\(holding)")
                try await store.compactPersonalTables()
                try await files.settle()
                let compacted = try await files.relations(holding: marker)
                #expect(compacted.isEmpty, "a deleted value is left in \(compacted) after compacting")
                // Measured too: the write-ahead log still has the inserts' records (kept until
                // its segments are recycled), which the documentation says.
                let wal = DatabaseFiles(kind: .postgres, paths: [try PostgresCluster.shared().directory + "/data/pg_wal"], store: store)
                #expect(try wal.contain(marker))
            }
            #expect(try files.contain(kept), "another person's value stays")
        }
    }

    @Test("on PostgreSQL a compaction waits for transactions older than its erasures; one that does not end stops it with a line naming the session")
    func compactionWaitsForOlderTransactions() async throws {
        try await with(.postgres) { store, _ in
            #expect(try await store.deleteAccount(userId: try await user(store, "ada"), now: now))
            let session = try await store.database.transaction { db -> String in
                // A transaction with an xid, open while the compaction starts.
                try await db.execute("UPDATE erasure_marks SET erasures = erasures WHERE id = 1")
                let pid: String = try await db.row("SELECT CAST(pg_backend_pid() AS text) AS pid")?["pid"] ?? ""
                let error = await #expect(throws: CompactionWaited.self) {
                    try await store.compactPersonalTables(waiting: .seconds(1))
                }
                #expect(error?.description.contains("session \(pid)") == true, "\(String(describing: error))")
                return pid
            }
            #expect(!session.isEmpty)
            // Nothing was marked compacted: --if-needed still has work after the refused run.
            #expect(try await store.compactPersonalTables(ifNeeded: true))
            #expect(try await !store.compactPersonalTables(ifNeeded: true))
        }
    }

    @Test("compact --if-needed rewrites the tables after an erasure (an account, or a study's answers on leaving) and leaves them alone otherwise",
          arguments: StoreKind.allCases)
    func compactOnlyWhenNeeded(_ kind: StoreKind) async throws {
        try await with(kind) { store, opened in
            /// The file PostgreSQL keeps `answer_sheets` in: `VACUUM FULL` writes a new one. (SQLite
            /// rewrites its one file in place; there the returned flag and the bytes tell.)
            func answerSheetsFile() async throws -> Int? {
                guard kind == .postgres else { return nil }
                return try await count(store, "SELECT CAST(pg_relation_filenode('answer_sheets') AS bigint) AS n")
            }
            // A store starts with one erasure due: those made before the count existed were not counted.
            #expect(try await store.compactPersonalTables(ifNeeded: true))
            #expect(try await store.compactPersonalTables(ifNeeded: true) == false, "nothing deleted since")

            try await setUpStudy(store, "s", questionnaire: "daily")
            let ada = try await user(store, "ada"), bo = try await user(store, "bo")
            let marker = "ERASE-ME-\(UUID().uuidString)"
            for person in [ada, bo] { try await store.setMembership(studyId: "s", userId: person, status: .member, now: now) }
            for _ in 0..<50 { _ = try await self.store(store, ada, study: "s", loudness: 40, note: marker) }
            _ = try await self.store(store, bo, study: "s", loudness: 40, note: "bo's note")
            let file = try await answerSheetsFile()
            #expect(try await store.compactPersonalTables(ifNeeded: true) == false, "answers stored, none deleted")
            #expect(try await answerSheetsFile() == file, "the table was not rewritten")
            try await store.leaveStudy(userId: bo, studyId: "s", deleteAnswers: false, now: now)
            #expect(try await store.compactPersonalTables(ifNeeded: true) == false, "left, answers kept: nothing deleted")

            #expect(try await store.deleteAccount(userId: ada, now: now))
            let files = try DatabaseFiles(kind: kind, location: opened.location, store: store)
            #expect(try await store.compactPersonalTables(ifNeeded: true))
            if kind == .postgres { #expect(try await answerSheetsFile() != file, "the table was rewritten") }
            try await files.settle()
            #expect(try await files.relations(holding: marker).isEmpty)
            #expect(try await store.compactPersonalTables(ifNeeded: true) == false, "compacted already")

            try await store.leaveStudy(userId: bo, studyId: "s", deleteAnswers: true, now: now)
            #expect(try await store.compactPersonalTables(ifNeeded: true), "a study's answers deleted on leaving")
            #expect(try await store.compactPersonalTables(ifNeeded: true) == false)
        }
    }
}

/// The files a store keeps its data in, scanned for a value: SQLite's database and its WAL;
/// PostgreSQL's table and index files (`base/`) of the test cluster. PostgreSQL's write-ahead log
/// (`pg_wal`) is not scanned: it keeps history until its segments are recycled (see
/// `Documentation/uniti-server.md`, "Deletion").
struct DatabaseFiles {
    let kind: StoreKind
    let paths: [String]
    let store: ServerStore

    init(kind: StoreKind, paths: [String], store: ServerStore) {
        self.kind = kind
        self.paths = paths
        self.store = store
    }

    init(kind: StoreKind, location: String, store: ServerStore) throws {
        self.kind = kind
        self.store = store
        switch kind {
        case .sqlite: paths = [location, location + "-wal", location + "-shm"]
        case .postgres: paths = [try PostgresCluster.shared().directory + "/data/base"]
        }
    }

    /// PostgreSQL writes changed pages to the table files at a checkpoint; the test asks for one
    /// now instead of waiting for the next (at most `checkpoint_timeout`, 5 minutes by default).
    func settle() async throws {
        if kind == .postgres { _ = try await store.rows("CHECKPOINT") }
    }

    func holding(_ value: String) throws -> [String] {
        let needle = Data(value.utf8)
        return try files().filter { path in (FileManager.default.contents(atPath: path)?.range(of: needle)) != nil }
    }

    func contain(_ value: String) throws -> Bool { try !holding(value).isEmpty }

    /// The files holding `value` by what they are: SQLite's file names, PostgreSQL's relations
    /// (a table, an index, a TOAST table) by their file node, or the file's path when none has it.
    func relations(holding value: String) async throws -> [String] {
        var names: [String] = []
        for path in try holding(value) {
            let node = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".").first.map(String.init) ?? ""
            guard kind == .postgres, let number = Int64(node),
                  let name: String = try await store.rows("SELECT relname FROM pg_class WHERE relfilenode = \(number)").first?["relname"] else {
                names.append(path)
                continue
            }
            names.append(name)
        }
        return names.sorted()
    }

    private func files() throws -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            guard isDirectory.boolValue else {
                result.append(path)
                continue
            }
            let enumerator = FileManager.default.enumerator(atPath: path)
            while let relative = enumerator?.nextObject() as? String {
                let full = path + "/" + relative
                if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { result.append(full) }
            }
        }
        return result
    }
}
