import Foundation
import Synchronization
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// What must hold when several server processes share one PostgreSQL database. Each "process" is
/// a store of its own, with its own connection pool, on the same database of a real cluster.
@Suite("PostgreSQL store shared by several server processes", .timeLimit(.minutes(10)))
struct PostgreSQLConcurrencyTests {
    let now = TestTime.now

    /// Two stores on one new database, with a member of a study with the test questionnaire.
    func twoProcesses() async throws -> (OpenedStore, ServerStore, Int64) {
        let first = try await StoreKind.postgres.open()
        let second = try await first.reopen()
        let store = first.store
        try await store.createStudy(StudyRecord(id: "open", title: LocalizedText(["en": "Open"]), modules: [.tyt]), now: now)
        let document = try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON().utf8), studyId: "open")
        _ = try await store.addQuestionnaire(document, module: nil, now: now)
        let user = try await store.createUser(username: "ada", email: "ada@example.org", passwordHash: "x", language: "en",
                                              pseudonym: "p-ada", now: now)
        try await store.setMembership(studyId: "open", userId: user, status: .member, now: now)
        return (first, second, user)
    }

    /// Runs `body` with ``twoProcesses()`` and closes both stores afterwards, also when it throws.
    func withTwoProcesses(_ body: (OpenedStore, ServerStore, Int64) async throws -> Void) async throws {
        let (first, second, user) = try await twoProcesses()
        do {
            try await body(first, second, user)
        } catch {
            await second.close()
            await first.close()
            throw error
        }
        await second.close()
        await first.close()
    }

    @Test("the same sheet batch received by two processes at the same moment is stored once")
    func sameBatchTwice() async throws {
        try await withTwoProcesses { first, second, user in
            for _ in 0..<20 {
                let batch = (0..<10).map { _ in ValidatedSheet(sheet: sheet(), studyId: "open") }
                async let one = first.store.storeSheets(userId: user, sheets: batch, receivedAt: now)
                async let two = second.storeSheets(userId: user, sheets: batch, receivedAt: now)
                let outcomes = try await [one, two].map(\.outcomes)
                for index in batch.indices {
                    let pair = [outcomes[0][index], outcomes[1][index]]
                    #expect(pair.filter { $0 == .stored }.count == 1, "sheet \(index): \(pair)")
                }
            }
            #expect(try await first.store.sheets(userId: user, offset: 0, limit: 1).total == 200)
        }
    }

    @Test("wrong logins at one name sent to two processes at once: exactly the free tries reach the password check")
    func loginThrottleAcrossProcesses() async throws {
        try await withTwoProcesses { first, second, _ in
            let rule = ThrottleRule(freeAttempts: 5, window: 600, baseDelay: 2, maximumDelay: 60)
            let stores: [ServerStore] = [first.store, second]
            for round in 0..<5 {
                let login = "guessed-\(round)"
                let results = try await withThrowingTaskGroup(of: Int?.self) { group in
                    for index in 0..<24 {
                        let store = stores[index % 2]
                        group.addTask { try await store.startThrottledAttempt([ThrottleKey("login:name:\(login)", rule)], now: self.now) }
                    }
                    return try await group.reduce(into: [Int?]()) { $0.append($1) }
                }
                #expect(results.filter { $0 == nil }.count == 5, "round \(round): \(results)")
            }
        }
    }

    @Test("late sheets of many people through two processes at once: no lock conflict, every answer in the comparison")
    func lateSheetsUnderConcurrency() async throws {
        try await withTwoProcesses { first, second, ada in
            let store = first.store
            var users = [ada]
            for index in 0..<5 {
                let user = try await store.createUser(username: "p\(index)", email: "p\(index)@example.org", passwordHash: "x",
                                                      language: "en", pseudonym: "p-\(index)", now: now)
                try await store.setMembership(studyId: "open", userId: user, status: .member, now: now)
                users.append(user)
            }
            func day(_ day: Int, _ hour: Int) -> String { String(format: "2027-01-%02dT%02d:30:00+00:00", day, hour) }
            var stored: [(userId: Int64, sheet: AnswerSheet)] = []
            for (index, user) in users.enumerated() {
                let early = sheet(loudness: Double(10 * index), mood: 1, startedAt: day(5, 8))
                _ = try await store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: early, studyId: "open")], receivedAt: now)
                stored.append((user, early))
            }
            let windows: [(Date?, Date?)] = [(OffsetTimestamp(parsing: day(8, 12))!.date, nil),
                                             (OffsetTimestamp(parsing: day(3, 6))!.date, OffsetTimestamp(parsing: day(10, 6))!.date)]
            func check(_ context: String) async throws {
                for label in ["loudness", "mood"] {
                    for (from, to) in windows {
                        let expected = ComparisonSumsTests.reference(ComparisonSumsTests.Generated(members: Set(users), sheets: stored),
                                                                     questionnaire: "daily", label: label, from: from, to: to)
                        let means = try await second.participantMeans(questionnaireId: "daily", studyId: "open", label: label, from: from, to: to)
                        #expect(means == expected, "\(context) \(label) \(String(describing: from))")
                    }
                }
            }
            try await check("built")
            // Each person's offline device sends five batches of two old sheets, through either process, all at once.
            var batches: [(store: ServerStore, userId: Int64, sheets: [AnswerSheet])] = []
            for (index, user) in users.enumerated() {
                for round in 0..<5 {
                    let sheets = (0..<2).map { half in
                        sheet(loudness: Double(index * 7 + round * 3 + half), mood: Double(1 + (round + half) % 3), startedAt: day(2 + round * 2 + half, 6 + index))
                    }
                    batches.append(((index + round) % 2 == 0 ? store : second, user, sheets))
                    stored.append(contentsOf: sheets.map { (user, $0) })
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in batches {
                    group.addTask {
                        _ = try await batch.store.storeSheets(userId: batch.userId, sheets: batch.sheets.map { ValidatedSheet(sheet: $0, studyId: "open") },
                                                              receivedAt: self.now)
                    }
                }
                try await group.waitForAll()
            }
            try await check("after late batches")
        }
    }

    @Test("first sheets stored through one process while another changes the same people's memberships: the comparison counts exactly the current members")
    func membershipChangesDuringFirstSheets() async throws {
        try await withTwoProcesses { first, second, _ in
            var users: [Int64] = []
            for index in 0..<24 {
                let user = try await first.store.createUser(username: "m\(index)", email: "m\(index)@example.org", passwordHash: "x",
                                                            language: "en", pseudonym: "m-\(index)", now: now)
                try await first.store.setMembership(studyId: "open", userId: user, status: .member, now: now)
                users.append(user)
            }
            // Each person's first sheet through one process, while the other lets every second
            // person leave and rejoin and leave again.
            var final: [Int64: MembershipStatus] = [:]
            for (index, user) in users.enumerated() { final[user] = index % 2 == 0 ? .left : .member }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, user) in users.enumerated() {
                    group.addTask {
                        let answered = sheet(loudness: Double(index), mood: 2, startedAt: "2027-01-05T08:30:00+00:00")
                        _ = try await (index % 3 == 0 ? second : first.store).storeSheets(
                            userId: user, sheets: [ValidatedSheet(sheet: answered, studyId: "open")], receivedAt: self.now)
                    }
                    group.addTask {
                        let steps: [MembershipStatus] = index % 2 == 0 ? [.left, .member, .left] : [.left, .member]
                        for status in steps {
                            try await (index % 3 == 1 ? first.store : second).setMembership(studyId: "open", userId: user, status: status, now: self.now)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let members = users.enumerated().filter { final[$0.element] == .member }
            for (from, to) in [(nil, nil), (OffsetTimestamp(parsing: "2027-01-05T00:00:00+00:00")!.date, nil)] as [(Date?, Date?)] {
                let figures = try await second.comparisonFigures(questionnaireId: "daily", studyId: "open", label: "loudness",
                                                                 from: from, to: to, userId: users[1])
                #expect(figures.participants == members.count, "\(figures)")
                #expect(figures.sumOfMeans == Double(members.map(\.offset).reduce(0, +)), "\(figures)")
            }
        }
    }

    @Test("the comparison sums lose no increment and count no duplicate when two processes store one person's batches at once")
    func comparisonSumsUnderConcurrency() async throws {
        try await withTwoProcesses { first, second, user in
            let batches = (0..<16).map { round in
                (0..<5).map { index in ValidatedSheet(sheet: sheet(loudness: Double(round * 5 + index)), studyId: "open") }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in batches {
                    // Each batch reaches both processes, as a client retrying through another one would.
                    group.addTask { _ = try await first.store.storeSheets(userId: user, sheets: batch, receivedAt: self.now) }
                    group.addTask { _ = try await second.storeSheets(userId: user, sheets: batch, receivedAt: self.now) }
                }
                try await group.waitForAll()
            }
            // 80 distinct sheets with loudness 0…79: mean 39.5, whatever the interleaving.
            let means = try await first.store.participantMeans(questionnaireId: "daily", studyId: "open", label: "loudness", from: nil, to: nil)
            #expect(means == [user: 39.5])
            let counts = try PostgresCluster.shared().query(
                "SELECT count FROM comparison_totals WHERE label = 'loudness'", database: String(first.location.split(separator: "/").last!))
            #expect(counts == ["80"])
        }
    }

    @Test("record upserts from many parallel writers in two processes keep the newest updatedAt")
    func newestWinsUnderConcurrency() async throws {
        try await withTwoProcesses { first, second, user in
            let ids = (0..<5).map { "event-\($0)" }
            // Every writer writes every record with its own times; the times are distinct across writers.
            let writers = 16, rounds = 12
            let newest = try await withThrowingTaskGroup(of: [String: Double].self) { group in
                for writer in 0..<writers {
                    let store: ServerStore = writer.isMultiple(of: 2) ? first.store : second
                    group.addTask {
                        var generator = SeededGenerator(seed: UInt64(writer + 1))
                        var latest: [String: Double] = [:]
                        for _ in 0..<rounds {
                            let changes = ids.map { id -> RecordChange in
                                // Whole milliseconds, distinct per writer (the writer is the last digit).
                                let millis = Double(Int.random(in: 1...1_000_000, using: &generator) * 100 + writer)
                                let time = TestTime.now.addingTimeInterval(millis / 1000)
                                latest[id] = max(latest[id] ?? 0, time.timeIntervalSince1970)
                                return RecordChange(upsert: ModuleRecordUpsert(moduleId: "tn", clientId: id,
                                                                               updatedAt: Timestamps.formatMilliseconds(time),
                                                                               payload: .object(["writer": .number(Double(writer)),
                                                                                                 "at": .number(time.timeIntervalSince1970)])),
                                                    updatedAt: time)
                            }
                            _ = try await store.applyRecords(userId: user, changes: changes)
                        }
                        return latest
                    }
                }
                var newest: [String: Double] = [:]
                for try await latest in group {
                    newest.merge(latest) { max($0, $1) }
                }
                return newest
            }
            let stored = try await first.store.records(userId: user, after: 0, moduleId: nil, updatedSince: nil, limit: 100).records
            #expect(stored.count == ids.count)
            for record in stored {
                guard case .object(let payload) = record.payload, case .number(let at) = payload["at"] else {
                    Issue.record("record \(record.clientId) has no payload")
                    continue
                }
                #expect(at == newest[record.clientId], "\(record.clientId): kept \(at), newest written \(newest[record.clientId] ?? 0)")
                #expect(record.updatedAt == Timestamps.formatMilliseconds(Date(timeIntervalSince1970: at)))
            }
        }
    }

    @Test("a reader following the record and sheet cursors while two processes write misses nothing")
    func cursorsNeverSkip() async throws {
        try await withTwoProcesses { first, second, user in
            let writers = 6, batches = 15
            let writing = Flag(true)
            // The reader pulls small pages all the time the writers write, then once more after them
            // from where its cursors stand: a number it skipped (committed after a larger one was
            // read) is behind its cursor for good, and missing from what it saw.
            async let seen = Self.follow(first.store, user: user, while: writing)
            let written = try await withThrowingTaskGroup(of: (records: Set<String>, sheets: Set<UUID>).self) { group in
                for writer in 0..<writers {
                    let store: ServerStore = writer.isMultiple(of: 2) ? first.store : second
                    group.addTask {
                        var records = Set<String>(), sheets = Set<UUID>()
                        for batch in 0..<batches {
                            let ids = (0...(batch % 3)).map { "w\(writer)-b\(batch)-\($0)" }
                            let time = TestTime.now.addingTimeInterval(Double(batch))
                            _ = try await store.applyRecords(userId: user, changes: ids.map {
                                RecordChange(upsert: ModuleRecordUpsert(moduleId: "tn", clientId: $0, updatedAt: Timestamps.formatMilliseconds(time),
                                                                        payload: .object([:])), updatedAt: time)
                            })
                            records.formUnion(ids)
                            let newSheets = (0...(batch % 2)).map { _ in sheet() }
                            _ = try await store.storeSheets(userId: user, sheets: newSheets.map { ValidatedSheet(sheet: $0, studyId: "open") },
                                                            receivedAt: now)
                            sheets.formUnion(newSheets.map(\.id))
                        }
                        return (records, sheets)
                    }
                }
                var records = Set<String>(), sheets = Set<UUID>()
                for try await part in group {
                    records.formUnion(part.records)
                    sheets.formUnion(part.sheets)
                }
                return (records: records, sheets: sheets)
            }
            writing.set(false)
            let (records, sheets, polls) = try await seen
            #expect(polls > 1, "the reader read while the writers wrote")
            #expect(records.count == written.records.count, "each record once")
            #expect(Set(records) == written.records, "missed: \(written.records.subtracting(records).sorted().prefix(5))")
            #expect(sheets.count == written.sheets.count, "each sheet once")
            #expect(Set(sheets) == written.sheets)
        }
    }

    @Test("""
        two processes opening a new database at once both migrate it, each step recorded at the time the caller gave; \
        a database from a newer server is refused, untouched
        """)
    func migrations() async throws {
        let cluster = try await PostgresCluster.started()
        let url = try cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        let now = TestTime.now
        async let one = StoreLocation(parsing: url).open(now: now, modules: serverModuleParts)
        async let two = StoreLocation(parsing: url).open(now: now, modules: serverModuleParts)
        let stores = try await [one, two]
        // The server's steps and the installed modules' (Track Your Hearing's), each once.
        let steps = PostgreSQLMigrations.steps.map(\.identifier) + serverModuleParts.migrations.map(\.identifier)
        #expect(steps.contains("tyh-rewards-switch"))
        #expect(try cluster.query("SELECT identifier FROM schema_migrations ORDER BY identifier", database: database) == steps.sorted())
        #expect(try cluster.query("SELECT DISTINCT applied_at::bigint FROM schema_migrations", database: database) == ["1800000000"])
        for store in stores { await store.close() }

        _ = try cluster.query("INSERT INTO schema_migrations VALUES ('pg99-from-the-future', 0)", database: database)
        do {
            let store = try await StoreLocation(parsing: url).open(now: Date(), modules: serverModuleParts)
            await store.close()
            Issue.record("a database with an unknown schema step was opened")
        } catch {
            #expect("\(error)".contains("pg99-from-the-future"), "\(error)")
        }
        #expect(try cluster.query("SELECT count(*) FROM schema_migrations", database: database) == [String(steps.count + 1)])
    }

    /// Follows both cursors in pages of 7 until `writing` turns false, then drains once more.
    static func follow(_ store: ServerStore, user: Int64, while writing: Flag) async throws
        -> (records: [String], sheets: [UUID], polls: Int) {
        var records: [String] = [], sheets: [UUID] = []
        var recordCursor: Int64 = 0, sheetCursor: Int64 = 0, polls = 0
        while true {
            let stillWriting = writing.value
            var more = true
            while more {
                let page = try await store.records(userId: user, after: recordCursor, moduleId: nil, updatedSince: nil, limit: 7)
                records += page.records.map(\.clientId)
                recordCursor = page.cursor
                let sheetPage = try await store.sheetChanges(userId: user, after: sheetCursor, limit: 7)
                sheets += try sheetPage.sheets.map { try $0.decoded().sheet.id }
                sheetCursor = sheetPage.cursor
                more = page.more || sheetPage.more
                polls += 1
            }
            if !stillWriting { return (records, sheets, polls) }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// A flag several tasks read while one sets it.
final class Flag: Sendable {
    private let state: Mutex<Bool>
    init(_ value: Bool) { state = Mutex(value) }
    var value: Bool { state.withLock { $0 } }
    func set(_ value: Bool) { state.withLock { $0 = value } }
}

/// A small deterministic generator (SplitMix64), so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
