import Foundation
import GRDB
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// The comparison read from running sums (issue 16) gives the same means as averaging every
/// answer, for any period, on both stores: checked on random data against a reference computed
/// here from the generated sheets themselves.
@Suite("Comparison from running sums (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct ComparisonSumsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// Midnight UTC, the first day the generated sheets may start on.
    static let firstDay = Date(timeIntervalSince1970: 1_798_761_600)

    /// SplitMix64: the same data on every run and machine.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    struct Generated {
        var members: Set<Int64> = []
        var sheets: [(userId: Int64, sheet: AnswerSheet)] = []
    }

    /// Participants (members, some who left, some never joined) with sheets of two
    /// questionnaires across ten days, started in many UTC offsets, with numeric, choice and text answers.
    func generate(_ store: ServerStore, random: inout Random) async throws -> Generated {
        try await store.createStudy(StudyRecord(id: "s", title: LocalizedText(["en": "S"]), modules: [.tyt]), now: now)
        for id in ["daily", "weekly"] {
            _ = try await store.addQuestionnaire(try QuestionnaireImport.document(from: Data(dailyQuestionnaireJSON(id: id, version: 1).utf8), studyId: "s"),
                                                 module: nil, now: now)
        }
        var generated = Generated()
        for index in 0..<24 {
            let user = try await store.createUser(username: "u\(index)", email: "u\(index)@example.org", passwordHash: "x",
                                                  language: "en", pseudonym: "p\(index)", now: now)
            let status: MembershipStatus? = index < 18 ? .member : index < 21 ? .left : nil
            if let status { try await store.setMembership(studyId: "s", userId: user, status: status, now: now) }
            if status == .member { generated.members.insert(user) }
            for _ in 0..<random.int(0...14) {
                let offset = random.int(-11...14) * 3600 + (random.chance(20) ? 1800 : 0)
                let seconds = Double(random.int(0...(10 * 86_400 - 1))) + (random.chance(30) ? Double(random.int(0...999)) / 1000 : 0)
                // Some sheets start in the same instant as the one before (ties keep the store's order).
                let instant = random.chance(10) ? (generated.sheets.last?.sheet.startedAt.date ?? Self.firstDay) : Self.firstDay.addingTimeInterval(seconds)
                let started = OffsetTimestamp(instant, in: TimeZone(secondsFromGMT: offset)!)
                var answers: [String: Answer] = [:]
                if random.chance(85) { answers["loudness"] = Answer(value: .number(Double(random.int(0...100))), answeredAt: started) }
                if random.chance(70) { answers["mood"] = Answer(value: .number(Double(random.int(1...3)) + (random.chance(10) ? 0.5 : 0)), answeredAt: started) }
                if random.chance(30) { answers["tags"] = Answer(value: .choices([random.int(1...4)]), answeredAt: started) }
                if random.chance(20) { answers["note"] = Answer(value: .text("n\(random.int(0...9))"), answeredAt: started) }
                let sheet = AnswerSheet(id: UUID(), questionnaireID: random.chance(80) ? "daily" : "weekly", questionnaireVersion: 1,
                                        answers: answers, startedAt: started, endedAt: nil, clientVersion: "test")
                generated.sheets.append((user, sheet))
            }
        }
        // Stored in batches of one person's sheets, in no order of time (a device offline for
        // days sends old sheets after newer ones), some batches sent twice (a retry): counted once.
        var index = 0
        while index < generated.sheets.count {
            let user = generated.sheets[index].userId
            var batch: [ValidatedSheet] = []
            while index < generated.sheets.count, generated.sheets[index].userId == user, batch.count < random.int(1...5) {
                batch.append(ValidatedSheet(sheet: generated.sheets[index].sheet, studyId: "s"))
                index += 1
            }
            _ = try await store.storeSheets(userId: user, sheets: batch, receivedAt: now)
            if random.chance(25) { _ = try await store.storeSheets(userId: user, sheets: batch, receivedAt: now) }
        }
        return generated
    }

    /// What averaging every answer gives: each current member's mean of the numeric answers to
    /// `label` in sheets of `questionnaire` started in `[from, to)`.
    static func reference(_ generated: Generated, questionnaire: String, label: String, from: Date?, to: Date?) -> [Int64: Double] {
        var sums: [Int64: (Double, Int)] = [:]
        for (user, sheet) in generated.sheets where generated.members.contains(user) && sheet.questionnaireID == questionnaire {
            let start = sheet.startedAt.date
            guard from.map({ start >= $0 }) ?? true, to.map({ start < $0 }) ?? true,
                  let number = sheet.answers[label]?.value.number else { continue }
            let current = sums[user] ?? (0, 0)
            sums[user] = (current.0 + number, current.1 + 1)
        }
        return sums.mapValues { $0.0 / Double($0.1) }
    }

    /// Periods on and off UTC midnight, open on either side, inside one day, across all, empty.
    static func windows(_ random: inout Random) -> [(Date?, Date?)] {
        let day = 86_400.0
        var windows: [(Date?, Date?)] = [
            (nil, nil), (firstDay, nil), (nil, firstDay.addingTimeInterval(5 * day)),
            (firstDay.addingTimeInterval(2 * day), firstDay.addingTimeInterval(6 * day)),
            (firstDay.addingTimeInterval(3 * day + 3600), firstDay.addingTimeInterval(3 * day + 7200)),
            (firstDay.addingTimeInterval(4 * day + 100), firstDay.addingTimeInterval(5 * day + 100)),
            (firstDay.addingTimeInterval(6 * day), firstDay.addingTimeInterval(6 * day)),
            (firstDay.addingTimeInterval(7 * day), firstDay.addingTimeInterval(2 * day)),
            // Most of the days inside: read as the totals minus the days outside.
            (firstDay.addingTimeInterval(day + 100), firstDay.addingTimeInterval(9 * day + 50)),
            (firstDay.addingTimeInterval(day), nil), (nil, firstDay.addingTimeInterval(9 * day)),
        ]
        for _ in 0..<40 {
            let a = Double(random.int(-86_400...(11 * 86_400))) + Double(random.int(0...999)) / 1000
            let b = a + Double(random.int(0...(6 * 86_400)))
            windows.append((random.chance(10) ? nil : firstDay.addingTimeInterval(a), random.chance(10) ? nil : firstDay.addingTimeInterval(b)))
        }
        return windows
    }

    static func expectSame(_ actual: [Int64: Double], _ expected: [Int64: Double], _ context: String) {
        #expect(Set(actual.keys) == Set(expected.keys), "\(context): participants differ")
        for (user, mean) in expected {
            guard let got = actual[user] else { continue }
            // Sums added in another order may differ in the last bits from one long sum.
            #expect(abs(got - mean) <= 1e-9 * max(1, abs(mean)), "\(context): participant \(user) \(got) ≠ \(mean)")
        }
    }

    @Test("the means from the sums equal the means of the answers for every period, on random data", arguments: StoreKind.allCases)
    func sameAsAveragingAnswers(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 2026)
        let generated = try await generate(opened.store, random: &random)
        let windows = Self.windows(&random)
        for (questionnaire, label) in [("daily", "loudness"), ("daily", "mood"), ("weekly", "loudness"), ("daily", "tags"), ("daily", "note")] {
            for (from, to) in windows {
                let actual = try await opened.store.participantMeans(questionnaireId: questionnaire, studyId: "s", label: label, from: from, to: to, now: now)
                let reference = Self.reference(generated, questionnaire: questionnaire, label: label, from: from, to: to)
                let context = "\(kind) \(questionnaire)/\(label) [\(String(describing: from)), \(String(describing: to)))"
                Self.expectSame(actual, reference, context)
                // The figures the comparison shows, summed up by the store, for a member with
                // answers in the period (the one in the middle) and for someone without.
                for user in [reference.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.dropFirst(reference.count / 2).first?.key, 999].compactMap({ $0 }) {
                    let figures = try await opened.store.comparisonFigures(questionnaireId: questionnaire, studyId: "s", label: label,
                                                                           from: from, to: to, userId: user, now: now)
                    let expected = ComparisonFigures(means: reference, userId: user)
                    #expect(figures.participants == expected.participants && figures.below == expected.below && figures.equal == expected.equal,
                            "\(context) user \(user): \(figures) ≠ \(expected)")
                    #expect(abs(figures.sumOfMeans - expected.sumOfMeans) <= 1e-9 * max(1, abs(expected.sumOfMeans)), "\(context)")
                    #expect(figures.ownMean.map { own in expected.ownMean.map { abs(own - $0) <= 1e-9 * max(1, abs($0)) } ?? false } ?? (expected.ownMean == nil),
                            "\(context) user \(user): own \(String(describing: figures.ownMean)) ≠ \(String(describing: expected.ownMean))")
                }
            }
        }
        // Choices and text have no mean; the two questionnaires do not mix.
        #expect(try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "note", from: nil, to: nil, now: now).isEmpty)
    }

    @Test("membership changes after the sheets: who left is compared no more, who joined or came back is, also in periods read from snapshots; never across studies",
          arguments: StoreKind.allCases)
    func membershipChangesAfterSheets(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 3)
        var generated = try await generate(opened.store, random: &random)
        let windows: [(Date?, Date?)] = [(nil, nil), (Self.firstDay.addingTimeInterval(2 * 86_400 + 100), Self.firstDay.addingTimeInterval(7 * 86_400))]
        func check(_ context: String) async throws {
            for (from, to) in windows {
                Self.expectSame(try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now),
                                Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to), "\(kind) \(context)")
            }
        }
        try await check("before")  // builds the snapshots the second read uses
        // Among the people with sheets: three members leave, one who left comes back, one who
        // never joined joins, one member is asked to wait (pending).
        var byStatus: [MembershipStatus: [Int64]] = [:]
        for user in Set(generated.sheets.map(\.userId)).sorted() {
            byStatus[try await opened.store.membership(studyId: "s", userId: user), default: []].append(user)
        }
        let members = byStatus[.member] ?? []
        let changes: [(Int64?, MembershipStatus)] = [(members.first, .left), (members.dropFirst().first, .left), (members.dropFirst(2).first, .left),
                                                     (byStatus[.left]?.first, .member), (byStatus[.none]?.first, .member),
                                                     (members.dropFirst(3).first, .pending)]
        var changed = 0
        for case let (user?, status) in changes {
            try await opened.store.setMembership(studyId: "s", userId: user, status: status, now: now)
            if status == .member { generated.members.insert(user) } else { generated.members.remove(user) }
            changed += 1
        }
        #expect(changed == changes.count)
        try await check("after")
        // A comparison stays within the study that owns the questionnaire: asked within another
        // study, even one its members also joined, it compares nobody.
        try await opened.store.createStudy(StudyRecord(id: "t", title: LocalizedText(["en": "T"]), modules: [.tyt]), now: now)
        for user in generated.members { try await opened.store.setMembership(studyId: "t", userId: user, status: .member, now: now) }
        #expect(try await opened.store.participantMeans(questionnaireId: "daily", studyId: "t", label: "loudness", from: nil, to: nil, now: now).isEmpty)
        try await check("also members of another study")
    }

    @Test("a database from before the sums gets them filled by its migration; a rebuild gives the same", arguments: StoreKind.allCases)
    func migrationAndRebuildFill(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        var random = Random(state: 7)
        let generated = try await generate(opened.store, random: &random)
        await opened.store.close()
        // Back to the schema before the step: the sums tables gone, the step not recorded.
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: opened.location)
            try await queue.write { db in
                try db.execute(sql: """
                    DROP TABLE comparison_totals; DROP TABLE comparison_running;
                    DROP TABLE comparison_snapshots; DROP TABLE comparison_snapshot_days; DROP TABLE comparison_versions;
                    DROP INDEX memberships_study_status;
                    DELETE FROM grdb_migrations WHERE identifier IN ('v8-comparison-sums', 'v9-comparison-running', 'v10-comparison-snapshots')
                    """)
            }
            try queue.close()
        case .postgres:
            let database = String(opened.location.split(separator: "/").last!)
            _ = try PostgresCluster.shared().query("""
                DROP TABLE comparison_totals; DROP TABLE comparison_running;
                DROP TABLE comparison_snapshots; DROP TABLE comparison_snapshot_days; DROP TABLE comparison_versions;
                DELETE FROM schema_migrations WHERE identifier IN ('pg4-comparison-sums', 'pg5-comparison-running', 'pg6-comparison-snapshots',
                                                             'pg7-comparison-reads')
                """, database: database)
        }
        let migrated = try await opened.reopen()
        let windows = [(nil, nil), (Self.firstDay.addingTimeInterval(86_400 + 5), Self.firstDay.addingTimeInterval(8 * 86_400 - 5))] as [(Date?, Date?)]
        for (from, to) in windows {
            Self.expectSame(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now),
                            Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to), "\(kind) migrated")
        }
        try await migrated.rebuildComparisonSums()
        try await migrated.rebuildComparisonSums()
        for (from, to) in windows {
            Self.expectSame(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now),
                            Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to), "\(kind) rebuilt")
        }
        // The rebuild reads the stored answers: a text answer was stored without a number.
        #expect(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "note", from: nil, to: nil, now: now).isEmpty)
        #expect(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "mood", from: nil, to: nil, now: now).count > 5)
        await migrated.close()
        opened.cleanup()
    }

    /// Rows of a query on the opened store's own database (one column per row, as text).
    static func query(_ kind: StoreKind, _ opened: OpenedStore, _ sql: String) throws -> [String] {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: opened.location)
            defer { try? queue.close() }
            return try queue.write { db in try String.fetchAll(db, sql: sql) }
        case .postgres:
            return try PostgresCluster.shared().query(sql, database: String(opened.location.split(separator: "/").last!))
        }
    }

    @Test("sheets stored late, after day snapshots were built, are added to them: the next comparison includes them", arguments: StoreKind.allCases)
    func lateSheetsAfterSnapshots(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 99)
        var generated = try await generate(opened.store, random: &random)
        let windows = Self.windows(&random)
        func check(_ context: String) async throws {
            for (from, to) in windows {
                let actual = try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now)
                Self.expectSame(actual, Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to),
                                "\(kind) \(context) [\(String(describing: from)), \(String(describing: to)))")
            }
        }
        try await check("before")
        // The bounds that fall on days begun an hour before `now` got day snapshots.
        let built = try Self.query(kind, opened, "SELECT COUNT(*) FROM comparison_snapshot_days WHERE questionnaire_id = 'daily' AND label = 'loudness'")
        #expect(Int(built.first ?? "") ?? 0 >= 10, "\(kind): snapshots built: \(built)")
        let version = try Self.query(kind, opened, "SELECT version FROM comparison_versions WHERE questionnaire_id = 'daily' AND label = 'loudness'")
        // Every generated sheet started before the day it was received on (`now`): each batch raised the version.
        #expect((Int(version.first ?? "") ?? 0) > 10)

        // A device that was offline sends a member's old sheets (new ones, and a newcomer's first
        // ever); one sheet is started today, after the last midnight: not late, it changes no snapshot.
        let members = generated.members.sorted()
        var late: [(userId: Int64, sheet: AnswerSheet)] = []
        for (index, user) in [members[0], members[3], members[7]].enumerated() {
            for day in [1, 4, 8] {
                let started = OffsetTimestamp(Self.firstDay.addingTimeInterval(Double(day * 86_400 + index * 3_700 + 1_234)), in: TimeZone(secondsFromGMT: 3600)!)
                late.append((user, AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                               answers: ["loudness": Answer(value: .number(Double(90 + day + index)), answeredAt: started)],
                                               startedAt: started, endedAt: nil, clientVersion: "test")))
            }
        }
        let today = OffsetTimestamp(now.addingTimeInterval(-60), in: TimeZone(secondsFromGMT: 0)!)
        late.append((members[1], AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                             answers: ["loudness": Answer(value: .number(77), answeredAt: today)],
                                             startedAt: today, endedAt: nil, clientVersion: "test")))
        for (user, sheet) in late {
            _ = try await opened.store.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: sheet, studyId: "s")], receivedAt: now)
            generated.sheets.append((user, sheet))
        }
        let raised = try Self.query(kind, opened, "SELECT version FROM comparison_versions WHERE questionnaire_id = 'daily' AND label = 'loudness'")
        #expect(Int(raised.first ?? "") == (Int(version.first ?? "") ?? 0) + 9, "\(kind): nine late uploads, nine new versions: \(raised)")
        // The late answers went into the snapshots, which stayed current (not left to rebuild).
        let current = try Self.query(kind, opened, """
            SELECT COUNT(*) FROM comparison_snapshot_days d JOIN comparison_versions v ON v.questionnaire_id = d.questionnaire_id AND v.label = d.label
            WHERE d.questionnaire_id = 'daily' AND d.label = 'loudness' AND d.version = v.version
            """)
        #expect(current == built, "\(kind): current snapshots \(current) of \(built)")
        try await check("after late sheets")

        // A snapshot not built for a week is dropped when another is built.
        let later = now.addingTimeInterval(9 * 86_400)
        _ = try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness",
                                                    from: later.addingTimeInterval(-86_400 * 2), to: nil, now: later)
        let left = try Self.query(kind, opened, "SELECT COUNT(*) FROM comparison_snapshot_days WHERE questionnaire_id = 'daily' AND label = 'loudness'")
        #expect(left == ["1"], "\(kind): \(left)")
        let rows = try Self.query(kind, opened, """
            SELECT COUNT(*) FROM comparison_snapshots s WHERE NOT EXISTS (SELECT 1 FROM comparison_snapshot_days d
                WHERE d.questionnaire_id = s.questionnaire_id AND d.label = s.label AND d.day = s.day)
            """)
        #expect(rows == ["0"], "\(kind): rows of dropped snapshots left: \(rows)")
    }

    @Test("a period is read from the day snapshots, also when both bounds fall on one day; a snapshot of an older version is rebuilt",
          arguments: StoreKind.allCases)
    func snapshotsAreRead(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 5)
        let generated = try await generate(opened.store, random: &random)
        let day = 86_400.0
        let windows: [(Date?, Date?)] = [
            (Self.firstDay.addingTimeInterval(3 * day + 3_600), Self.firstDay.addingTimeInterval(3 * day + 50_000)),
            (Self.firstDay.addingTimeInterval(2 * day + 100), Self.firstDay.addingTimeInterval(6 * day + 100)),
            (Self.firstDay.addingTimeInterval(4 * day + 7), nil),
        ]
        func means(_ window: (Date?, Date?)) async throws -> [Int64: Double] {
            try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: window.0, to: window.1, now: now)
        }
        for window in windows {
            let reference = Self.reference(generated, questionnaire: "daily", label: "loudness", from: window.0, to: window.1)
            Self.expectSame(try await means(window), reference, "\(kind) built")
            // Proof that the snapshots are what is read: spoiled, they spoil the means.
            _ = try Self.query(kind, opened, "UPDATE comparison_snapshots SET total = total + 1000000")
            // PostgreSQL keeps settled periods' means and bounds' sums in memory (valid while the version stands,
            // which this spoiling behind its back does not raise): forgotten, they are read again.
            (opened.store.legacy as? PostgreSQLServerStore)?.comparisonPeriods.removeAll()
            (opened.store.legacy as? PostgreSQLServerStore)?.comparisonBounds.removeAll()
            let spoiled = try await means(window)
            #expect(reference.contains { user, mean in abs((spoiled[user] ?? mean) - mean) > 1_000 }, "\(kind): \(String(describing: window))")
            // A new version makes them stale: rebuilt, right again.
            _ = try Self.query(kind, opened, "UPDATE comparison_versions SET version = version + 1 WHERE questionnaire_id = 'daily' AND label = 'loudness'")
            Self.expectSame(try await means(window), reference, "\(kind) rebuilt")
        }
    }

    @Test("PostgreSQL: a bound outside the item's sheets is read like an open end, with no snapshot; read so while a sheet lies beyond it, the read is invalid")
    func boundsOutsideTheSheets() async throws {
        let opened = try await StoreKind.postgres.open()
        defer { Task { await opened.close() } }
        let store = try #require(opened.store.legacy as? PostgreSQLServerStore)
        var random = Random(state: 11)
        let generated = try await generate(opened.store, random: &random)
        let day = 86_400.0
        // From before the first sheet until after the last: everyone's totals, and no snapshot
        // of either day is built (both days began long before `now`, so inside they would be).
        let everything = (Self.firstDay.addingTimeInterval(-day / 2), Self.firstDay.addingTimeInterval(12 * day))
        let first = try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness",
                                                     from: everything.0, to: everything.1, now: now)
        Self.expectSame(first, Self.reference(generated, questionnaire: "daily", label: "loudness", from: everything.0, to: everything.1), "outside")
        #expect(try Self.query(.postgres, opened, "SELECT COUNT(*) FROM comparison_snapshot_days") == ["0"])
        // A request that looked at the item's first and last sheet before a sheet beyond a bound
        // was stored reads that bound as outside: its read must say it is not valid (and is
        // then read again another way). Every period, read so: valid exactly when each given
        // bound lies outside the item's sheets, and then exact.
        var checked = (valid: 0, invalid: 0)
        for (questionnaire, label) in [("daily", "loudness"), ("daily", "mood"), ("weekly", "loudness")] {
            let starts = generated.sheets.filter { $0.sheet.questionnaireID == questionnaire && $0.sheet.answers[label]?.value.number != nil }
                .map(\.sheet.startedAt.date)
            // Also the edges: `from` at the first sheet's start is outside, `to` at the last's is not.
            let edges: [(Date?, Date?)] = [(starts.min(), nil), (nil, starts.max()), (nil, starts.max()!.addingTimeInterval(0.001))]
            let windows = Self.windows(&random) + edges + [(everything.0, nil), (nil, everything.1), everything]
            for (from, to) in windows where !(from.flatMap { from in to.map { $0 <= from } } ?? false) {
                let outside = (to.map { to in starts.allSatisfy { $0 < to } } ?? true) && (from.map { from in starts.allSatisfy { from <= $0 } } ?? true)
                let read = try await store.participantMeansReadingBoundsAsOutside(questionnaireId: questionnaire, studyId: "s", label: label,
                                                                                  from: from, to: to)
                let context = "\(questionnaire)/\(label) [\(String(describing: from)), \(String(describing: to)))"
                #expect(read.valid == outside, "\(context)")
                if outside {
                    Self.expectSame(read.means, Self.reference(generated, questionnaire: questionnaire, label: label, from: from, to: to), context)
                    checked.valid += 1
                } else {
                    checked.invalid += 1
                }
            }
        }
        #expect(checked.valid >= 9 && checked.invalid >= 60, "\(checked)")
    }

    @Test("""
        PostgreSQL: a settled period is answered from memory while its item's version stands; a late answer, a membership change \
        or a rebuild through another process makes it read again; a period still open to answers is never kept
        """)
    func settledPeriodsInMemory() async throws {
        let opened = try await StoreKind.postgres.open()
        defer { Task { await opened.close() } }
        let store = try #require(opened.store.legacy as? PostgreSQLServerStore)
        let other = try await opened.reopen()  // a second server process on the same database
        defer { Task { await other.close() } }
        var random = Random(state: 17)
        var generated = try await generate(opened.store, random: &random)
        let day = 86_400.0
        // Settled: each `to` lies before the last midnight that began an hour or more before `now`.
        let settled: [(Date?, Date)] = [(Self.firstDay.addingTimeInterval(2 * day + 100), Self.firstDay.addingTimeInterval(7 * day)),
                                        (nil, Self.firstDay.addingTimeInterval(5 * day + 3_000)),
                                        (Self.firstDay.addingTimeInterval(day), Self.firstDay.addingTimeInterval(9 * day + 50))]
        // Open until now, from a settled `from`: its sums before `from` are kept.
        let open: [(Date?, Date?)] = [(Self.firstDay.addingTimeInterval(2 * day + 100), nil), (Self.firstDay.addingTimeInterval(day), nil)]
        func check(_ context: String, settledPeriods: Bool = true, openPeriods: Bool = true) async throws {
            for (from, to) in (settledPeriods ? settled.map { ($0.0, Optional($0.1)) } : []) + (openPeriods ? open : []) {
                let reference = Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to)
                Self.expectSame(try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now),
                                reference, "\(context) [\(String(describing: from)), \(String(describing: to)))")
                for user in reference.keys.sorted().prefix(3) {
                    let figures = try await store.comparisonFigures(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to,
                                                                    userId: user, now: now)
                    let expected = ComparisonFigures(means: reference, userId: user)
                    #expect(figures.participants == expected.participants && figures.below == expected.below && figures.equal == expected.equal
                            && abs((figures.ownMean ?? .nan) - (expected.ownMean ?? 0)) < 1e-9, "\(context) user \(user): \(figures) ≠ \(expected)")
                }
            }
        }
        try await check("first read")
        #expect(store.comparisonPeriods.count == settled.count && store.comparisonBounds.count == open.count)

        // Proof that a kept period is what is answered: one member counted no more behind the
        // stores' backs (no version raised). This process still answers from memory; a process
        // without the period kept reads the change.
        let members = generated.members.sorted()
        let hidden = try #require(members.first { user in generated.sheets.contains { $0.userId == user && $0.sheet.questionnaireID == "daily" } })
        _ = try Self.query(.postgres, opened, "UPDATE comparison_totals SET member = false WHERE user_id = \(hidden)")
        try await check("kept", openPeriods: false)
        let (from, to) = settled[2]
        let fresh = try await other.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to, now: now)
        #expect(fresh[hidden] == nil && !fresh.isEmpty, "the other process reads the database")
        _ = try Self.query(.postgres, opened, "UPDATE comparison_totals SET member = true WHERE user_id = \(hidden)")
        // And that kept sums before a `from` are what is subtracted: the day snapshots spoiled
        // behind the stores' backs (an exact power of two, undone after). This process answers
        // right; a process without the sums kept reads the spoiled snapshot.
        _ = try Self.query(.postgres, opened, "UPDATE comparison_snapshots SET total = total + 1048576")
        try await check("bounds kept", settledPeriods: false)
        let spoiled = try await other.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: open[0].0, to: nil, now: now)
        let reference = Self.reference(generated, questionnaire: "daily", label: "loudness", from: open[0].0, to: nil)
        #expect(reference.contains { user, mean in abs((spoiled[user] ?? mean) - mean) > 1_000 }, "the other process reads the snapshot")
        _ = try Self.query(.postgres, opened, "UPDATE comparison_snapshots SET total = total - 1048576")

        // A late answer through the other process: read again here.
        let started = OffsetTimestamp(Self.firstDay.addingTimeInterval(3 * day + 4_321), in: TimeZone(secondsFromGMT: -5 * 3600)!)
        let late = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                               answers: ["loudness": Answer(value: .number(100), answeredAt: started)], startedAt: started, endedAt: nil, clientVersion: "test")
        _ = try await other.storeSheets(userId: members[2], sheets: [ValidatedSheet(sheet: late, studyId: "s")], receivedAt: now)
        generated.sheets.append((members[2], late))
        try await check("after a late answer")

        // A member leaves, through the other process: no longer counted here either.
        try await other.setMembership(studyId: "s", userId: members[1], status: .left, now: now)
        generated.members.remove(members[1])
        // The day snapshots hold everyone's sums, members or not: they stay current (not left to rebuild).
        let snapshots = try Self.query(.postgres, opened, """
            SELECT COUNT(*) FILTER (WHERE d.version = v.version), COUNT(*) FROM comparison_snapshot_days d
            JOIN comparison_versions v ON v.questionnaire_id = d.questionnaire_id AND v.label = d.label
            WHERE d.questionnaire_id = 'daily' AND d.label = 'loudness'
            """)
        let counts = snapshots.first?.split(separator: "|").map(String.init) ?? []
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[1] != "0", "current snapshots, of all: \(snapshots)")
        try await check("after a member left")
        // And comes back: counted again, with the sums before each `from` (read again: the
        // version rose again).
        try await other.setMembership(studyId: "s", userId: members[1], status: .member, now: now)
        generated.members.insert(members[1])
        try await check("after the member came back")

        // Answers changed in the database directly (as a coordinator loading data does), then
        // `maintenance rebuild-comparison` through the other process: read again here.
        _ = try Self.query(.postgres, opened, "DELETE FROM answers WHERE sheet_id IN (SELECT id FROM answer_sheets WHERE user_id = \(members[3]))")
        generated.sheets.removeAll { $0.userId == members[3] }
        try await other.rebuildComparisonSums()
        try await check("after a rebuild")
        #expect(store.comparisonPeriods.count == settled.count && store.comparisonBounds.count == open.count)

        // A period whose end lies in the current day takes answers that are not late (no new
        // version): it is never kept, and an answer started today counts at once.
        let today = OffsetTimestamp(now.addingTimeInterval(-3_600), in: TimeZone(secondsFromGMT: 0)!)
        let unsettled = (Self.firstDay, now.addingTimeInterval(-60))
        let before = try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: unsettled.0, to: unsettled.1, now: now)
        let current = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                  answers: ["loudness": Answer(value: .number(0), answeredAt: today)], startedAt: today, endedAt: nil, clientVersion: "test")
        _ = try await other.storeSheets(userId: members[4], sheets: [ValidatedSheet(sheet: current, studyId: "s")], receivedAt: now)
        generated.sheets.append((members[4], current))
        let after = try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: unsettled.0, to: unsettled.1, now: now)
        Self.expectSame(after, Self.reference(generated, questionnaire: "daily", label: "loudness", from: unsettled.0, to: unsettled.1), "today")
        #expect(after[members[4]] != before[members[4]])
        #expect(store.comparisonPeriods.count == settled.count)
        // Periods open until now count it at once too: the totals are read on every request.
        try await check("open periods after an answer started today")
        // A `from` in the current day is not settled: the sums before it are never kept (an
        // answer started today before it, not late, changes them).
        let sinceToday = now.addingTimeInterval(-1_800)
        _ = try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: sinceToday, to: nil, now: now)
        let earlier = OffsetTimestamp(now.addingTimeInterval(-2_400), in: TimeZone(secondsFromGMT: 0)!)
        let beforeIt = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                   answers: ["loudness": Answer(value: .number(55), answeredAt: earlier)], startedAt: earlier, endedAt: nil, clientVersion: "test")
        _ = try await other.storeSheets(userId: members[5], sheets: [ValidatedSheet(sheet: beforeIt, studyId: "s")], receivedAt: now)
        generated.sheets.append((members[5], beforeIt))
        Self.expectSame(try await store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: sinceToday, to: nil, now: now),
                        Self.reference(generated, questionnaire: "daily", label: "loudness", from: sinceToday, to: nil), "since today")
        #expect(store.comparisonBounds.count == open.count)
    }

    @Test("a period is settled when its end lies at or before the last midnight that began an hour or more ago; kept periods give way least recently used first; means since a kept bound")
    func settledPeriodsAndTheirRoom() {
        let midnight = 1_798_761_600.0
        #expect(ComparisonSums.isSettled(to: midnight, now: Date(timeIntervalSince1970: midnight + 3_600)))
        #expect(!ComparisonSums.isSettled(to: midnight, now: Date(timeIntervalSince1970: midnight + 3_599)))
        #expect(ComparisonSums.isSettled(to: midnight - 86_400, now: Date(timeIntervalSince1970: midnight + 3_599)))
        #expect(!ComparisonSums.isSettled(to: midnight + 0.001, now: Date(timeIntervalSince1970: midnight + 86_000)))

        let period = SettledPeriod(version: 3, userIds: [9, 2, 5, 7], means: [4, 1, 4, 2.5])
        #expect(period.participants == 4 && period.figures(for: 9).sumOfMeans == 11.5)
        #expect(period.figures(for: 5) == ComparisonFigures(participants: 4, sumOfMeans: 11.5, ownMean: 4, below: 2, equal: 2))
        #expect(period.figures(for: 2) == ComparisonFigures(participants: 4, sumOfMeans: 11.5, ownMean: 1, below: 0, equal: 1))
        #expect(period.figures(for: 3) == ComparisonFigures(participants: 4, sumOfMeans: 11.5, ownMean: nil, below: 0, equal: 0))
        #expect(period.byParticipant == [9: 4, 2: 1, 5: 4, 7: 2.5])
        // Since a bound: the totals minus the sums kept before it; no entry, nothing before it.
        let bound = SettledBound(version: 1, userIds: [7, 4, 3], totals: [10, 0, 4], counts: [2, 0, 1])
        #expect(bound.participants == 2, "4 has nothing before the bound: not held")
        let since = bound.means(totals: (userIds: [3, 5, 7, 8], totals: [10, 6, 10, 0], counts: [3, 2, 2, 0]))
        #expect(since.userIds == [3, 5] && since.means == [3, 3], "7 has no answer since the bound, 8 none at all")
        #expect(ComparisonFigures(userIds: [3, 5, 9], means: [3, 3, 1], userId: 5)
                == ComparisonFigures(participants: 3, sumOfMeans: 7, ownMean: 3, below: 1, equal: 2))
        #expect(ComparisonFigures(userIds: [3, 5, 9], means: [3, 3, 1], userId: 4)
                == ComparisonFigures(participants: 3, sumOfMeans: 7, ownMean: nil, below: 0, equal: 0))

        let cache = SettledCache<SettledPeriod>(capacity: 10)
        func key(_ to: Double) -> SettledKey { .init(questionnaireId: "q", studyId: "s", label: "l", from: nil, to: to) }
        cache.keep(period, for: key(1))
        cache.keep(period, for: key(2))
        _ = cache.value(key(1))                     // used: key 2 is now the least recently used
        cache.keep(period, for: key(3))              // 12 means > 10: key 2 gives way
        #expect(cache.value(key(1)) != nil && cache.value(key(2)) == nil && cache.value(key(3)) != nil)
        cache.keep(SettledPeriod(version: 2, userIds: [1], means: [1]), for: key(1))  // older: not kept
        #expect(cache.value(key(1))?.version == 3)
        cache.keep(SettledPeriod(version: 4, userIds: Array(1...11), means: Array(repeating: 1, count: 11)), for: key(4))
        #expect(cache.value(key(4)) == nil, "larger than the whole room: not kept")
    }

    @Test("a bound gets a day snapshot only when its day began an hour or more ago; a late answer started before the day it is received on")
    func snapshotDays() {
        let midnight = 1_798_761_600.0
        let now = Date(timeIntervalSince1970: midnight + 3_600)
        #expect(ComparisonSums.snapshotDay(for: midnight + 3_599, now: now) == 20_819)
        #expect(ComparisonSums.snapshotDay(for: midnight - 0.5, now: now) == 20_818)
        #expect(ComparisonSums.snapshotDay(for: midnight, now: now.addingTimeInterval(-1)) == nil)
        #expect(ComparisonSums.snapshotDay(for: midnight + 86_400, now: now) == nil)
        func entry(_ label: String, _ started: Double) -> ComparisonSums.Entry {
            ComparisonSums.Entry(questionnaireId: "daily", label: label, startedAt: started, sheetId: 1, number: 1)
        }
        let items = ComparisonSums.lateItems([entry("a", midnight - 1), entry("a", midnight - 5), entry("b", midnight), entry("c", midnight - 86_400)],
                                             receivedAt: Date(timeIntervalSince1970: midnight + 10))
        #expect(items.map(\.label) == ["a", "c"])
        #expect(items.map { $0.entries.map(\.startedAt) } == [[midnight - 1, midnight - 5], [midnight - 86_400]])
    }

    @Test("a bound's sum from a snapshot: the last running row since its midnight, else the snapshot, else nothing, read in participant order")
    func snapshotMerge() throws {
        func sorted(_ rows: [(Int64, Double, Int64)]) -> ComparisonSums.SortedSums {
            var iterator = rows.makeIterator()
            return ComparisonSums.SortedRows { iterator.next().map { ($0.0, ComparisonSums.Sum(total: $0.1, count: $0.2)) } }
        }
        var bound = ComparisonSums.SnapshotBound(partial: sorted([(2, 9, 3), (5, 4, 2)]), snapshot: sorted([(1, 1, 1), (2, 5, 2), (4, 6, 3), (6, 2, 1)]))
        let sums = try [1, 2, 3, 4, 5, 7].map { try bound.sum(for: $0) }
        #expect(sums.map(\.total) == [1, 9, 0, 6, 4, 0])
        #expect(sums.map(\.count) == [1, 3, 0, 3, 2, 0])
    }

    @Test("a bound before, after or inside a participant's sheets reads nothing, the totals, or the running row before it")
    func boundLookups() {
        let totals = ComparisonSums.Sum(total: 30, count: 3)
        let participant = ComparisonSums.Participant(userId: 1, totals: totals, firstStarted: 100, lastStarted: 300)
        let row = ComparisonSums.Sum(total: 10, count: 1)
        // Only a bound after the first sheet's start and at or before the last one's needs the seek.
        #expect(!participant.needsLookup(before: nil) && !participant.needsLookup(before: 100) && !participant.needsLookup(before: 301))
        #expect(participant.needsLookup(before: 101) && participant.needsLookup(before: 300))
        #expect(participant.sum(before: 100, open: totals, lookedUp: nil) == .zero)
        #expect(participant.sum(before: 300.5, open: .zero, lookedUp: nil) == totals)
        #expect(participant.sum(before: 200, open: .zero, lookedUp: row) == row)
        #expect(participant.sum(before: nil, open: totals, lookedUp: nil) == totals)
        // [200, ∞): the totals minus the row before 200; [0, 100): nothing.
        #expect(participant.mean(from: 200, to: nil, lookedUpBeforeTo: nil, lookedUpBeforeFrom: row) == 10)
        #expect(participant.mean(from: 0, to: 100, lookedUpBeforeTo: nil, lookedUpBeforeFrom: nil) == nil)
        var means = ComparisonSums.Means(from: Date(timeIntervalSince1970: 5), to: Date(timeIntervalSince1970: 5))
        #expect(means.periodIsEmpty)
        means.add(participant, beforeTo: nil, beforeFrom: nil)
        #expect(means.means.isEmpty)
    }

    @Test("the running rows a batch adds come in the order of sheet start, ties by the store's sheet id")
    func entryOrder() {
        func sheet(_ questionnaire: String, _ seconds: Double, _ answers: [String: AnswerValue]) -> AnswerSheet {
            let started = OffsetTimestamp(Date(timeIntervalSince1970: seconds), in: TimeZone(secondsFromGMT: 0)!)
            return AnswerSheet(id: UUID(), questionnaireID: questionnaire, questionnaireVersion: 1,
                               answers: answers.mapValues { Answer(value: $0, answeredAt: started) }, startedAt: started, endedAt: nil, clientVersion: "test")
        }
        let entries = ComparisonSums.entries(of: [
            (7, sheet("daily", 500, ["loudness": .number(4), "note": .text("x")])),
            (3, sheet("daily", 500, ["loudness": .number(2)])),
            (9, sheet("daily", 100, ["loudness": .number(1), "tags": .choices([1])])),
        ])
        #expect(entries.map(\.sheetId) == [9, 3, 7])
        #expect(entries.map(\.number) == [1, 2, 4])
    }
}
