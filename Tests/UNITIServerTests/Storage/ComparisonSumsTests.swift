import Foundation
import GRDB
import Testing
import UNITIProtocol
import UNITITesting
@testable import UNITIServer

/// The comparison read from the totals and the answers (``ComparisonSums``) gives the same means
/// as averaging every answer, for any period and from either side, on both stores: checked on
/// random data against a reference computed here from the generated sheets themselves.
@Suite("Comparison from totals and answers (SQLite and PostgreSQL)", .timeLimit(.minutes(10)))
struct ComparisonSumsTests {
    let now = TestTime.now
    /// Midnight UTC, the first day the generated sheets may start on.
    static let firstDay = Date(timeIntervalSince1970: 1_798_761_600)
    static let day = 86_400.0

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
                // Some sheets start in the same instant as the one before.
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

    /// The side the store reads a period from: by the first and last start of the item's
    /// answers, everyone's (members or not), as the totals hold them.
    static func side(_ generated: Generated, questionnaire: String, label: String, from: Date?, to: Date?) -> ComparisonSums.Side {
        let starts = generated.sheets.filter { $0.sheet.questionnaireID == questionnaire && $0.sheet.answers[label]?.value.number != nil }
            .map(\.sheet.startedAt.date.timeIntervalSince1970)
        let span = starts.min().flatMap { first in starts.max().map { first...$0 } }
        return ComparisonSums.Side(from: from?.timeIntervalSince1970, to: to?.timeIntervalSince1970, span: span)
    }

    /// The figures of each participant's mean (`means`) for the participant `userId`, counted here.
    static func figures(_ means: [Int64: Double], userId: Int64) -> ComparisonFigures {
        let own = means[userId]
        return ComparisonFigures(participants: means.count, sumOfMeans: means.values.reduce(0, +), ownMean: own,
                                 below: own.map { own in means.values.filter { $0 < own }.count } ?? 0,
                                 equal: own.map { own in means.values.filter { $0 == own }.count } ?? 0)
    }

    /// Periods on and off UTC midnight, open on either side, inside one day, across all, empty,
    /// short (read inside) and long (read as the totals minus the rest).
    static func windows(_ random: inout Random) -> [(Date?, Date?)] {
        var windows: [(Date?, Date?)] = [
            (nil, nil), (firstDay, nil), (nil, firstDay.addingTimeInterval(5 * day)),
            (firstDay.addingTimeInterval(2 * day), firstDay.addingTimeInterval(6 * day)),
            (firstDay.addingTimeInterval(3 * day + 3600), firstDay.addingTimeInterval(3 * day + 7200)),
            (firstDay.addingTimeInterval(4 * day + 100), firstDay.addingTimeInterval(5 * day + 100)),
            (firstDay.addingTimeInterval(6 * day), firstDay.addingTimeInterval(6 * day)),
            (firstDay.addingTimeInterval(7 * day), firstDay.addingTimeInterval(2 * day)),
            (firstDay.addingTimeInterval(day + 100), firstDay.addingTimeInterval(9 * day + 50)),
            (firstDay.addingTimeInterval(day), nil), (nil, firstDay.addingTimeInterval(9 * day)),
            (firstDay.addingTimeInterval(-day), firstDay.addingTimeInterval(12 * day)),
        ]
        for _ in 0..<40 {
            let a = Double(random.int(-86_400...(11 * 86_400))) + Double(random.int(0...999)) / 1000
            let b = a + Double(random.int(0...(9 * 86_400)))
            windows.append((random.chance(10) ? nil : firstDay.addingTimeInterval(a), random.chance(10) ? nil : firstDay.addingTimeInterval(b)))
        }
        return windows
    }

    /// Periods whose ends fall exactly on a sheet's start: `from` counts it, `to` does not.
    static func edges(_ generated: Generated, _ random: inout Random) -> [(Date?, Date?)] {
        let starts = generated.sheets.map(\.sheet.startedAt.date).sorted()
        return (0..<12).map { _ in
            let a = starts[random.int(0...(starts.count - 1))], b = starts[random.int(0...(starts.count - 1))]
            return (min(a, b), random.chance(20) ? nil : max(a, b))
        } + [(starts.first, nil), (nil, starts.last), (starts.first, starts.last)]
    }

    static func expectSame(_ actual: [Int64: Double], _ expected: [Int64: Double], _ context: String) {
        #expect(Set(actual.keys) == Set(expected.keys), "\(context): participants differ")
        for (user, mean) in expected {
            guard let got = actual[user] else { continue }
            // Sums added in another order may differ in the last bits from one long sum.
            #expect(abs(got - mean) <= 1e-9 * max(1, abs(mean)), "\(context): participant \(user) \(got) ≠ \(mean)")
        }
    }

    /// Checks the store's means, and its figures for two people, for `windows` of one item.
    static func check(_ store: ServerStore, _ generated: Generated, _ windows: [(Date?, Date?)], questionnaire: String = "daily",
                      label: String = "loudness", _ context: String) async throws {
        for (from, to) in windows {
            let reference = Self.reference(generated, questionnaire: questionnaire, label: label, from: from, to: to)
            let side = Self.side(generated, questionnaire: questionnaire, label: label, from: from, to: to)
            let context = "\(context) \(questionnaire)/\(label) [\(String(describing: from)), \(String(describing: to))) \(side)"
            expectSame(try await store.participantMeans(questionnaireId: questionnaire, studyId: "s", label: label, from: from, to: to),
                       reference, context)
            // The figures the comparison shows, summed up by the store, for a member with
            // answers in the period (the one in the middle) and for someone without.
            let middle = reference.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.dropFirst(reference.count / 2).first?.key
            for user in [middle, 999].compactMap({ $0 }) {
                let figures = try await store.comparisonFigures(questionnaireId: questionnaire, studyId: "s", label: label,
                                                                from: from, to: to, userId: user)
                let expected = Self.figures(reference, userId: user)
                #expect(figures.participants == expected.participants && figures.below == expected.below && figures.equal == expected.equal,
                        "\(context) user \(user): \(figures) ≠ \(expected)")
                #expect(abs(figures.sumOfMeans - expected.sumOfMeans) <= 1e-9 * max(1, abs(expected.sumOfMeans)), "\(context)")
                #expect(figures.ownMean.map { own in expected.ownMean.map { abs(own - $0) <= 1e-9 * max(1, abs($0)) } ?? false } ?? (expected.ownMean == nil),
                        "\(context) user \(user): own \(String(describing: figures.ownMean)) ≠ \(String(describing: expected.ownMean))")
            }
        }
    }

    @Test("the means from the totals and answers equal the means of the answers for every period, read from either side, on random data",
          arguments: StoreKind.allCases)
    func sameAsAveragingAnswers(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 2026)
        let generated = try await generate(opened.store, random: &random)
        let windows = Self.windows(&random) + Self.edges(generated, &random)
        for (questionnaire, label) in [("daily", "loudness"), ("daily", "mood"), ("weekly", "loudness"), ("daily", "tags"), ("daily", "note")] {
            try await Self.check(opened.store, generated, windows, questionnaire: questionnaire, label: label, "\(kind)")
        }
        // Both sides were read, many times each.
        let sides = windows.map { Self.side(generated, questionnaire: "daily", label: "loudness", from: $0.0, to: $0.1) }
        #expect(sides.filter { $0 == .inside }.count >= 15 && sides.filter { $0 == .outside }.count >= 15, "\(sides)")
        // Choices and text have no mean; the two questionnaires do not mix.
        #expect(try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "note", from: nil, to: nil).isEmpty)
    }

    @Test("membership changes after the sheets: who left is compared no more, who joined or came back is, on either side; never across studies",
          arguments: StoreKind.allCases)
    func membershipChangesAfterSheets(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 3)
        var generated = try await generate(opened.store, random: &random)
        let windows: [(Date?, Date?)] = [(nil, nil), (Self.firstDay.addingTimeInterval(2 * Self.day + 100), Self.firstDay.addingTimeInterval(6 * Self.day)),
                                         (Self.firstDay.addingTimeInterval(Self.day), nil)]
        #expect(Set(windows.map { Self.side(generated, questionnaire: "daily", label: "loudness", from: $0.0, to: $0.1) }) == [.inside, .outside])
        try await Self.check(opened.store, generated, windows, "\(kind) before")
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
        try await Self.check(opened.store, generated, windows, "\(kind) after")
        // A comparison stays within the study that owns the questionnaire: asked within another
        // study, even one its members also joined, it compares nobody.
        try await opened.store.createStudy(StudyRecord(id: "t", title: LocalizedText(["en": "T"]), modules: [.tyt]), now: now)
        for user in generated.members { try await opened.store.setMembership(studyId: "t", userId: user, status: .member, now: now) }
        for (from, to) in windows {
            #expect(try await opened.store.participantMeans(questionnaireId: "daily", studyId: "t", label: "loudness", from: from, to: to).isEmpty)
            let figures = try await opened.store.comparisonFigures(questionnaireId: "daily", studyId: "t", label: "loudness",
                                                                   from: from, to: to, userId: members[4])
            #expect(figures == ComparisonFigures(participants: 0, sumOfMeans: 0, ownMean: nil, below: 0, equal: 0))
        }
        try await Self.check(opened.store, generated, windows, "\(kind) also members of another study")
    }

    /// Rows of a query on the opened store's own database (one column per row, as text), or
    /// nothing for several statements separated by `;`.
    @discardableResult
    static func query(_ kind: StoreKind, _ opened: OpenedStore, _ sql: String) throws -> [String] {
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: opened.location)
            defer { try? queue.close() }
            return try queue.write { db in
                // Several statements run one after another; one statement gives its rows.
                guard sql.contains(";") else { return try String.fetchAll(db, sql: sql) }
                try db.execute(sql: sql)
                return []
            }
        case .postgres:
            return try PostgresCluster.shared().query(sql, database: String(opened.location.split(separator: "/").last!))
        }
    }

    @Test("""
        a database from before the comparison's tables gets them through every step up to the answers' covering index; \
        a rebuild gives the same, also for answers loaded without their sheet's columns
        """, arguments: StoreKind.allCases)
    func migrationAndRebuildFill(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        var random = Random(state: 7)
        let generated = try await generate(opened.store, random: &random)
        await opened.store.close()
        // Back to the schema before the comparison's first step: its table gone, the answers as
        // they were, the steps not recorded.
        let answersAsBefore = """
            DROP TABLE comparison_totals; DROP INDEX answers_comparison;
            ALTER TABLE answers DROP COLUMN user_id; ALTER TABLE answers DROP COLUMN questionnaire_id; ALTER TABLE answers DROP COLUMN started_at;
            CREATE INDEX answers_label ON answers(label);
            """
        switch kind {
        case .sqlite:
            try Self.query(kind, opened, answersAsBefore + """
                DROP INDEX memberships_study_status;
                DELETE FROM grdb_migrations WHERE identifier IN ('v8-comparison-sums', 'v9-comparison-running', 'v10-comparison-snapshots',
                                                                 'v13-comparison-in-proportion')
                """)
        case .postgres:
            try Self.query(kind, opened, answersAsBefore + """
                DELETE FROM schema_migrations WHERE identifier IN ('pg4-comparison-sums', 'pg5-comparison-running', 'pg6-comparison-snapshots',
                                                                   'pg7-comparison-reads', 'pg10-comparison-in-proportion')
                """)
        }
        let migrated = try await opened.reopen()
        let windows = [(nil, nil), (Self.firstDay.addingTimeInterval(Self.day + 5), Self.firstDay.addingTimeInterval(8 * Self.day - 5)),
                       (Self.firstDay.addingTimeInterval(3 * Self.day), Self.firstDay.addingTimeInterval(4 * Self.day))] as [(Date?, Date?)]
        try await Self.check(migrated, generated, windows, "\(kind) migrated")
        try await migrated.rebuildComparisonSums()
        try await migrated.rebuildComparisonSums()
        try await Self.check(migrated, generated, windows, "\(kind) rebuilt")
        // Answers loaded into the database directly (as `Scripts/bench/scale` does) lack their
        // sheet's columns, and the totals lack them: the rebuild gives both.
        try Self.query(kind, opened, """
            UPDATE answers SET user_id = NULL, questionnaire_id = NULL, started_at = NULL WHERE sheet_id % 2 = 0;
            UPDATE comparison_totals SET total = 0, count = 1
            """)
        try await migrated.rebuildComparisonSums()
        try await Self.check(migrated, generated, windows, "\(kind) rebuilt after a direct load")
        #expect(try Self.query(kind, opened, "SELECT COUNT(*) FROM answers WHERE user_id IS NULL") == ["0"])
        // The rebuild reads the stored answers: a text answer was stored without a number.
        #expect(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "note", from: nil, to: nil).isEmpty)
        #expect(try await migrated.participantMeans(questionnaireId: "daily", studyId: "s", label: "mood", from: nil, to: nil).count > 5)
        await migrated.close()
        opened.cleanup()
    }

    @Test("sheets stored late (started days before they arrive, some by a newcomer) and sheets started today count in the next comparison",
          arguments: StoreKind.allCases)
    func lateSheetsCountAtOnce(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 99)
        var generated = try await generate(opened.store, random: &random)
        let windows = Self.windows(&random) + [(Self.firstDay, now), (now.addingTimeInterval(-Self.day), nil)]
        try await Self.check(opened.store, generated, windows, "\(kind) before")
        // A device that was offline sends members' old sheets (and a newcomer's first ever);
        // one sheet is started today.
        let newcomer = try await opened.store.createUser(username: "new", email: "new@example.org", passwordHash: "x", language: "en",
                                                         pseudonym: "p-new", now: now)
        try await opened.store.setMembership(studyId: "s", userId: newcomer, status: .member, now: now)
        generated.members.insert(newcomer)
        let members = generated.members.sorted()
        var late: [(userId: Int64, sheet: AnswerSheet)] = []
        for (index, user) in [members[0], members[3], members[7], newcomer].enumerated() {
            for day in [1, 4, 8] {
                let started = OffsetTimestamp(Self.firstDay.addingTimeInterval(Double(day) * Self.day + Double(index * 3_700 + 1_234)),
                                              in: TimeZone(secondsFromGMT: 3600)!)
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
        try await Self.check(opened.store, generated, windows, "\(kind) after late sheets")
    }

    @Test("a short period reads the answers inside it; a long one and all time read the totals less the answers outside",
          arguments: StoreKind.allCases)
    func readsTheSmallerSide(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        var random = Random(state: 5)
        let generated = try await generate(opened.store, random: &random)
        let short: [(Date?, Date?)] = [(Self.firstDay.addingTimeInterval(3 * Self.day + 3_600), Self.firstDay.addingTimeInterval(3 * Self.day + 50_000)),
                                       (Self.firstDay.addingTimeInterval(2 * Self.day + 100), Self.firstDay.addingTimeInterval(6 * Self.day + 100)),
                                       (Self.firstDay.addingTimeInterval(8 * Self.day), nil)]
        let long: [(Date?, Date?)] = [(nil, nil), (Self.firstDay.addingTimeInterval(Self.day), nil), (nil, Self.firstDay.addingTimeInterval(9 * Self.day)),
                                      (Self.firstDay.addingTimeInterval(Self.day + 7), Self.firstDay.addingTimeInterval(9 * Self.day))]
        #expect(short.allSatisfy { Self.side(generated, questionnaire: "daily", label: "loudness", from: $0.0, to: $0.1) == .inside })
        #expect(long.allSatisfy { Self.side(generated, questionnaire: "daily", label: "loudness", from: $0.0, to: $0.1) == .outside })
        try await Self.check(opened.store, generated, short + long, "\(kind)")
        // Proof of what is read: the totals spoiled behind the store's back spoil the long
        // periods (an exact power of two, undone after), not the short ones.
        try Self.query(kind, opened, "UPDATE comparison_totals SET total = total + 1048576")
        try await Self.check(opened.store, generated, short, "\(kind) short, totals spoiled")
        for (from, to) in long {
            let spoiled = try await opened.store.participantMeans(questionnaireId: "daily", studyId: "s", label: "loudness", from: from, to: to)
            let reference = Self.reference(generated, questionnaire: "daily", label: "loudness", from: from, to: to)
            #expect(reference.contains { user, mean in abs((spoiled[user] ?? mean) - mean) > 1_000 }, "\(kind) \(String(describing: (from, to)))")
        }
        try Self.query(kind, opened, "UPDATE comparison_totals SET total = total - 1048576")
        try await Self.check(opened.store, generated, long, "\(kind) long, totals mended")
    }

    @Test("""
        what another server process stores or changes counts in this process's next comparison: a late answer, \
        an answer started today, a membership change, a rebuild after answers changed in the database
        """, arguments: StoreKind.allCases)
    func anotherProcessCountsAtOnce(_ kind: StoreKind) async throws {
        let opened = try await kind.open()
        defer { Task { await opened.close() } }
        let other = try await opened.reopen()  // a second server process on the same database
        defer { Task { await other.close() } }
        var random = Random(state: 17)
        var generated = try await generate(opened.store, random: &random)
        let windows: [(Date?, Date?)] = [(nil, nil), (Self.firstDay.addingTimeInterval(2 * Self.day + 100), Self.firstDay.addingTimeInterval(7 * Self.day)),
                                         (nil, Self.firstDay.addingTimeInterval(5 * Self.day + 3_000)), (Self.firstDay.addingTimeInterval(Self.day), nil),
                                         (Self.firstDay, now)]
        try await Self.check(opened.store, generated, windows, "\(kind) first read")
        let members = generated.members.sorted()
        func store(_ user: Int64, _ started: OffsetTimestamp, _ number: Double) async throws {
            let sheet = AnswerSheet(id: UUID(), questionnaireID: "daily", questionnaireVersion: 1,
                                    answers: ["loudness": Answer(value: .number(number), answeredAt: started)], startedAt: started, endedAt: nil,
                                    clientVersion: "test")
            _ = try await other.storeSheets(userId: user, sheets: [ValidatedSheet(sheet: sheet, studyId: "s")], receivedAt: now)
            generated.sheets.append((user, sheet))
        }
        try await store(members[2], OffsetTimestamp(Self.firstDay.addingTimeInterval(3 * Self.day + 4_321), in: TimeZone(secondsFromGMT: -5 * 3600)!), 100)
        try await Self.check(opened.store, generated, windows, "\(kind) after a late answer")
        try await store(members[4], OffsetTimestamp(now.addingTimeInterval(-3_600), in: TimeZone(secondsFromGMT: 0)!), 0)
        try await Self.check(opened.store, generated, windows, "\(kind) after an answer started today")
        try await other.setMembership(studyId: "s", userId: members[1], status: .left, now: now)
        generated.members.remove(members[1])
        try await Self.check(opened.store, generated, windows, "\(kind) after a member left")
        try await other.setMembership(studyId: "s", userId: members[1], status: .member, now: now)
        generated.members.insert(members[1])
        try await Self.check(opened.store, generated, windows, "\(kind) after the member came back")
        // Answers deleted in the database directly, then `maintenance rebuild-comparison` through the other process.
        try Self.query(kind, opened, "DELETE FROM answers WHERE sheet_id IN (SELECT id FROM answer_sheets WHERE user_id = \(members[3]))")
        generated.sheets.removeAll { $0.userId == members[3] }
        try await other.rebuildComparisonSums()
        try await Self.check(opened.store, generated, windows, "\(kind) after a rebuild")
    }

    @Test("a period reads the side with fewer answers as if they spread evenly from the item's first to its last start; all time reads the totals")
    func sideByTheItemsSpan() {
        let span = 0.0...200.0
        #expect(ComparisonSums.Side(from: nil, to: nil, span: span) == .outside)
        #expect(ComparisonSums.Side(from: nil, to: nil, span: nil) == .outside)
        #expect(ComparisonSums.Side(from: 50, to: 80, span: span) == .inside, "30 of 200")
        #expect(ComparisonSums.Side(from: 19, to: 1_000, span: span) == .outside, "from a first sheet until now: 181 of 200")
        #expect(ComparisonSums.Side(from: 19, to: nil, span: span) == .outside)
        #expect(ComparisonSums.Side(from: nil, to: 100, span: span) == .inside, "exactly half")
        #expect(ComparisonSums.Side(from: nil, to: 100.5, span: span) == .outside)
        #expect(ComparisonSums.Side(from: 300, to: 400, span: span) == .inside, "after every answer: nothing to read")
        #expect(ComparisonSums.Side(from: 80, to: 50, span: span) == .inside, "an empty period")
        #expect(ComparisonSums.Side(from: 10, to: nil, span: nil) == .inside, "no answers at all")
    }

    @Test("an upload adds one total per item: the sum and count of its numeric answers, its first and last start, items in order")
    func additionsPerItem() {
        func sheet(_ questionnaire: String, _ seconds: Double, _ answers: [String: AnswerValue]) -> AnswerSheet {
            let started = OffsetTimestamp(Date(timeIntervalSince1970: seconds), in: TimeZone(secondsFromGMT: 0)!)
            return AnswerSheet(id: UUID(), questionnaireID: questionnaire, questionnaireVersion: 1,
                               answers: answers.mapValues { Answer(value: $0, answeredAt: started) }, startedAt: started, endedAt: nil, clientVersion: "test")
        }
        let additions = ComparisonSums.Addition.of([
            sheet("weekly", 700, ["loudness": .number(8)]),
            sheet("daily", 500, ["loudness": .number(4), "note": .text("x"), "mood": .number(2)]),
            sheet("daily", 100, ["loudness": .number(1.5), "tags": .choices([1])]),
            sheet("daily", 300, ["loudness": .number(2)]),
        ])
        #expect(additions == [
            .init(questionnaireId: "daily", label: "loudness", total: 7.5, count: 3, firstStarted: 100, lastStarted: 500),
            .init(questionnaireId: "daily", label: "mood", total: 2, count: 1, firstStarted: 500, lastStarted: 500),
            .init(questionnaireId: "weekly", label: "loudness", total: 8, count: 1, firstStarted: 700, lastStarted: 700),
        ])
        #expect(ComparisonSums.Addition.of([sheet("daily", 100, ["note": .text("only text")])]).isEmpty)
    }
}
